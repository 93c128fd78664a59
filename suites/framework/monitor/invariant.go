// Package monitor watches every pod binding and every PodGroup for a whole
// run and finds gangs the scheduler left partially bound.
//
// The invariant (semantics item 15): once a gang's first member is bound,
// at least minCount members must be bound. A gang whose binds stopped, and
// stayed stopped for the quiet window, with fewer members ever bound than
// the quorum in force at its first bind, is a violation. Binds in flight are
// not (the window covers them), and neither is a gang that shrinks later by
// deletion, eviction or a raised minCount: those are not the scheduler
// binding part of a gang. A gang one of whose members was deleted before
// it reached its quorum is not judged either: the scheduler may have been
// placing it when the member went.
package monitor

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// GangKey names a PodGroup.
type GangKey struct{ Namespace, Name string }

func (k GangKey) String() string { return k.Namespace + "/" + k.Name }

// Event is one observation, in the order the watch delivered it.
type Event struct {
	At   time.Time
	Gang GangKey
	// Pod is set for pod events.
	Pod string
	// Node is the node the pod was seen bound to.
	Node string
	// Deleted marks a pod going away (deletion requested or done).
	Deleted bool
	// MinCount is set (>0) for PodGroup events with a gang policy; Basic
	// marks a PodGroup with the basic policy (no quorum, never checked).
	MinCount int32
	Basic    bool
}

// Violation is a gang left partially bound, with its timeline.
type Violation struct {
	Gang     GangKey
	MinCount int32
	Bound    []string
	Timeline []Event
}

func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gang %s: %d of minCount %d members bound (%s), and no more binds came\n",
		v.Gang, len(v.Bound), v.MinCount, strings.Join(v.Bound, ", "))
	t0 := v.Timeline[0].At
	for _, e := range v.Timeline {
		switch {
		case e.Deleted:
			fmt.Fprintf(&b, "  +%-8s pod %s deleted\n", e.At.Sub(t0).Round(time.Millisecond), e.Pod)
		case e.Pod != "":
			fmt.Fprintf(&b, "  +%-8s pod %s bound to %s\n", e.At.Sub(t0).Round(time.Millisecond), e.Pod, e.Node)
		case e.Basic:
			fmt.Fprintf(&b, "  +%-8s podgroup: basic policy\n", e.At.Sub(t0).Round(time.Millisecond))
		default:
			fmt.Fprintf(&b, "  +%-8s podgroup: minCount %d\n", e.At.Sub(t0).Round(time.Millisecond), e.MinCount)
		}
	}
	return b.String()
}

type gangState struct {
	minCount int32 // current quorum; 0 while the PodGroup is unseen
	basic    bool
	quorum   int32 // quorum in force at the first bind
	bound    map[string]bool
	lastBind time.Time
	timeline []Event
	violated bool
	// disturbed: a member went away before the gang reached its quorum, so a
	// partial gang is the deleter's doing, not the scheduler's.
	disturbed bool
}

// Invariant is the state machine behind the monitor: it is fed events and
// asked, at a time, which gangs violate the invariant. It is safe for
// concurrent use.
type Invariant struct {
	Quiet time.Duration

	mu         sync.Mutex
	gangs      map[GangKey]*gangState
	violations []Violation
	// While the scheduler is down on purpose (a fault spec crashed it), a
	// gang cut off mid-binding is not yet a violation: suspended stops the
	// judging, and quiet windows count from resumed at the earliest.
	suspended bool
	resumed   time.Time
}

// Suspend stops judging until Resume: the scheduler under test is down.
func (inv *Invariant) Suspend() {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.suspended = true
}

// Resume judges again, with every quiet window starting no earlier than at:
// the scheduler is back and gets a full window to finish what it started.
func (inv *Invariant) Resume(at time.Time) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.suspended, inv.resumed = false, at
}

// NewInvariant checks with the given quiet window.
func NewInvariant(quiet time.Duration) *Invariant {
	return &Invariant{Quiet: quiet, gangs: map[GangKey]*gangState{}}
}

// Observe records an event.
func (inv *Invariant) Observe(e Event) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	g := inv.gangs[e.Gang]
	if g == nil {
		g = &gangState{bound: map[string]bool{}}
		inv.gangs[e.Gang] = g
	}
	switch {
	case e.Deleted:
		if g.disturbed || g.violated || (g.quorum > 0 && int32(len(g.bound)) >= g.quorum) {
			return
		}
		g.disturbed = true
	case e.Pod != "":
		if g.bound[e.Pod] {
			return
		}
		if len(g.bound) == 0 {
			g.quorum = g.minCount
		}
		g.bound[e.Pod] = true
		g.lastBind = e.At
	case e.Basic:
		if g.basic {
			return
		}
		g.basic = true
	default:
		if e.MinCount == g.minCount {
			return
		}
		g.minCount = e.MinCount
		if len(g.bound) > 0 && g.quorum == 0 {
			// The PodGroup was seen only after its first bind.
			g.quorum = e.MinCount
		}
	}
	g.timeline = append(g.timeline, e)
}

// Evaluate records, as of now, every gang whose binds have been quiet for
// the window with fewer members bound than its quorum, and returns all
// violations found so far. A gang is reported once.
func (inv *Invariant) Evaluate(now time.Time) []Violation {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	for k, g := range inv.gangs {
		if inv.suspended || g.violated || g.disturbed || g.basic || len(g.bound) == 0 || g.quorum == 0 {
			continue
		}
		since := g.lastBind
		if inv.resumed.After(since) {
			since = inv.resumed
		}
		if int32(len(g.bound)) < g.quorum && now.Sub(since) >= inv.Quiet {
			g.violated = true
			var bound []string
			for p := range g.bound {
				bound = append(bound, p)
			}
			sort.Strings(bound)
			inv.violations = append(inv.violations, Violation{
				Gang: k, MinCount: g.quorum, Bound: bound,
				Timeline: append([]Event(nil), g.timeline...),
			})
		}
	}
	out := append([]Violation(nil), inv.violations...)
	sort.Slice(out, func(i, j int) bool { return out[i].Gang.String() < out[j].Gang.String() })
	return out
}

// LastBind is the time of the latest bind of any gang (zero if none), or
// of the latest Resume if that came later.
func (inv *Invariant) LastBind() time.Time {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	last := inv.resumed
	for _, g := range inv.gangs {
		if g.lastBind.After(last) {
			last = g.lastBind
		}
	}
	return last
}

// Gangs is how many gangs have been seen.
func (inv *Invariant) Gangs() int {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return len(inv.gangs)
}
