package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// Priority classes of a preemption workload's gangs (fixtures'
// priorityclasses.yaml).
const (
	victimPriority    = "gangconf-low"
	preemptorPriority = "gangconf-high"
)

// labelSlice pins a preemption workload's gangs of one size to nodes of
// their own: its value names the victim gang size (sliceValue).
const labelSlice = "gangconf.io/bench-slice"

// validatePreemption checks a preemption workload against its cluster:
// victim gangs fill whole nodes, and every size's slice fits beside the
// others' (sizes taken over all the scenario's preemption workloads, as
// the workloads share the slice of a size).
func validatePreemption(s *results.Scenario, w results.Workload, capacity corev1.ResourceList, nodes int) error {
	p := w.Preemption
	perNode := podsPerNode(capacity, w.Requests)
	if p.DisruptionMode != results.DisruptionAll && p.DisruptionMode != results.DisruptionSingle {
		return fmt.Errorf("preemption: disruptionMode %q, want all or single", p.DisruptionMode)
	}
	if p.PreemptorPercent < 1 || p.PreemptorPercent > 100 {
		return fmt.Errorf("preemption: preemptorPercent %d, want 1 to 100", p.PreemptorPercent)
	}
	if w.Policy != results.PolicyGang || w.Mode != results.ModeSequential {
		return fmt.Errorf("preemption: policy %s and mode %s, want gang and sequential", w.Policy, w.Mode)
	}
	if perNode < 1 {
		return fmt.Errorf("preemption: no pod of these requests fits on a node")
	}
	for _, size := range w.Sizes {
		if size%perNode != 0 {
			return fmt.Errorf("preemption: a victim gang of %d leaves room on its nodes (%d pods of these requests fill one)", size, perNode)
		}
	}
	bySize, err := slicesOf(s, func(w results.Workload) int { return podsPerNode(capacity, w.Requests) })
	if err != nil {
		return err
	}
	need := 0
	for _, n := range bySize {
		need += n
	}
	if need > nodes {
		return fmt.Errorf("preemption: slices of %d nodes in all, above the %d of %s", need, nodes, s.Cluster)
	}
	return nil
}

// slicesOf maps each victim gang size of the scenario's preemption
// workloads to the nodes it fills. Workloads share the slice of a size, so
// their pods must fill it alike.
func slicesOf(s *results.Scenario, perNode func(results.Workload) int) (map[int]int, error) {
	out := map[int]int{}
	for _, w := range s.Workloads {
		if w.Preemption == nil {
			continue
		}
		n := perNode(w)
		if n < 1 {
			continue
		}
		for _, size := range w.Sizes {
			if had, ok := out[size]; ok && had != size/n {
				return nil, fmt.Errorf("preemption: victim gangs of %d fill %d nodes in one workload and %d in another", size, had, size/n)
			}
			out[size] = size / n
		}
	}
	return out, nil
}

// preparePreemption makes what the scenario's preemption workloads need:
// the priority classes, and each slice's nodes labelled. undo removes what
// it made; nil when the scenario has no preemption workload.
func preparePreemption(ctx context.Context, cs kubernetes.Interface, s *results.Scenario) (undo func(context.Context) error, err error) {
	if !slices.ContainsFunc(s.Workloads, func(w results.Workload) bool { return w.Preemption != nil }) {
		return nil, nil
	}
	shape, err := scenarioShape(s)
	if err != nil {
		return nil, err
	}
	sizes, err := slicesOf(s, func(w results.Workload) int { return podsPerNode(shape.Capacity, w.Requests) })
	if err != nil || len(sizes) == 0 {
		return nil, err
	}
	var undos []func(context.Context) error
	undo = func(ctx context.Context) error {
		var first error
		for i := len(undos) - 1; i >= 0; i-- {
			if err := undos[i](ctx); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	pcs, err := ensurePriorityClasses(ctx, cs)
	if err != nil {
		return nil, err
	}
	undos = append(undos, pcs)
	labelled, err := labelSlices(ctx, cs, sizes)
	undos = append(undos, func(ctx context.Context) error { return setSliceLabel(ctx, cs, labelled, nil) })
	if err != nil {
		_ = undo(ctx)
		return nil, err
	}
	return undo, nil
}

func scenarioShape(s *results.Scenario) (*fixtures.NodeShape, error) {
	prof, err := fixtures.LoadProfile(s.Cluster)
	if err != nil {
		return nil, err
	}
	return fixtures.Shape(prof.Nodes.Shape)
}

// ensurePriorityClasses creates the fixtures' priority classes that are
// missing; undo deletes those it created.
func ensurePriorityClasses(ctx context.Context, cs kubernetes.Interface) (undo func(context.Context) error, err error) {
	pcs, err := fixtures.PriorityClasses()
	if err != nil {
		return nil, err
	}
	var made []string
	undo = func(ctx context.Context) error {
		for _, n := range made {
			if err := cs.SchedulingV1().PriorityClasses().Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		return nil
	}
	for i := range pcs {
		_, err := cs.SchedulingV1().PriorityClasses().Create(ctx, &pcs[i], metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			continue
		}
		if err != nil {
			_ = undo(ctx)
			return nil, fmt.Errorf("create PriorityClass %s: %w", pcs[i].Name, err)
		}
		made = append(made, pcs[i].Name)
	}
	return undo, nil
}

// labelSlices labels, for each victim gang size, the nodes it fills (in
// name order, each node in one slice) with labelSlice, and returns the
// nodes labelled by value, also on failure.
func labelSlices(ctx context.Context, cs kubernetes.Interface, sizes map[int]int) (map[string][]string, error) {
	l, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range l.Items {
		if !n.Spec.Unschedulable {
			names = append(names, n.Name)
		}
	}
	sort.Strings(names)
	out := map[string][]string{}
	keys := slices.Sorted(maps.Keys(sizes))
	for _, size := range keys {
		n := sizes[size]
		if len(names) < n {
			return out, fmt.Errorf("preemption slices: %d schedulable nodes left, a slice needs %d", len(names), n)
		}
		out[sliceValue(size)], names = names[:n], names[n:]
	}
	return out, setSliceLabel(ctx, cs, out, func(v string) *string { return &v })
}

// setSliceLabel sets each value's nodes' labelSlice to value(v), or
// removes it when value is nil.
func setSliceLabel(ctx context.Context, cs kubernetes.Interface, nodes map[string][]string, value func(string) *string) error {
	type job struct{ node, value string }
	var jobs []job
	for v, ns := range nodes {
		for _, n := range ns {
			patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, labelSlice)
			if value != nil {
				patch = fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, labelSlice, *value(v))
			}
			jobs = append(jobs, job{n, patch})
		}
	}
	return inParallel(len(jobs), func(i int) error {
		_, err := cs.CoreV1().Nodes().Patch(ctx, jobs[i].node, types.MergePatchType, []byte(jobs[i].value), metav1.PatchOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}

func sliceValue(size int) string { return fmt.Sprintf("s%d", size) }

// preemptionGangs are the victim and preemptor gangs of gang number i of
// a preemption workload's size, both pinned to the size's slice.
func preemptionGangs(t Target, ns string, w results.Workload, size, i int) (victim, preemptor *gang.Gang) {
	suffix := fmt.Sprintf("s%d-g%d", size, i)
	if i == warmupGang {
		suffix = fmt.Sprintf("s%d-warmup", size)
	}
	slice := sliceValue(size)
	pin := func(p *corev1.Pod) {
		p.Spec.NodeSelector = map[string]string{labelSlice: slice}
	}
	p := w.Preemption.PreemptorSize(size)
	victim = &gang.Gang{Namespace: ns, Name: "victim-" + suffix, MinCount: int32(size), Members: size,
		Requests: w.Requests, SchedulerName: t.SchedulerName, PriorityClassName: victimPriority,
		DisruptionAll: w.Preemption.DisruptionMode == results.DisruptionAll, Pin: pin}
	preemptor = &gang.Gang{Namespace: ns, Name: "preemptor-" + suffix, MinCount: int32(p), Members: p,
		Requests: w.Requests, SchedulerName: t.SchedulerName, PriorityClassName: preemptorPriority, Pin: pin}
	return victim, preemptor
}

// runOnePreemption is runOneGang for a preemption workload: it places the
// victim gang (not timed), waits for a quiet cluster, creates the
// preemptor, and times it from complete until the victims it must evict
// are gone and it is bound; then it removes both gangs.
func runOnePreemption(ctx context.Context, t Target, r *workloadRun, sr *results.SizeResult, i int, p *pacer) error {
	victim, preemptor := preemptionGangs(t, r.ns, r.Workload, sr.Size, i)
	remove := func() error {
		defer addTime(&p.Removing)()
		for _, g := range []*gang.Gang{preemptor, victim} {
			if err := t.removeGang(ctx, g); err != nil {
				return err
			}
		}
		return nil
	}
	created := addTime(&p.Creating)
	_, err := createGangs(ctx, t.Client, []*gang.Gang{victim})
	created()
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, gangTimeout)
	defer cancel()
	if _, err := r.col.WaitGang(wctx, victim.Name, sr.Size); err != nil {
		return fmt.Errorf("victim gang: %w", err)
	}
	if err := p.waitQuiet(ctx, t.Quiet); err != nil {
		return err
	}
	before := t.scrape(ctx)
	created = addTime(&p.Creating)
	complete, err := createGangs(ctx, t.Client, []*gang.Gang{preemptor})
	created()
	if err != nil {
		return err
	}
	bound, err := r.col.WaitGang(wctx, preemptor.Name, preemptor.Members)
	if err != nil {
		return fmt.Errorf("preemptor: %w", err)
	}
	gone, err := r.col.WaitGone(wctx, victim.Name, r.Preemption.Victims(sr.Size))
	if err != nil {
		return fmt.Errorf("victims: %w", err)
	}
	serverDelta(sr, before, t.scrape(ctx))
	start := complete[0]
	gr := results.GangResult{Workload: r.Name, Size: sr.Size, Index: i, Complete: start,
		Spread: bound.Last.Sub(bound.First), PreemptorBound: bound.Last.Sub(start), VictimsGone: gone.LastGone.Sub(start),
		FirstEviction: gone.FirstMarked.Sub(start), Victims: gone.Gone}
	gr.Latency = max(gr.PreemptorBound, gr.VictimsGone)
	sr.Gangs = append(sr.Gangs, gr)
	return remove()
}

// isPreemption says whether the scenario's workload of that name is a
// preemption workload.
func isPreemption(s *results.Scenario, workload string) bool {
	for _, w := range s.Workloads {
		if w.Name == workload {
			return w.Preemption != nil
		}
	}
	return false
}

// preemptionItems are a preemption size's DataItems beside its GangLatency
// (the preemption latency): the victims' part, the preemptor's part, and
// the first eviction.
func preemptionItems(name string, sr results.SizeResult) []results.DataItem {
	var out []results.DataItem
	for _, m := range []struct {
		metric string
		pick   func(results.GangResult) time.Duration
	}{{results.ItemVictimsGone, victimsGone}, {results.ItemPreemptorBound, preemptorBound}, {results.ItemFirstEviction, firstEviction}} {
		out = append(out, item(m.metric, name, sr, summarize(sortedMs(sr.Gangs, m.pick), percentile), nil))
	}
	return out
}

func victimsGone(g results.GangResult) time.Duration    { return g.VictimsGone }
func preemptorBound(g results.GangResult) time.Duration { return g.PreemptorBound }
func firstEviction(g results.GangResult) time.Duration  { return g.FirstEviction }
