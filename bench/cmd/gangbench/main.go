// Command gangbench runs benchmark scenarios against the scheduler under
// test and writes their results: perf-dash DataItems, bench.txt for
// benchstat, CSV of every gang, and plots. `make bench` calls it; settings
// come from the same environment variables as the suites.
package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/bench"
	"github.com/gangconf/gangconf/bench/ceiling"
	"github.com/gangconf/gangconf/suites/framework/harness"
	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

var usage = `usage: gangbench (no arguments; make bench runs it)

Settings come from the environment, as make bench passes them: SCENARIO (names,
comma-separated; empty: the standard set), SIZES, REPEATS, SCHEDULER (below),
BESIDE (ceiling: its gangs take turns with the scheduler's in the same run),
PROVIDER, RESULTS, BIN_DIR and the scheduler's settings (make help lists them).

SCHEDULER:
` + kinds.Help("  ")

func main() { settings.Main("gangbench", usage, run) }

func logf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func run(ctx context.Context) error {
	s := settings.FromEnv()
	p, err := bench.ReadPlan(&s)
	if err != nil {
		return err
	}
	clusters, byCluster := byClusterOf(p.Scenarios, s.Provider)
	if err := s.Validate(); err != nil {
		return err
	}
	out := filepath.Join(s.Results, "bench")
	plots := filepath.Join(s.Results, "plots")
	for _, dir := range []string{out, plots} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var crossed []results.ThresholdCheck
	for _, c := range clusters {
		cs := s
		if c != "" {
			// One cluster's logs would overwrite another's.
			cs.Cluster = c
			cs.LogDir = filepath.Join(s.Results, "logs", c)
		}
		cs.ClusterName = "bench"
		cs.APIServerEnv = bench.APIServerEnv(results.DescribeMachine().MemoryKB)
		cs.APIServerArgs = bench.APIServerArgs()
		crossedHere, err := runOnCluster(ctx, cs, p, byCluster[c], out, plots)
		if err != nil {
			return err
		}
		crossed = append(crossed, crossedHere...)
	}
	logf("results: %s, plots: %s", out, plots)
	if len(crossed) > 0 {
		lines := make([]string, len(crossed))
		for i, c := range crossed {
			lines[i] = c.String()
		}
		// After every scenario ran and wrote its results, as scheduler_perf
		// fails a benchmark whose figure crossed its threshold.
		return fmt.Errorf("%d threshold(s) crossed:\n  %s", len(crossed), strings.Join(lines, "\n  "))
	}
	return nil
}

// byClusterOf groups the scenarios by cluster profile, in order: scenarios
// sharing a profile share one cluster. A provider other than kwok makes no
// cluster of a profile: all run on the one it has.
func byClusterOf(scenarios []*results.Scenario, provider string) ([]string, map[string][]*results.Scenario) {
	byCluster := map[string][]*results.Scenario{}
	var clusters []string
	for _, s := range scenarios {
		if provider != "kwok" {
			s.Cluster = ""
		}
		if _, ok := byCluster[s.Cluster]; !ok {
			clusters = append(clusters, s.Cluster)
		}
		byCluster[s.Cluster] = append(byCluster[s.Cluster], s)
	}
	return clusters, byCluster
}

// runOnCluster runs the scenarios on one cluster and returns the thresholds
// their results crossed.
func runOnCluster(ctx context.Context, s settings.Settings, p bench.Plan, scenarios []*results.Scenario, out, plots string) (crossed []results.ThresholdCheck, err error) {
	env, err := harness.Up(ctx, s, false, logf)
	if err != nil {
		return nil, err
	}
	defer func() {
		if derr := env.Down(); derr != nil && err == nil {
			err = derr
		}
	}()
	t, err := target(ctx, env)
	if err != nil {
		return nil, err
	}
	desc := env.Describe(ctx)
	if p.Ceiling != nil {
		b, err := ceiling.Start(ctx, t.Client, t.SchedulerName)
		if err != nil {
			return nil, err
		}
		defer b.Stop()
		desc.Scheduler.Name = p.Ceiling.Name
	}
	if p.Beside != nil {
		b, err := ceiling.Start(ctx, t.Client, p.Beside.SchedulerName)
		if err != nil {
			return nil, err
		}
		defer b.Stop()
		t.Beside = p.Beside
	}
	if err := results.WriteJSON(filepath.Join(out, "environment.json"), desc); err != nil {
		return nil, err
	}
	for _, sc := range scenarios {
		checks, err := runScenario(ctx, t, sc, p.Repeats, &desc, out, plots)
		if err != nil {
			return nil, err
		}
		crossed = append(crossed, bench.Crossed(checks)...)
	}
	return crossed, nil
}

// target is the scheduler under test on env's cluster, as the runner sees
// it; on a cluster the harness made, once the cluster has settled.
func target(ctx context.Context, env *harness.Env) (bench.Target, error) {
	cs, err := env.Clientset()
	if err != nil {
		return bench.Target{}, err
	}
	t := bench.Target{Client: cs, SchedulerName: env.SchedulerName, Processes: map[string]int{}}
	if proc := env.SchedulerProcess; proc != nil {
		t.MetricsPort = proc.Port
		t.Processes["scheduler"] = proc.PID()
	}
	if env.Kwok == nil {
		t.Processes[harnessProcess] = os.Getpid()
		return t, nil
	}
	if pid, err := env.Kwok.PID("kube-apiserver"); err == nil {
		t.Processes["kube-apiserver"] = pid
	}
	t.Quiet = controlPlane(env, t.Processes)
	// Every control-plane process is metered, not only the two whose CPU
	// time per pod the report compares: their memory per 1000 nodes is how
	// the cluster's cost grows with its size.
	t.Processes = maps.Clone(t.Quiet)
	// gangbench itself creates the pods and watches them: metered too, so
	// that what measuring cost stands beside what was measured, though no
	// measurement waits for it to be quiet.
	t.Processes[harnessProcess] = os.Getpid()
	t.Collect = collectAPIServerGarbage(cs)
	t.CollectionDelete = env.APIServerArgs != nil
	return t, settle(ctx, t.Quiet)
}

// harnessProcess is gangbench's own name among the metered processes.
const harnessProcess = "gangbench"

// runScenario runs the scenario repeats times, writes the results of all
// repeats together with their plots, and returns its thresholds' checks.
func runScenario(ctx context.Context, t bench.Target, sc *results.Scenario, repeats int, desc *results.Environment, out, plots string) ([]results.ThresholdCheck, error) {
	var all *results.Result
	for r := 0; r < repeats; r++ {
		res, err := bench.Run(ctx, t, sc, logf)
		if err != nil {
			return nil, err
		}
		logf("%s: done in %s", sc.Name, res.Took.Round(1e9))
		if all == nil {
			all = res
		} else if err := all.Merge(res); err != nil {
			return nil, err
		}
	}
	all.Environment = desc
	all.Thresholds = bench.CheckThresholds(all)
	for _, c := range all.Thresholds {
		logf("%s: threshold %s", sc.Name, c)
	}
	if err := bench.Write(out, all); err != nil {
		return nil, err
	}
	_, err := bench.Plot(plots, all)
	return all.Thresholds, err
}

// controlPlane is the given processes (scheduler, API server) and the rest
// of kwok's control plane, by name.
func controlPlane(env *harness.Env, metered map[string]int) map[string]int {
	busy := map[string]int{}
	for n, pid := range metered {
		busy[n] = pid
	}
	for _, c := range []string{"kube-controller-manager", "etcd", "kwok-controller"} {
		if pid, err := env.Kwok.PID(c); err == nil {
			busy[c] = pid
		}
	}
	return busy
}

// collectAPIServerGarbage asks the API server for a heap profile after a
// garbage collection (net/http/pprof's gc=1; the API server serves
// /debug/pprof unless --profiling=false), for the collection alone.
func collectAPIServerGarbage(cs kubernetes.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		return cs.Discovery().RESTClient().Get().AbsPath("/debug/pprof/heap").Param("gc", "1").Do(ctx).Error()
	}
}

// settle waits, before anything is timed, until the cluster has digested its
// new nodes: its processes together leave most of the machine free.
func settle(ctx context.Context, busy map[string]int) error {
	limit := bench.SettleShare * float64(runtime.NumCPU())
	waited, settled, err := bench.Settle(ctx, busy, limit, bench.SettleWindow, bench.SettleTimeout)
	if err != nil {
		return err
	}
	var names []string
	for n := range busy {
		names = append(names, n)
	}
	sort.Strings(names)
	if settled {
		logf("%s settled in %s (under %.1f cores over %s)", strings.Join(names, ", "), waited.Round(time.Second), limit, bench.SettleWindow)
	} else {
		logf("%s still above %.1f cores after %s: measuring anyway", strings.Join(names, ", "), limit, waited.Round(time.Second))
	}
	return nil
}
