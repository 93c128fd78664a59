// Command upstreambench runs upstream scheduler_perf's copies of gangconf's
// upstream-gangs workloads on this machine, from the pinned Kubernetes
// module, and converts its DataItems into gangconf's, so that the report can
// put gangconf's figure over upstream's for one workload on one machine.
// `make bench-upstream` builds the test binaries and calls it.
//
// Each test binary runs from its package's folder in the module cache (it
// reads performance-config.yaml and templates/ from there), which is
// read-only: everything it writes goes under $(RESULTS)/bench-upstream.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gangconf/gangconf/bench"
	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// runTimeout bounds one test binary's run; the six workloads took minutes.
const runTimeout = time.Hour

const usage = `usage: upstreambench (no arguments; make bench-upstream runs it)

Settings come from the environment, as make bench-upstream passes them:
RESULTS, BIN_DIR and UPSTREAM_WORKLOADS (names, comma-separated; empty: all
six of upstream-gangs).
`

func main() { settings.Main("upstreambench", usage, run) }

func run(ctx context.Context) error {
	resultsDir, binDir := os.Getenv("RESULTS"), os.Getenv("BIN_DIR")
	if resultsDir == "" || binDir == "" {
		return errors.New("RESULTS and BIN_DIR must be set (make bench-upstream sets them)")
	}
	s, err := bench.Load(results.UpstreamScenario)
	if err != nil {
		return err
	}
	ws, err := bench.UpstreamWorkloads(s, os.Getenv("UPSTREAM_WORKLOADS"))
	if err != nil {
		return fmt.Errorf("UPSTREAM_WORKLOADS: %w", err)
	}
	etcd := filepath.Join(binDir, "etcd")
	if _, err := os.Stat(etcd); err != nil {
		return fmt.Errorf("upstream's benchmark starts etcd from PATH and %s is missing: run make build", etcd)
	}
	// Workloads by package, in the scenario's order.
	var pkgs []string
	byPkg := map[string][]results.UpstreamWorkload{}
	for _, w := range ws {
		if _, ok := byPkg[w.Package]; !ok {
			pkgs = append(pkgs, w.Package)
		}
		byPkg[w.Package] = append(byPkg[w.Package], w)
	}
	modCache, err := goOutput(ctx, "env", "GOMODCACHE")
	if err != nil {
		return err
	}
	dirs := map[string]string{}
	for _, p := range pkgs {
		if dirs[p], err = packageDir(ctx, binDir, p, byPkg[p]); err != nil {
			return err
		}
	}

	out := filepath.Join(resultsDir, "bench-upstream")
	// A fresh directory, so the DataItems file found after a run is this run's.
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	res := results.UpstreamResult{Environment: environment(ctx), Workloads: ws}
	merged := results.DataItems{Version: "v1"}
	for _, p := range pkgs {
		pr, items, err := runPackage(ctx, binDir, modCache, dirs[p], out, p, byPkg[p])
		if err != nil {
			return err
		}
		res.Runs = append(res.Runs, pr)
		merged.DataItems = append(merged.DataItems, items.DataItems...)
	}
	if err := results.WriteJSON(filepath.Join(out, results.UpstreamScenario+".json"), merged); err != nil {
		return err
	}
	if err := results.WriteJSON(filepath.Join(out, results.UpstreamScenario+"-result.json"), res); err != nil {
		return err
	}
	for _, it := range merged.DataItems {
		if it.Labels["Metric"] == "SchedulingThroughput" {
			fmt.Printf("upstream %s: throughput average %.1f pods/s\n", it.Labels["Name"], it.Data.Average)
		}
	}
	fmt.Printf("results: %s\n", out)
	return nil
}

// packageDir finds the folder of upstream's package pkg in the module cache
// and checks, before anything runs, that its configuration has the
// workloads as gangconf's scenario implies them and that its test binary
// is built.
func packageDir(ctx context.Context, binDir, pkg string, ws []results.UpstreamWorkload) (string, error) {
	dir, err := goOutput(ctx, "list", "-f", "{{.Dir}}", bench.UpstreamPackage+"/"+pkg)
	if err != nil {
		return "", err
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "performance-config.yaml"))
	if err != nil {
		return "", err
	}
	for _, w := range ws {
		if err := bench.CheckUpstreamConfig(cfg, w); err != nil {
			return "", err
		}
	}
	if _, err := os.Stat(testBinary(binDir, pkg)); err != nil {
		return "", fmt.Errorf("test binary of %s missing (make bench-upstream builds it): %w", pkg, err)
	}
	return dir, nil
}

func testBinary(binDir, pkg string) string {
	return filepath.Join(binDir, "scheduler_perf-"+pkg+".test")
}

// etcdSocketTail is the longest path upstream's test puts under its
// TMPDIR for etcd's unix socket (integration_test_etcd_data, os.MkdirTemp's
// number, etcd.sock), and socketPathMax the longest path a unix socket may
// have on Linux (sun_path's 108 bytes, less the closing NUL).
const (
	etcdSocketTail = len("/integration_test_etcd_data") + 10 + len("/etcd.sock")
	socketPathMax  = 107
)

// etcdTempDir makes the upstream test's TMPDIR in the system's temporary
// directory, not under the results: etcd, which the test starts there,
// listens on a unix socket in it, and under a deep results directory the
// socket's path was too long to bind ("bind: invalid argument").
func etcdTempDir() (string, error) {
	tmp, err := os.MkdirTemp("", "gangconf-upstream-")
	if err != nil {
		return "", err
	}
	if len(tmp)+etcdSocketTail > socketPathMax {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("temporary directory %s is too long for etcd's unix socket in it (at most %d characters): set TMPDIR to a shorter one", tmp, socketPathMax-etcdSocketTail)
	}
	return tmp, nil
}

// runPackage runs one test binary over its workloads and converts what it wrote.
func runPackage(ctx context.Context, binDir, modCache, dir, out, pkg string, ws []results.UpstreamWorkload) (results.PackageRun, results.DataItems, error) {
	raw := filepath.Join(out, "raw", pkg)
	logs := filepath.Join(raw, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return results.PackageRun{}, results.DataItems{}, err
	}
	// etcd's data and the test's temporary files go under tmp, removed after.
	tmp, err := etcdTempDir()
	if err != nil {
		return results.PackageRun{}, results.DataItems{}, err
	}
	defer os.RemoveAll(tmp)
	pr := results.PackageRun{Package: pkg, Args: []string{
		"-test.run=^$",
		"-test.bench=" + bench.UpstreamBenchRegexp(ws[0].TestCase, ws),
		// Each workload once; without it Go's benchmark loop may repeat one.
		"-test.benchtime=1x",
		"-test.timeout=" + runTimeout.String(),
		"-perf-scheduling-label-filter=performance",
		"-data-items-dir=" + raw,
	}}
	for _, w := range ws {
		pr.Workloads = append(pr.Workloads, w.Name)
	}
	logFile, err := os.Create(filepath.Join(raw, "output.log"))
	if err != nil {
		return pr, results.DataItems{}, err
	}
	defer logFile.Close()

	cmd := exec.CommandContext(ctx, testBinary(binDir, pkg), pr.Args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TMPDIR="+tmp,
		// Per-workload logs go to files (kept only for a failed workload)
		// instead of hundreds of MB on the terminal.
		"ARTIFACTS="+logs,
		// As upstream's periodic job: the cache mutation detector is
		// expensive and off in production.
		"KUBE_CACHE_MUTATION_DETECTOR=false",
		// The binary is built with -trimpath, as make build builds, so that
		// it reuses the Go build cache of the Kubernetes binaries (minutes
		// instead of a Kubernetes-size build). Its in-process API server
		// finds its serving-certificate fixtures from its own source path,
		// which -trimpath leaves relative ("k8s.io/kubernetes@v1.37.2/...");
		// for such builds it joins the path to these two variables (Bazel's),
		// which here name the module cache.
		"TEST_SRCDIR="+modCache, "TEST_WORKSPACE=.",
	)
	w := io.MultiWriter(os.Stdout, logFile)
	cmd.Stdout, cmd.Stderr = w, w
	// Own process group, so that an interrupt also stops the etcd it starts.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	fmt.Printf("upstream %s: %s (in %s)\n", pkg, strings.Join(pr.Workloads, ", "), dir)
	start := time.Now()
	err = cmd.Run()
	pr.TookSeconds = time.Since(start).Round(time.Second).Seconds()
	if err != nil {
		return pr, results.DataItems{}, fmt.Errorf("upstream %s failed after %.0fs: %w (output in %s, failed workloads' logs in %s)", pkg, pr.TookSeconds, err, logFile.Name(), logs)
	}
	fmt.Printf("upstream %s: done in %.0fs\n", pkg, pr.TookSeconds)
	files, _ := filepath.Glob(filepath.Join(raw, "BenchmarkPerfScheduling_*.json"))
	if len(files) != 1 {
		return pr, results.DataItems{}, fmt.Errorf("upstream %s: want one DataItems file in %s, found %d", pkg, raw, len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return pr, results.DataItems{}, err
	}
	pr.DataItems, _ = filepath.Rel(out, files[0])
	items, err := bench.ConvertUpstream(data, results.UpstreamScenario, ws)
	if err != nil {
		return pr, results.DataItems{}, fmt.Errorf("%s: %w", files[0], err)
	}
	return pr, items, nil
}

// goOutput runs the go command (e.g. list, to find a package's folder in
// the module cache) and returns its output.
func goOutput(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", args...).Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// environment describes upstream's run: its scheduler runs in the test
// process against an in-process API server, with fake nodes and no kubelet.
func environment(ctx context.Context) *results.Environment {
	env := results.Local()
	env.Provider = "scheduler_perf (in-process API server and scheduler, fake nodes)"
	env.FeatureGates = "GenericWorkload=true"
	env.KubernetesVersion, _ = goOutput(ctx, "list", "-m", "-f", "{{.Version}}", "k8s.io/kubernetes")
	env.Scheduler = results.Scheduler{Name: "upstream scheduler_perf", SchedulerName: "default-scheduler", Version: env.KubernetesVersion, FeatureGates: env.FeatureGates}
	return &env
}
