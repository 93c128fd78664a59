// Command gangconf is the harness's command line: it brings virtual clusters
// up and down with the scheduler under test, and checks a negative control's
// results against the failures it is expected to produce. The Makefile calls
// it; settings come from the same environment variables.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gangconf/gangconf/suites/framework/admission"
	"github.com/gangconf/gangconf/suites/framework/controls"
	"github.com/gangconf/gangconf/suites/framework/harness"
	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

var usage = `usage: gangconf <command> [flags]

commands:
  cluster-up      make a cluster (CLUSTER, PROVIDER) with the scheduler under test (SCHEDULER) running;
                  writes $RESULTS/kubeconfig and leaves both running
  cluster-down    stop the scheduler and remove the cluster made by cluster-up
  check-controls  compare a negative control's report with the specs it must fail
  coverage        write suites/conformance/COVERAGE.md (semantics item -> specs -> what fails them)
                  from a dry run's Ginkgo report and the controls record; -check only compares

SCHEDULER, the scheduler under test (from the environment, as make passes it):
` + kinds.Help("  ")

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := settings.SignalContext()
	defer stop()
	var err error
	switch os.Args[1] {
	case "cluster-up":
		err = clusterUp(ctx)
	case "cluster-down":
		err = clusterDown()
	case "check-controls":
		err = checkControls(os.Args[2:])
	case "coverage":
		err = coverage(os.Args[2:])
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "gangconf: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gangconf %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func clusterUp(ctx context.Context) error {
	s := settings.FromEnv()
	if s.Provider != "kwok" && s.Provider != "kind" {
		return fmt.Errorf("cluster-up makes kwok and kind clusters only; PROVIDER=%s needs none", s.Provider)
	}
	env, err := harness.Up(ctx, s, true, logf)
	if err != nil {
		return err
	}
	kc := filepath.Join(s.Results, "kubeconfig")
	data, err := os.ReadFile(env.Kubeconfig)
	if err == nil {
		err = os.WriteFile(kc, data, 0o600)
	}
	if err != nil {
		_ = env.Down()
		return err
	}
	what := "profile " + s.Cluster
	if s.Provider == "kind" {
		what = "kind, image " + s.KindNodeImage
	}
	logf("cluster %q (%s) is up with scheduler %s.", s.ClusterName, what, s.Scheduler)
	logf("  kubectl:       %s/kubectl --kubeconfig %s get nodes", s.BinDir, kc)
	if env.SchedulerProcess != nil {
		logf("  scheduler log: %s", env.SchedulerProcess.LogPath)
	}
	logf("  remove it:     make cluster-down PROVIDER=%s", s.Provider)
	return nil
}

func clusterDown() error {
	s := settings.FromEnv()
	env, err := harness.Attach(s)
	if err != nil {
		logf("nothing to remove: %v", err)
		return nil
	}
	if err := env.Down(); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(s.Results, "kubeconfig"))
	logf("cluster %q removed; its processes are stopped", s.ClusterName)
	return nil
}

func checkControls(args []string) error {
	fs := flag.NewFlagSet("check-controls", flag.ContinueOnError)
	controlNames := strings.Join(kinds.Names(kinds.Control), ", ")
	control := fs.String("control", "", "name of the negative control that ran: "+controlNames)
	report := fs.String("report", "", "ginkgo JSON report of the control's run")
	record := fs.String("record", "", "record of which control fails which spec")
	labels := fs.String("label-filter", "", "the specs the run covered (Ginkgo label filter); only they are judged, and none of their kills may be skipped")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *control == "" || *report == "" || *record == "" {
		return fmt.Errorf("needs -control, -report and -record")
	}
	// A crafted broken stack (ADMISSION=kueue-partial) is a control of the
	// stack profile's specs.
	broken := false
	if a, err := admission.Lookup(*control); err == nil && a.Broken {
		broken = true
	}
	if k, err := kinds.Lookup(*control); !broken && (err != nil || k.Class != kinds.Control) {
		return fmt.Errorf("-control %q is not a negative control (known: %s)", *control, controlNames)
	}
	return controls.CheckFiles(*control, *report, *record, *labels, os.Stdout)
}

func coverage(args []string) error {
	fs := flag.NewFlagSet("coverage", flag.ContinueOnError)
	report := fs.String("report", "", "ginkgo JSON report of a dry run of the suites")
	record := fs.String("record", "", "record of which control fails which spec")
	out := fs.String("out", "suites/conformance/COVERAGE.md", "the generated coverage file")
	check := fs.Bool("check", false, "fail if the coverage file is not what the suites say, instead of writing it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *report == "" || *record == "" {
		return fmt.Errorf("needs -report and -record")
	}
	rec, err := controls.Load(*record)
	if err != nil {
		return err
	}
	specs, err := controls.ReadReport(*report)
	if err != nil {
		return err
	}
	table, err := rec.CoverageTable(specs)
	if err != nil {
		return err
	}
	want := controls.CoverageFile(table)
	if *check {
		old, err := os.ReadFile(*out)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist: run `make coverage` and commit it", *out)
		}
		if err != nil {
			return err
		}
		if string(old) != string(want) {
			return fmt.Errorf("%s is out of date with the suites' labels or the controls record: run `make coverage` and commit it", *out)
		}
		logf("coverage table in %s is up to date (%d specs)", *out, len(specs))
		return nil
	}
	logf("coverage table written to %s (%d specs)", *out, len(specs))
	return os.WriteFile(*out, want, 0o644)
}
