package soak

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gangconf/gangconf/suites/framework/proc"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// Sitting runs soak runs one after another and adds each, as it ends, to
// the table in its results directory.
type Sitting struct {
	// Command runs one run: make conformance SCHEDULER=reference, to which
	// RESULTS=<the run's directory> is added.
	Command []string
	// Root is where Command runs; Results the results directory that holds
	// the table and the runs.
	Root, Results string
	// Commit says which gangconf commit a run starts at.
	Commit func() string
	Logf   func(string, ...any)
}

// TablePath is where the sitting reads and writes the table.
func (s *Sitting) TablePath() string {
	return filepath.Join(s.Results, results.SoakDir, results.SoakFile)
}

// Run makes runs runs, numbered on from the table's last, and returns the
// table and how many of this sitting's runs failed a spec or the harness.
// The table is written after each run, so that a stopped sitting keeps the
// runs it finished; a run a signal stopped is left out of it.
func (s *Sitting) Run(ctx context.Context, runs int) (*results.Soak, int, error) {
	table, err := results.ReadSoak(s.TablePath())
	if os.IsNotExist(err) {
		table, err = &results.Soak{}, nil
	}
	if err != nil {
		return nil, 0, err
	}
	failed := 0
	for i := range runs {
		run, outcomes, err := s.run(ctx, table.NextRun())
		if err != nil {
			return table, failed, err
		}
		table.Add(run, outcomes)
		if err := results.WriteJSON(s.TablePath(), table); err != nil {
			return table, failed, err
		}
		run = table.Runs[len(table.Runs)-1]
		if run.Harness != "" || len(run.Failed) > 0 {
			failed++
		}
		s.Logf("run %d (%d of %d) took %s: %s", run.N, i+1, runs, seconds(run.Seconds), verdict(run))
	}
	return table, failed, nil
}

// verdict is a run's outcome in a few words.
func verdict(r results.SoakRun) string {
	switch {
	case r.Harness != "":
		return "harness failure: " + r.Harness
	case len(r.Failed) > 0:
		return fmt.Sprintf("%d of %d specs failed: %s", len(r.Failed), r.Ran, strings.Join(r.Failed, "; "))
	}
	return fmt.Sprintf("all %d specs passed", r.Ran)
}

func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Second)
}

// run makes run n in a directory of its own and reads what it did.
func (s *Sitting) run(ctx context.Context, n int) (results.SoakRun, []results.SoakOutcome, error) {
	dir := filepath.Join(s.Results, results.SoakDir, strconv.Itoa(n))
	// A run a signal stopped left its directory under this number, and no row.
	if err := os.RemoveAll(dir); err != nil {
		return results.SoakRun{}, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return results.SoakRun{}, nil, err
	}
	start := time.Now()
	run := NewRun(n, s.Commit())
	run.Started = start.UTC().Truncate(time.Second)
	s.Logf("run %d at %s: %s, its output in %s", n, results.ShortCommit(run.Commit), strings.Join(s.Command, " "), filepath.Join(dir, MakeLog))
	exit, err := s.make(ctx, dir)
	if ctx.Err() != nil {
		return run, nil, fmt.Errorf("stopped (%v): run %d ended with its teardown and is left out of the table", context.Cause(ctx), n)
	}
	if err != nil {
		return run, nil, err
	}
	run.Seconds = time.Since(start).Seconds()
	return run, Judge(s.Results, &run, exit), nil
}

// NewRun is run n at commit, in soak/<n> of the results directory.
func NewRun(n int, commit string) results.SoakRun {
	dir := path.Join(results.SoakDir, strconv.Itoa(n))
	return results.SoakRun{N: n, Commit: commit, Dir: dir, Log: dir + "/e2e.log"}
}

// Judge reads what each spec of run did (Outcomes), in its directory under
// resultsDir, and records on run why the harness failed it, if it did.
func Judge(resultsDir string, run *results.SoakRun, exit error) []results.SoakOutcome {
	outcomes, harness := Outcomes(filepath.Join(resultsDir, run.Dir), exit)
	if run.Harness = harness; harness != "" {
		// The suite may not have started: make's output holds what did.
		run.Log = path.Join(run.Dir, MakeLog)
	}
	return outcomes
}

// make runs the command into dir, its output in dir/MakeLog, and returns
// how it exited; err is for a command that could not start.
func (s *Sitting) make(ctx context.Context, dir string) (exit, err error) {
	log, err := os.Create(filepath.Join(dir, MakeLog))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, s.Command[0], append(s.Command[1:], "RESULTS="+dir)...)
	cmd.Dir = s.Root
	// A file, not a pipe: Wait then waits for make, not for every process
	// that may hold a copy of its output.
	cmd.Stdout, cmd.Stderr = log, log
	proc.Interruptible(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Wait(), nil
}
