// Command gangvendor is `make vendor-run`: gangconf's vendor path run here
// end to end, the way a vendor runs it on a cluster of theirs. It makes a
// stand-in for a real cluster (CLUSTER=bare: a control plane without nodes
// and without kwok), starts the reference scheduler's binary there outside
// the suite, under schedulerName my-scheduler (examples/my-scheduler.yaml),
// as a vendor's scheduler already runs; runs make conformance
// PROVIDER=existing SCHEDULER=external against it, with `gangvendor restart`
// as SCHEDULER_RESTART_CMD; removes the cluster; and compares the run spec
// by spec with a run of SCHEDULER=reference on a cluster the harness made.
//
// Layout under RESULTS: cluster/ (the stand-in's logs), run/ (the vendor
// run's results), reference/ (the reference run, unless -reference names
// one), compare.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/controls"
	"github.com/gangconf/gangconf/suites/framework/harness"
	"github.com/gangconf/gangconf/suites/framework/proc"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

const usage = `usage: gangvendor run [-reference dir]   the vendor path end to end (make vendor-run)
       gangvendor restart -results dir    kill the stand-in's scheduler and start it again (its SCHEDULER_RESTART_CMD)
RESULTS, BIN_DIR and WORK_DIR come from the environment, as make passes them.
`

// schedulerName is what the stand-in's scheduler serves, as a vendor's own
// name would be: not default-scheduler.
const schedulerName = "my-scheduler"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	reference := fs.String("reference", "", "results of a make conformance SCHEDULER=reference run to compare with (default: make one first)")
	results := fs.String("results", "", "restart: the stand-in cluster's results directory")
	_ = fs.Parse(os.Args[2:])
	ctx, stop := settings.SignalContext()
	var err error
	switch {
	case os.Args[1] == "run" && fs.NArg() == 0:
		err = run(ctx, *reference)
	case os.Args[1] == "restart" && fs.NArg() == 0 && *results != "":
		err = harness.RestartDetached(ctx, standIn(*results), logf)
	default:
		stop()
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gangvendor %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) { fmt.Printf("gangvendor: "+format+"\n", args...) }

// standIn is the stand-in cluster with its scheduler, results in dir. It
// takes only the build and work directories from the environment, which
// in the restart command is the suite's (SCHEDULER=external and the rest).
func standIn(dir string) settings.Settings {
	env := settings.FromEnv()
	return settings.Settings{
		Provider: "kwok", Cluster: "bare", ClusterName: "vendor-stand-in", Results: dir,
		BinDir: env.BinDir, WorkDir: env.WorkDir,
		Scheduler:       "binary",
		SchedulerBin:    filepath.Join(env.BinDir, "reference-scheduler"),
		SchedulerConfig: filepath.Join("examples", schedulerName+".yaml"),
		SchedulerArgs:   "--feature-gates=GenericWorkload=true",
	}
}

func run(ctx context.Context, reference string) error {
	out, err := filepath.Abs(settings.FromEnv().Results)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if reference == "" {
		reference = filepath.Join(out, "reference")
		logf("the reference run first, into %s", reference)
		err := conformance(ctx, "SCHEDULER=reference", "RESULTS="+reference)
		if ctx.Err() != nil {
			return fmt.Errorf("stopped (%v) in the reference run", context.Cause(ctx))
		}
		if err != nil {
			// The comparison names what it failed.
			logf("the reference run failed (%v); going on to compare with it", err)
		}
	}
	s := standIn(filepath.Join(out, "cluster"))
	env, err := harness.Up(ctx, s, true, logf)
	if err != nil {
		return err
	}
	logf("stand-in cluster up: no nodes, no kwok; scheduler %s outside the suite, log %s", schedulerName, filepath.Join(s.Results, "logs"))
	runDir := filepath.Join(out, "run")
	// The suite runs the command in its package directory; the stand-in's
	// settings name paths from the module root.
	restart := fmt.Sprintf("cd %s && %s restart -results %s", root, self, s.Results)
	runErr := conformance(ctx, "PROVIDER=existing", "KUBECONFIG="+env.Kubeconfig, "SCHEDULER=external",
		"SCHEDULER_NAME="+schedulerName, "SCHEDULER_RESTART_CMD="+restart, "RESULTS="+runDir)
	labelled := labelledLeft(env)
	if err := env.Down(); err != nil {
		return fmt.Errorf("remove the stand-in cluster: %w", err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("stopped (%v); the stand-in cluster is removed", context.Cause(ctx))
	}
	if runErr != nil {
		logf("the vendor run failed (%v); comparing what it did", runErr)
	}
	cmpErr := compare(filepath.Join(reference, "ginkgo-report.json"), filepath.Join(runDir, "ginkgo-report.json"), filepath.Join(out, "compare.md"))
	left := append(labelled, processesLeft(out)...)
	if len(left) > 0 {
		return fmt.Errorf("the run left %s", strings.Join(left, ", "))
	}
	logf("the run left no node, namespace or process behind")
	return cmpErr
}

// labelledLeft lists the nodes and namespaces labelled for a run that are
// still in the stand-in cluster: the vendor run must remove all it made.
func labelledLeft(env *harness.Env) []string {
	cs, err := env.Clientset()
	if err != nil {
		return []string{"(the stand-in cluster cannot be asked: " + err.Error() + ")"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sel := metav1.ListOptions{LabelSelector: cluster.LabelRun}
	var left []string
	nodes, err := cs.CoreV1().Nodes().List(ctx, sel)
	if err != nil {
		return []string{"(nodes cannot be listed: " + err.Error() + ")"}
	}
	for _, n := range nodes.Items {
		left = append(left, "node "+n.Name)
	}
	nss, err := cs.CoreV1().Namespaces().List(ctx, sel)
	if err != nil {
		return append(left, "(namespaces cannot be listed: "+err.Error()+")")
	}
	for _, ns := range nss.Items {
		left = append(left, "namespace "+ns.Name)
	}
	return left
}

// exitWait is how long the run's processes may take to exit after the
// teardown (a variable so that the unit test waits less).
var exitWait = 10 * time.Second

// processesLeft lists the processes, other than this one and its
// ancestors, that still name the results directory out (every process of
// the run has it in its environment or command line), once they had
// exitWait to exit after the teardown.
func processesLeft(out string) []string {
	ours := map[int]bool{}
	for pid := os.Getpid(); pid > 1; {
		ours[pid] = true
		f, err := proc.StatFields(pid)
		if err != nil || len(f) < 2 {
			break
		}
		pid, _ = strconv.Atoi(f[1])
	}
	var left []string
	deadline := time.Now().Add(exitWait)
	for {
		left = left[:0]
		for _, pid := range proc.PIDs() {
			if !ours[pid] && proc.Alive(pid) && proc.Mentions(pid, out) {
				left = append(left, fmt.Sprintf("process %d", pid))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// conformance runs make conformance with the variables, its output ours.
func conformance(ctx context.Context, vars ...string) error {
	cmd := exec.CommandContext(ctx, "make", append([]string{"--no-print-directory", "conformance"}, vars...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	proc.Interruptible(cmd)
	return cmd.Run()
}

// compare sets the vendor run against the reference run and writes the
// differences to path; only skips for what the harness cannot do on a
// cluster it did not make are excused.
func compare(reference, run, path string) error {
	ref, err := controls.ReadReport(reference)
	if err != nil {
		return fmt.Errorf("the reference run: %w", err)
	}
	got, err := controls.ReadReport(run)
	if err != nil {
		return fmt.Errorf("the vendor run: %w", err)
	}
	c := controls.Compare(ref, got, func(reason string) bool { return strings.Contains(reason, harness.NotMadeHere) })
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := c.Write(f); err != nil {
		return err
	}
	if err := c.Write(os.Stdout); err != nil {
		return err
	}
	return c.Err()
}
