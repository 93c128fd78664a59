package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// apiWorkers is how many pod creates (or deletes) run at once: enough that
// pod creation outpaces any scheduler on this machine, as upstream's QPS
// 5000 client does.
const apiWorkers = 32

// gangTimeout bounds the wait for one gang, or one concurrent workload.
const gangTimeout = 10 * time.Minute

// Target is the scheduler under test, as the runner sees it.
type Target struct {
	Client        kubernetes.Interface
	SchedulerName string
	// MetricsPort is the scheduler's loopback secure port serving /metrics;
	// 0 when it exposes none the harness can read.
	MetricsPort int
	// Processes to meter, by name (the scheduler and, on a cluster the
	// harness made, every control-plane process).
	Processes map[string]int
	// Quiet are the processes, by name, that must be quiet before each
	// measurement (the control plane and the scheduler); none: no wait.
	Quiet map[string]int
	// Collect has the API server collect its garbage (see CollectEvery);
	// nil where the harness did not start it.
	Collect func(context.Context) error
	// CollectionDelete says the API server runs APIServerArgs, so a gang
	// is removed by one collection delete rather than a delete per pod.
	CollectionDelete bool
	// Beside is a second binder measured in the same run; nil: none.
	Beside *results.Beside
}

// twin is the target as the binder beside it: its scheduler name, and no
// histograms, as they are the scheduler's.
func (t Target) twin() Target {
	t.SchedulerName, t.MetricsPort, t.Beside = t.Beside.SchedulerName, 0, nil
	return t
}

// workloadRun is one workload of a run with the target that binds its
// gangs, its namespace and the collector watching it.
type workloadRun struct {
	results.Workload
	t   Target
	ns  string
	col *Collector
	srs []results.SizeResult
}

// Run runs every workload of the scenario against the target: the
// sequential ones together, taking turns round by round (see rounds), then
// the concurrent ones one after another.
func Run(ctx context.Context, t Target, s *results.Scenario, logf func(string, ...any)) (*results.Result, error) {
	start := time.Now()
	meter := StartCostMeter(t.Processes)
	res := &results.Result{Scenario: s, Beside: t.Beside}
	pc := &pacer{Pacing: &res.Pacing}
	undoPreemption, err := preparePreemption(ctx, t.Client, s)
	if err != nil {
		meter.Stop()
		return nil, err
	}
	if undoPreemption != nil {
		// Also on failure: the slices' labels would pin nothing else.
		defer func() { _ = undoPreemption(context.WithoutCancel(ctx)) }()
	}
	runs, err := startWorkloads(ctx, t, s)
	stop := func() {
		stopCollectors(runs)
		meter.Stop()
	}
	if err != nil {
		stop()
		return nil, err
	}
	// Each workload's sizes are logged as soon as they are done: the
	// concurrent workloads run for minutes each.
	logSizes := func(r *workloadRun) {
		for _, sr := range r.srs {
			logf("%s/%s size %d: %d gangs, gang latency p50 %s (%s)", s.Name, r.Name, sr.Size, len(sr.Gangs),
				percentileDuration(sr.Gangs, 0.5), time.Since(start).Round(time.Second))
		}
	}
	seq := slices.DeleteFunc(slices.Clone(runs), func(r *workloadRun) bool { return r.Mode != results.ModeSequential })
	if len(seq) > 0 {
		if err := runSequential(ctx, t, seq, pc, func(round, rounds, gangs int) {
			logf("%s round %d of %d: %d gangs (%s)", s.Name, round, rounds, gangs, time.Since(start).Round(time.Second))
		}); err != nil {
			stop()
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		for _, r := range seq {
			logSizes(r)
		}
	}
	for _, r := range runs {
		if r.Mode != results.ModeSequential {
			if err := runConcurrent(ctx, r.t, r, pc); err != nil {
				stop()
				return nil, fmt.Errorf("%s/%s %w", s.Name, r.Name, err)
			}
			logSizes(r)
		}
	}
	for _, r := range runs {
		res.Sizes = append(res.Sizes, r.srs...)
		res.PodsBound += r.col.Total()
	}
	stopCollectors(runs)
	for _, r := range runs {
		if err := deleteNamespace(ctx, t.Client, r.ns); err != nil {
			meter.Stop()
			return nil, err
		}
	}
	res.Cost = meter.Stop()
	res.Took = time.Since(start)
	logPacing(logf, s.Name, res.Pacing)
	return res, nil
}

// startWorkloads gives each of the scenario's workload runs its namespace
// and a collector watching it; on failure, the runs made so far.
func startWorkloads(ctx context.Context, t Target, s *results.Scenario) ([]*workloadRun, error) {
	var runs []*workloadRun
	for _, r := range workloadRuns(t, s) {
		r.ns = namespaceFor(s.Name, r.Name)
		if err := createNamespace(ctx, t.Client, r.ns); err != nil {
			return runs, err
		}
		col, err := StartCollector(ctx, t.Client, r.ns)
		if err != nil {
			return runs, err
		}
		r.col = col
		runs = append(runs, r)
	}
	return runs, nil
}

func stopCollectors(runs []*workloadRun) {
	for _, r := range runs {
		r.col.Stop()
	}
}

// logPacing says where the scenario's time went between its measurements.
func logPacing(logf func(string, ...any), scenario string, p results.Pacing) {
	logf("%s: creating pods took %s in all, removing them %s; waited %s for a quiet cluster before %d measurements (%d still busy after %s), the API server collecting its garbage %d times; calibration medians: sort %s, memory walk %s",
		scenario, p.Creating.Round(time.Second), p.Removing.Round(time.Second), p.Waited.Round(time.Second), len(p.Calibration.CPU), p.Unquiet, QuietTimeout, p.Collections,
		results.Median(p.Calibration.CPU).Round(time.Microsecond), results.Median(p.Calibration.Memory).Round(time.Microsecond))
}

// workloadRuns are the scenario's workloads, each followed by its twin when
// a binder runs beside the target.
func workloadRuns(t Target, s *results.Scenario) []*workloadRun {
	var out []*workloadRun
	for _, w := range s.Workloads {
		out = append(out, &workloadRun{Workload: w, t: t})
		// A binder beside the scheduler preempts nothing.
		if t.Beside != nil && w.Preemption == nil {
			w.Name = results.TwinName(w.Name, t.Beside.Name)
			out = append(out, &workloadRun{Workload: w, t: t.twin()})
		}
	}
	return out
}

func (t Target) scrape(ctx context.Context) Families {
	if t.MetricsPort == 0 {
		return nil
	}
	f, err := Scrape(ctx, t.MetricsPort)
	if err != nil {
		return nil
	}
	return f
}

// serverDelta adds what the scheduler's podgroup histograms recorded
// between two scrapes (nil when it exposes none) to the size's.
func serverDelta(sr *results.SizeResult, before, after Families) {
	if before == nil || after == nil {
		return
	}
	match := map[string]string{"result": "scheduled"}
	sr.Attempt = sr.Attempt.Add(after.Histogram(MetricAttempt, match).Sub(before.Histogram(MetricAttempt, match)))
	sr.Algorithm = sr.Algorithm.Add(after.Histogram(MetricAlgorithm, nil).Sub(before.Histogram(MetricAlgorithm, nil)))
}

// turn is one gang of a sequential workload: the workload, the index of its
// size in Workload.Sizes, and its number among that size's gangs.
type turn struct {
	run        *workloadRun
	size, gang int
}

// rounds orders sequential workloads' gangs in rounds, each size's gangs
// spread evenly over them (with 10 rounds, a size of 3 gangs runs in rounds
// 0, 3 and 6), sizes ascending within a round and, at one size, the
// workloads in their order. Run one size after another, a slow phase of the
// machine (an etcd compaction, a collection of the API server's heap)
// shifted whichever size it fell on, and two runs' medians of one size were
// up to 1.6x apart; taking turns spreads it over all sizes. Run one
// workload after another, the same held for workloads: a run's 8-GPU sizes
// agreed within 15% with an earlier run's at 10 of 11, its 1-GPU ones, ten
// minutes later on a slower machine, came out 1.18-1.43 times as slow.
func rounds(runs []*workloadRun) [][]turn {
	n := 0
	for _, r := range runs {
		for _, size := range r.Sizes {
			n = max(n, r.GangsOf(size))
		}
	}
	out := make([][]turn, n)
	for _, r := range runs {
		for si, size := range r.Sizes {
			gangs := r.GangsOf(size)
			for g := 0; g < gangs; g++ {
				i := g * n / gangs
				out[i] = append(out[i], turn{r, si, g})
			}
		}
	}
	for _, round := range out {
		// Stable: workloads stay in their order at one size.
		slices.SortStableFunc(round, func(a, b turn) int { return a.run.Sizes[a.size] - b.run.Sizes[b.size] })
	}
	return out
}

// runSequential runs the sequential workloads' gangs one at a time, taking
// turns (see rounds), each gang measured alone on a quiet cluster with its
// capacity freed again, and leaves each workload's results in its srs.
//
// One gang of each workload's largest size runs first and is not recorded:
// the first gang of a size above 128 took 1.2 to 1.7 times as long as the
// others of its size in every run here, while the API server's and the
// scheduler's heaps grew to hold it.
func runSequential(ctx context.Context, t Target, runs []*workloadRun, p *pacer, progress func(round, rounds, gangs int)) error {
	for _, r := range runs {
		r.srs = make([]results.SizeResult, len(r.Sizes))
		for i, size := range r.Sizes {
			r.srs[i] = results.SizeResult{Workload: r.Name, Mode: r.Mode, Policy: r.Policy, Size: size}
		}
		warmup := results.SizeResult{Size: slices.Max(r.Sizes)}
		if err := runOneGang(ctx, r.t, r, &warmup, warmupGang, p); err != nil {
			return fmt.Errorf("%s warm-up gang of size %d: %w", r.Name, warmup.Size, err)
		}
	}
	rs := rounds(runs)
	for i, round := range rs {
		for _, tu := range round {
			if err := p.pause(ctx, t.Quiet, t.Collect, false); err != nil {
				return err
			}
			sr := &tu.run.srs[tu.size]
			if err := runOneGang(ctx, tu.run.t, tu.run, sr, tu.gang, p); err != nil {
				return fmt.Errorf("%s size %d: %w", tu.run.Name, sr.Size, err)
			}
		}
		progress(i+1, len(rs), len(round))
	}
	return nil
}

// runOneGang creates gang number i of the size, waits until it is bound,
// records its timings and the scheduler's histograms meanwhile, and removes
// it again.
func runOneGang(ctx context.Context, t Target, r *workloadRun, sr *results.SizeResult, i int, p *pacer) error {
	if r.Preemption != nil {
		return runOnePreemption(ctx, t, r, sr, i, p)
	}
	g := newGang(t, r.ns, r.Workload, sr.Size, i)
	before := t.scrape(ctx)
	cpu := cpuSnapshot(t.Processes)
	created := addTime(&p.Creating)
	complete, err := createGangs(ctx, t.Client, []*gang.Gang{g})
	created()
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, gangTimeout)
	times, err := r.col.WaitGang(wctx, g.Name, sr.Size)
	cancel()
	if err != nil {
		return err
	}
	addSizeCPU(sr, cpu, cpuSnapshot(t.Processes))
	serverDelta(sr, before, t.scrape(ctx))
	gr := results.GangResult{Workload: r.Name, Size: sr.Size, Index: i, Latency: times.Last.Sub(complete[0]), Spread: times.Last.Sub(times.First), Complete: complete[0]}
	sr.Gangs = append(sr.Gangs, gr)
	sr.Throughput = append(sr.Throughput, float64(sr.Size)/gr.Latency.Seconds())
	defer addTime(&p.Removing)()
	return t.removeGang(ctx, g)
}

// runConcurrent runs the workload's sizes one after another, all gangs of a
// size at once, and leaves the results in r.srs.
func runConcurrent(ctx context.Context, t Target, r *workloadRun, p *pacer) error {
	for _, size := range r.Sizes {
		if err := p.pause(ctx, t.Quiet, t.Collect, true); err != nil {
			return err
		}
		before := t.scrape(ctx)
		sr, err := runConcurrentSize(ctx, t, r, size, p)
		if err != nil {
			return fmt.Errorf("size %d: %w", size, err)
		}
		serverDelta(&sr, before, t.scrape(ctx))
		r.srs = append(r.srs, sr)
	}
	return nil
}

// runConcurrentSize creates all the size's gangs at once and samples how
// many pods are bound each second until all are.
func runConcurrentSize(ctx context.Context, t Target, r *workloadRun, size int, p *pacer) (results.SizeResult, error) {
	sr := results.SizeResult{Workload: r.Name, Mode: r.Mode, Policy: r.Policy, Size: size}
	var gangs []*gang.Gang
	for i := 0; i < r.GangsOf(size); i++ {
		gangs = append(gangs, newGang(t, r.ns, r.Workload, size, i))
	}
	base := r.col.Total()
	sampling := make(chan struct{})
	var tp throughputSampler
	go func() {
		defer close(sampling)
		wctx, cancel := context.WithTimeout(ctx, gangTimeout)
		defer cancel()
		_ = r.col.WaitTotal(wctx, base+size*len(gangs), func(now time.Time, total int) {
			tp.observe(now, total-base)
		})
	}()
	cpu := cpuSnapshot(t.Processes)
	created := addTime(&p.Creating)
	complete, err := createGangs(ctx, t.Client, gangs)
	created()
	if err != nil {
		return sr, err
	}
	<-sampling
	addSizeCPU(&sr, cpu, cpuSnapshot(t.Processes))
	// The wait also ends on an interrupt, which is no timeout.
	if err := ctx.Err(); err != nil {
		return sr, err
	}
	sr.Throughput = tp.samples
	for i, g := range gangs {
		times := r.col.Gang(g.Name)
		if times.Bound < size {
			return sr, fmt.Errorf("gang %s: %d of %d members bound after %s", g.Name, times.Bound, size, gangTimeout)
		}
		sr.Gangs = append(sr.Gangs, results.GangResult{Workload: r.Name, Size: size, Index: i,
			Latency: times.Last.Sub(complete[i]), Spread: times.Last.Sub(times.First), Complete: complete[i]})
	}
	defer addTime(&p.Removing)()
	return sr, t.removeAll(ctx, r.ns, gangs)
}

// warmupGang is the index of a sequential workload's unrecorded first gang.
const warmupGang = -1

func newGang(t Target, ns string, w results.Workload, size, i int) *gang.Gang {
	name := fmt.Sprintf("s%d-g%d", size, i)
	if i == warmupGang {
		name = fmt.Sprintf("s%d-warmup", size)
	}
	return &gang.Gang{
		Namespace: ns, Name: name,
		MinCount: int32(size), Basic: w.Policy == results.PolicyBasic, Members: size,
		Requests: w.Requests, SchedulerName: t.SchedulerName,
	}
}

// createGangs creates the gangs' PodGroups, then all their pods with many
// workers, and returns for each gang the moment it was complete: when the
// create call of its last member returned.
func createGangs(ctx context.Context, cs kubernetes.Interface, gangs []*gang.Gang) ([]time.Time, error) {
	type member struct{ g, i int }
	var members []member
	left := make([]atomic.Int64, len(gangs))
	complete := make([]time.Time, len(gangs))
	for gi, g := range gangs {
		if _, err := g.CreatePodGroup(ctx, cs); err != nil {
			return nil, fmt.Errorf("create podgroup %s: %w", g.Name, err)
		}
		left[gi].Store(int64(g.Members))
		for i := 0; i < g.Members; i++ {
			members = append(members, member{gi, i})
		}
	}
	err := inParallel(len(members), func(j int) error {
		m := members[j]
		if err := gangs[m.g].CreatePods(ctx, cs, m.i, m.i+1); err != nil {
			return err
		}
		if left[m.g].Add(-1) == 0 {
			complete[m.g] = time.Now()
		}
		return nil
	})
	return complete, err
}

// inParallel calls do for 0 to n-1, apiWorkers calls at a time, and
// returns the first error once all calls are done: a delete that fails is
// left to the collection delete that follows (removePods).
func inParallel(n int, do func(i int) error) error {
	var g errgroup.Group
	g.SetLimit(apiWorkers)
	for i := 0; i < n; i++ {
		g.Go(func() error { return do(i) })
	}
	return g.Wait()
}

// removeGang deletes the gang's pods and PodGroup, and waits until the pods
// are gone so that the next gang finds the capacity free.
func (t Target) removeGang(ctx context.Context, g *gang.Gang) error {
	if err := t.Client.SchedulingV1beta1().PodGroups(g.Namespace).Delete(ctx, g.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	t.deletePods(ctx, g.Namespace, g.PodNames())
	return removePods(ctx, t.Client, g.Namespace, g.Selector())
}

// removeAll deletes every gang of the namespace at once.
func (t Target) removeAll(ctx context.Context, ns string, gangs []*gang.Gang) error {
	if err := t.Client.SchedulingV1beta1().PodGroups(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	var names []string
	for _, g := range gangs {
		names = append(names, g.PodNames()...)
	}
	t.deletePods(ctx, ns, names)
	return removePods(ctx, t.Client, ns, "")
}

// APIServerArgs are the flags of a benchmark cluster's API server. A
// collection delete removes its items apiWorkers at a time instead of one
// after another (the default is 1 worker): a gang of 1024 8-GPU pods on
// gpu-5k then went in 3.3-3.9 s, against 3.5-4.5 s for a delete per pod
// through apiWorkers clients, with less of the API server's CPU (2.1-3.7 s
// against 2.9-4.1 s; three gangs each way, alternating). In the sweep at
// sizes 512 and 1024 removing took some 14% less (bench/MEASUREMENTS.md).
func APIServerArgs() map[string]string {
	return map[string]string{"delete-collection-workers": strconv.Itoa(apiWorkers)}
}

// deletePods deletes the named pods without a grace period, many at once,
// unless the API server deletes a collection as fast (CollectionDelete):
// removePods, which runs after, then deletes them all in one call. At the
// default of one worker a collection delete took a gang of 1024 7.9-15 s to
// go here, longer than it took to place, and a delete per pod through
// apiWorkers clients 3.4-6.9 s (bench/MEASUREMENTS.md). A delete that
// fails is left to removePods.
func (t Target) deletePods(ctx context.Context, ns string, names []string) {
	if t.CollectionDelete {
		return
	}
	zero := int64(0)
	_ = inParallel(len(names), func(i int) error {
		return t.Client.CoreV1().Pods(ns).Delete(ctx, names[i], metav1.DeleteOptions{GracePeriodSeconds: &zero})
	})
}

// removePods deletes the selected pods that are left and waits until they
// are gone. A delete of thousands of pods can outlast the API server's
// request timeout (the call then fails part-way), so it is issued again
// until none is left.
func removePods(ctx context.Context, cs kubernetes.Interface, ns, selector string) error {
	zero := int64(0)
	sel := metav1.ListOptions{LabelSelector: selector}
	var lastErr error
	// left is one pod of the selection still there, nil when none is.
	left := func(ctx context.Context) (*corev1.Pod, error) {
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector, Limit: 1})
		if err != nil || len(l.Items) == 0 {
			return nil, err
		}
		return &l.Items[0], nil
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, gangTimeout, true, func(ctx context.Context) (bool, error) {
		pod, err := left(ctx)
		if err != nil || pod == nil || pod.DeletionTimestamp != nil {
			return err == nil && pod == nil, nil
		}
		if lastErr = cs.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, sel); lastErr != nil {
			return false, nil
		}
		// Without a grace period the pods are usually gone when the delete
		// returns; looking again at once, not a poll interval later, saves
		// a tenth of a second on each of a sweep's 700-odd gangs.
		pod, err = left(ctx)
		return err == nil && pod == nil, nil
	})
	if err != nil && lastErr != nil {
		return fmt.Errorf("remove pods of %s: %w (last delete: %v)", ns, err, lastErr)
	}
	return err
}

// namespaceFor turns scenario and workload names into a namespace name.
func namespaceFor(scenario, workload string) string {
	n := strings.ToLower("bench-" + scenario + "-" + workload)
	n = strings.NewReplacer("_", "-", ".", "-", "@", "-").Replace(n)
	if len(n) > 63 {
		n = strings.TrimRight(n[:63], "-")
	}
	return n
}

func createNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{cluster.LabelRun: "true"}}}
	// A repeat finds the namespace of the run before it still terminating
	// (deleteNamespace does not wait, so that a single run need not); the
	// namespace controller removes it within seconds.
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			return true, err
		}
		old, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err != nil || old.DeletionTimestamp == nil, err
	})
	if err != nil {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return cluster.WaitServiceAccount(ctx, cs, name)
}

func deleteNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	zero := int64(0)
	_ = cs.CoreV1().Pods(name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	if err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
