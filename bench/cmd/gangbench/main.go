// Command gangbench runs benchmark scenarios against the scheduler under
// test and writes their results: perf-dash DataItems, bench.txt for
// benchstat, CSV of every gang, and plots. `make bench` calls it; settings
// come from the same environment variables as the suites.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/bench"
	"github.com/gangconf/gangconf/bench/ceiling"
	"github.com/gangconf/gangconf/suites/framework/harness"
)

const usage = `usage: gangbench (no arguments; make bench runs it)

Settings come from the environment, as make bench passes them: SCENARIO (names,
comma-separated; empty: the standard set), SIZES, REPEATS, SCHEDULER (a
reference profile, binary, command, external or ceiling), BESIDE (ceiling: its
gangs take turns with the scheduler's in the same run), PROVIDER, RESULTS,
BIN_DIR and the scheduler's settings (make help lists them).
`

func main() {
	harness.NoArguments("gangbench", usage)
	ctx, stop := harness.SignalContext()
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "gangbench: %v\n", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// ceilingScheduler is the SCHEDULER (and BESIDE) name of the ceiling binder.
const ceilingScheduler = "ceiling"

// besideSchedulerName is the schedulerName of the pods the ceiling binds
// when it runs beside the scheduler under test, a name no scheduler has.
const besideSchedulerName = "gangconf-ceiling"

func run(ctx context.Context) error {
	settings := harness.FromEnv()
	scenarios, err := bench.Select(os.Getenv("SCENARIO"))
	if err != nil {
		return err
	}
	if err := restrictSizes(scenarios, os.Getenv("SIZES")); err != nil {
		return err
	}
	repeats := 1
	if v := os.Getenv("REPEATS"); v != "" {
		if repeats, err = strconv.Atoi(v); err != nil || repeats < 1 {
			return fmt.Errorf("REPEATS=%q: want a whole number of at least 1", v)
		}
	}
	useCeiling := settings.Scheduler == ceilingScheduler
	beside, err := besideOf(os.Getenv("BESIDE"), useCeiling)
	if err != nil {
		return err
	}
	if useCeiling {
		// The ceiling binder runs in this process, under the default name.
		settings.Scheduler, settings.SchedulerName = "external", "default-scheduler"
	}
	// Scenarios sharing a cluster profile share one cluster.
	byCluster := map[string][]*bench.Scenario{}
	var clusters []string
	for _, s := range scenarios {
		if settings.Provider != "kwok" {
			s.Cluster = ""
		}
		if _, ok := byCluster[s.Cluster]; !ok {
			clusters = append(clusters, s.Cluster)
		}
		byCluster[s.Cluster] = append(byCluster[s.Cluster], s)
	}
	if err := settings.Validate(); err != nil {
		return err
	}
	out := filepath.Join(settings.Results, "bench")
	plots := filepath.Join(settings.Results, "plots")
	for _, dir := range []string{out, plots} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var crossed []bench.ThresholdCheck
	for _, c := range clusters {
		s := settings
		if c != "" {
			// One cluster's logs would overwrite another's.
			s.Cluster = c
			s.LogDir = filepath.Join(settings.Results, "logs", c)
		}
		s.ClusterName = "bench"
		s.APIServerEnv = bench.APIServerEnv(harness.DescribeMachine().MemoryKB)
		s.APIServerArgs = bench.APIServerArgs()
		crossedHere, err := runOnCluster(ctx, s, useCeiling, beside, byCluster[c], repeats, out, plots)
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

// besideOf reads BESIDE: empty for none, or ceiling.
func besideOf(v string, useCeiling bool) (*bench.Beside, error) {
	switch v {
	case "":
		return nil, nil
	case ceilingScheduler:
		if useCeiling {
			return nil, fmt.Errorf("BESIDE=%s: the ceiling is already the scheduler under test", v)
		}
		return &bench.Beside{Name: ceilingScheduler, SchedulerName: besideSchedulerName}, nil
	}
	return nil, fmt.Errorf("BESIDE=%q: only %s can run beside the scheduler under test", v, ceilingScheduler)
}

// runOnCluster runs the scenarios on one cluster and returns the thresholds
// their results crossed.
func runOnCluster(ctx context.Context, s harness.Settings, useCeiling bool, beside *bench.Beside, scenarios []*bench.Scenario, repeats int, out, plots string) (crossed []bench.ThresholdCheck, err error) {
	env, err := harness.Up(ctx, s, false, logf)
	if err != nil {
		return nil, err
	}
	defer func() {
		if derr := env.Down(); derr != nil && err == nil {
			err = derr
		}
	}()
	cs, err := env.Clientset()
	if err != nil {
		return nil, err
	}
	t := bench.Target{Client: cs, SchedulerName: env.SchedulerName, Processes: map[string]int{}}
	desc := env.Describe(ctx)
	if p := env.SchedulerProcess; p != nil {
		t.MetricsPort = p.Port
		t.Processes["scheduler"] = p.PID()
	}
	if env.Kwok != nil {
		if pid, err := env.Kwok.PID("kube-apiserver"); err == nil {
			t.Processes["kube-apiserver"] = pid
		}
		t.Quiet = controlPlane(env, t.Processes)
		t.Collect = collectAPIServerGarbage(cs)
		t.CollectionDelete = s.APIServerArgs != nil
		if err := settle(ctx, t.Quiet); err != nil {
			return nil, err
		}
	}
	if useCeiling {
		b, err := ceiling.Start(ctx, cs, t.SchedulerName)
		if err != nil {
			return nil, err
		}
		defer b.Stop()
		desc.Scheduler.Name = ceilingScheduler
	}
	if beside != nil {
		b, err := ceiling.Start(ctx, cs, beside.SchedulerName)
		if err != nil {
			return nil, err
		}
		defer b.Stop()
		t.Beside = beside
	}
	if err := bench.WriteJSON(filepath.Join(out, "environment.json"), desc); err != nil {
		return nil, err
	}
	for _, sc := range scenarios {
		var all *bench.Result
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
		all.Environment = &desc
		all.Thresholds = all.CheckThresholds()
		for _, c := range all.Thresholds {
			logf("%s: threshold %s", sc.Name, c)
		}
		crossed = append(crossed, bench.Crossed(all.Thresholds)...)
		if err := all.Write(out); err != nil {
			return nil, err
		}
		if _, err := all.Plot(plots); err != nil {
			return nil, err
		}
	}
	return crossed, nil
}

// restrictSizes keeps only the listed PodGroup sizes (SIZES=1,8,64).
func restrictSizes(scenarios []*bench.Scenario, list string) error {
	if strings.TrimSpace(list) == "" {
		return nil
	}
	keep := map[int]bool{}
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("SIZES=%q: want a comma list of whole numbers", list)
		}
		keep[n] = true
	}
	for _, s := range scenarios {
		for i := range s.Workloads {
			var sizes []int
			for _, n := range s.Workloads[i].Sizes {
				if keep[n] {
					sizes = append(sizes, n)
				}
			}
			s.Workloads[i].Sizes = sizes
		}
		var ws []bench.Workload
		for _, w := range s.Workloads {
			if len(w.Sizes) > 0 {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			return fmt.Errorf("scenario %s has none of SIZES=%s", s.Name, list)
		}
		s.Workloads = ws
	}
	return nil
}

// controlPlane is the metered processes (scheduler, API server) and the rest
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
