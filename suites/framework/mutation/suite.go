// Package mutation runs the conformance suites against mutated reference
// schedulers and judges each mutant: killed (by which specs), survived, or
// undecided when its only failures also failed on the unmutated reference.
package mutation

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/gangconf/gangconf/fixtures"
	refconfig "github.com/gangconf/gangconf/reference-scheduler/config"
	"github.com/gangconf/gangconf/suites/framework/controls"
	"github.com/gangconf/gangconf/suites/framework/proc"
)

// Suite is one run of the conformance suite: the specs of a label filter on
// a cluster profile.
type Suite struct {
	Name        string
	Cluster     string
	LabelFilter string
}

// The suites a mutant meets: every mutant the core and extended profiles,
// a mutant of an alpha feature also the alpha profile on its cluster.
var (
	CoreExtended = Suite{Name: "core+extended", Cluster: "ci-small", LabelFilter: "!profile:alpha"}
	Alpha        = Suite{Name: "alpha", Cluster: "ci-alpha", LabelFilter: "profile:alpha"}
)

// Scheduler is a kube-scheduler-compatible binary and its configuration, run
// as the harness's SCHEDULER=binary.
type Scheduler struct {
	Binary, Config string
}

// Narrow is the suite's specs that also match filter (a Ginkgo label
// filter), under a name that says so.
func (s Suite) Narrow(name, filter string) Suite {
	s.Name += "/" + name
	s.LabelFilter = "(" + s.LabelFilter + ") && (" + filter + ")"
	return s
}

// Runner runs suites with the pinned Ginkgo, each on a cluster of its own
// that the suite brings up and removes.
type Runner struct {
	// Ginkgo is the pinned ginkgo binary; Suite the conformance suite's
	// test binary, compiled once so that the reference and every mutant
	// meet the same specs.
	Ginkgo, Suite string
	// BinDir and WorkDir are the harness's (pinned binaries, kwokctl's work
	// directory).
	BinDir, WorkDir string
	Procs           int
	// Log receives each run's output.
	Log io.Writer
}

// Run runs s against sched into dir and returns what each spec did. With
// failFast the run stops at its first failing spec. A run whose specs fail
// exits non-zero; that is the answer, not an error: only a run that left no
// report is.
func (r *Runner) Run(ctx context.Context, sched Scheduler, s Suite, dir string, failFast bool) ([]Result, error) {
	prof, err := fixtures.LoadProfile(s.Cluster)
	if err != nil {
		return nil, err
	}
	// A mutant runs with the gates the reference profile runs with on
	// this cluster.
	ref, err := refconfig.Lookup("reference")
	if err != nil {
		return nil, err
	}
	gates := ref.Gates(prof.Gates())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"run", "-p", "--procs=" + strconv.Itoa(r.Procs), "--timeout=30m", "--no-color",
		"--label-filter=" + s.LabelFilter}
	if failFast {
		args = append(args, "--fail-fast")
	}
	cmd := exec.CommandContext(ctx, r.Ginkgo, append(args, r.Suite)...)
	cmd.Env = append(os.Environ(),
		"PROVIDER=kwok", "CLUSTER="+s.Cluster, "CLUSTER_NAME=mutants", "SCHEDULER=binary", "SCHEDULER_NAME=",
		"SCHEDULER_BIN="+sched.Binary, "SCHEDULER_CONFIG="+sched.Config,
		"SCHEDULER_ARGS=--feature-gates="+gates+" --v=2",
		"RESULTS="+dir, "BIN_DIR="+r.BinDir, "WORK_DIR="+r.WorkDir)
	log, err := os.Create(filepath.Join(dir, "e2e.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = io.MultiWriter(log, r.Log), io.MultiWriter(log, r.Log)
	// Stopped, Ginkgo and its parallel processes get the Ctrl-C a user
	// would send, once, so the suite's teardown removes the cluster; it has
	// a minute for that. Ginkgo's CLI passes no signal on to its processes,
	// and in a group of their own a Ctrl-C at the terminal reaches this
	// command only, not the kwokctl that a teardown runs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return proc.SignalWithChildren(cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = time.Minute
	report := filepath.Join(dir, "ginkgo-report.json")
	_ = os.Remove(report)
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("stopped: %w", ctx.Err())
	}
	results, err := ReadReport(report)
	if err != nil {
		return nil, fmt.Errorf("the %s suite left no report (%v): %w", s.Name, runErr, err)
	}
	return results, nil
}

// CompileSuite builds the conformance suite's test binary into out, with
// the go command's settings from the environment (make's GOFLAGS).
func CompileSuite(ctx context.Context, root, out string) error {
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", out, "./suites/conformance")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("compile the conformance suite: %w: %s", err, b)
	}
	return nil
}

// Result is what one spec, or one of the suite's own setup nodes, did.
type Result struct {
	Spec  string
	State types.SpecState
	// Message is the first line of the failure, if any; Failure the whole
	// failure message.
	Message, Failure string
	// Setup is set on the suite's setup, which ReadReport returns only when
	// it failed.
	Setup bool
}

// Killed says whether the result is a failure the scheduler caused: a spec
// that failed, panicked, timed out or aborted. A spec interrupted because
// another one failed first (fail-fast) is not.
func (r Result) Killed() bool {
	return r.State.Is(types.SpecStateFailureStates &^ types.SpecStateInterrupted)
}

// ran counts the results of specs that ran, not skipped.
func ran(results []Result) int {
	n := 0
	for _, r := range results {
		if r.State != types.SpecStateSkipped {
			n++
		}
	}
	return n
}

// ReadReport reads a Ginkgo JSON report: every spec, and the suite's setup
// when it failed (a scheduler that never turned ready fails the suite there).
func ReadReport(path string) ([]Result, error) {
	reports, err := controls.ReadGinkgoReport(path)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, rep := range reports {
		for _, s := range rep.SpecReports {
			setup := s.LeafNodeType.Is(types.NodeTypeBeforeSuite | types.NodeTypeSynchronizedBeforeSuite)
			if s.LeafNodeType != types.NodeTypeIt && !(setup && s.State.Is(types.SpecStateFailureStates)) {
				continue
			}
			name := s.FullText()
			if setup {
				name = "[" + s.LeafNodeType.String() + "]"
			}
			failure := strings.TrimSpace(s.Failure.Message)
			msg, _, _ := strings.Cut(failure, "\n")
			out = append(out, Result{Spec: name, State: s.State, Message: msg, Failure: failure, Setup: setup})
		}
	}
	return out, nil
}
