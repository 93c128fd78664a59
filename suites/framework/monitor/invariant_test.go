package monitor

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

var g = GangKey{"ns", "train"}

func feed(inv *Invariant, events ...Event) {
	for _, e := range events {
		inv.Observe(e)
	}
}

// A timeline recorded from the no-gang control: the gang's PodGroup asks
// for 3, two members fit and are bound one by one, the third never is.
func TestPartiallyBoundGangIsAViolationOnceQuiet(t *testing.T) {
	inv := NewInvariant(5 * time.Second)
	feed(inv,
		Event{At: at(0), Gang: g, MinCount: 3},
		Event{At: at(40), Gang: g, Pod: "train-0", Node: "n-0"},
		Event{At: at(55), Gang: g, Pod: "train-1", Node: "n-1"},
	)
	if v := inv.Evaluate(at(3000)); len(v) != 0 {
		t.Fatalf("flagged while binds may still be in flight: %v", v)
	}
	v := inv.Evaluate(at(5055))
	if len(v) != 1 {
		t.Fatalf("violations = %v, want the partial gang", v)
	}
	s := v[0].String()
	for _, want := range []string{"gang ns/train: 2 of minCount 3", "train-0, train-1", "pod train-1 bound to n-1"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if again := inv.Evaluate(at(20000)); len(again) != 1 {
		t.Fatalf("a gang is reported once, got %d", len(again))
	}
}

// Timelines judged once, with a 5 s window, a minute after they start: long
// after their last event. Each case says how many violations it gives.
func TestTimelines(t *testing.T) {
	raised := GangKey{"ns", "raised"}
	basic := GangKey{"ns", "basic"}
	for _, c := range []struct {
		name   string
		events []Event
		want   int
	}{
		{
			name: "a gang whose binds kept coming until quorum is fine",
			events: []Event{
				{At: at(0), Gang: g, MinCount: 3},
				{At: at(10), Gang: g, Pod: "train-0"},
				{At: at(4000), Gang: g, Pod: "train-1"},
				{At: at(8500), Gang: g, Pod: "train-2"},
			},
		},
		{
			name: "later changes are not scheduled partial gangs",
			events: []Event{
				// Bound at quorum 2, then minCount raised to 4: raising never
				// unbinds, and the gang was not bound partially.
				{At: at(0), Gang: raised, MinCount: 2},
				{At: at(10), Gang: raised, Pod: "r-0"},
				{At: at(11), Gang: raised, Pod: "r-1"},
				{At: at(500), Gang: raised, MinCount: 4},
				// Basic policy: any number bound is fine.
				{At: at(0), Gang: basic, Basic: true},
				{At: at(10), Gang: basic, Pod: "b-0"},
			},
		},
		{
			name: "a quorum lowered before the first bind is the one that counts",
			events: []Event{
				{At: at(0), Gang: g, MinCount: 4},
				{At: at(100), Gang: g, MinCount: 2},
				{At: at(200), Gang: g, Pod: "p-0"},
				{At: at(201), Gang: g, Pod: "p-1"},
			},
		},
		{
			name: "one pod seen three times is one bound member",
			events: []Event{
				{At: at(0), Gang: g, MinCount: 2},
				{At: at(10), Gang: g, Pod: "p-0"},
				{At: at(20), Gang: g, Pod: "p-0"},
				{At: at(30), Gang: g, Pod: "p-0"},
			},
			want: 1,
		},
		{
			// Recorded from a run: the spec's cleanup deleted the members of a
			// waiting gang while the scheduler, given room by the same
			// cleanup, was binding it.
			name: "members deleted before quorum exempt the gang",
			events: []Event{
				{At: at(0), Gang: g, MinCount: 3},
				{At: at(5100), Gang: g, Pod: "g1-0", Deleted: true},
				{At: at(5194), Gang: g, Pod: "g1-2", Node: "n-3"},
				{At: at(5208), Gang: g, Pod: "g1-1", Node: "n-0"},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			inv := NewInvariant(5 * time.Second)
			feed(inv, c.events...)
			if v := inv.Evaluate(at(60000)); len(v) != c.want {
				t.Fatalf("%d violations, want %d: %v", len(v), c.want, v)
			}
		})
	}
}

func TestDeletionAfterTheViolationDoesNotHideIt(t *testing.T) {
	inv := NewInvariant(5 * time.Second)
	feed(inv,
		Event{At: at(0), Gang: g, MinCount: 3},
		Event{At: at(10), Gang: g, Pod: "p-0", Node: "n"},
	)
	if v := inv.Evaluate(at(5100)); len(v) != 1 {
		t.Fatalf("violations = %v", v)
	}
	inv.Observe(Event{At: at(6000), Gang: g, Pod: "p-0", Deleted: true})
	if v := inv.Evaluate(at(7000)); len(v) != 1 {
		t.Fatalf("a cleanup after the fact hid the violation: %v", v)
	}
}

// A fault spec crashes the scheduler after one of three binds: the gang is
// not judged while the scheduler is down, and gets a whole quiet window
// from its return, but no more.
func TestSchedulerDowntimeIsNotCountedAsQuiet(t *testing.T) {
	inv := NewInvariant(5 * time.Second)
	feed(inv,
		Event{At: at(0), Gang: g, MinCount: 3},
		Event{At: at(10), Gang: g, Pod: "train-0"},
	)
	inv.Suspend()
	if v := inv.Evaluate(at(9000)); len(v) != 0 {
		t.Fatalf("judged while the scheduler was down: %v", v)
	}
	inv.Resume(at(12000))
	if last := inv.LastBind(); !last.Equal(at(12000)) {
		t.Fatalf("LastBind = %v, want the resume time", last)
	}
	if v := inv.Evaluate(at(16000)); len(v) != 0 {
		t.Fatalf("flagged within the window after the restart: %v", v)
	}
	if v := inv.Evaluate(at(17000)); len(v) != 1 {
		t.Fatalf("a gang still partial a whole window after the restart was not flagged: %v", v)
	}
}
