// Command gangsoak is `make soak`: it runs the core and extended suites
// against the reference scheduler RUNS times in a row, each run a make
// conformance SCHEDULER=reference on a fresh cluster into
// RESULTS/soak/<n>, and keeps the flake table in RESULTS/soak/soak.json,
// adding to the runs of earlier sittings. A Ctrl-C or SIGTERM stops it once
// the current run's teardown is done; that run is left out of the table.
// It exits 1 when a run of the sitting failed a spec or the harness.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/settings"
	"github.com/gangconf/gangconf/suites/framework/soak"
)

func main() {
	runs := flag.Int("runs", 10, "consecutive runs to make")
	flag.Parse()
	if flag.NArg() > 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: gangsoak -runs N (a positive number; RESULTS from the environment, as make passes it)")
		os.Exit(2)
	}
	ctx, stop := settings.SignalContext()
	err := run(ctx, *runs)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gangsoak: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, runs int) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(settings.FromEnv().Results)
	if err != nil {
		return err
	}
	s := &soak.Sitting{Command: []string{"make", "--no-print-directory", "conformance", "SCHEDULER=reference"},
		Root: root, Results: dir, Commit: func() string { return results.Local().GangconfCommit },
		Logf: func(f string, a ...any) { fmt.Printf("gangsoak: "+f+"\n", a...) }}
	table, failed, err := s.Run(ctx, runs)
	if table != nil {
		show(table, s.TablePath())
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of this sitting's %d runs failed a spec or the harness", failed, runs)
	}
	return nil
}

// show prints the table's summary, its flakes and its harness failures.
func show(table *results.Soak, path string) {
	fmt.Printf("gangsoak: %s; the table is %s (make report shows it)\n", table.Summary(), path)
	for _, f := range table.Flakes() {
		first, _, _ := strings.Cut(f.First.Message, "\n")
		fmt.Printf("  failed %d of %d runs: %s; first in run %d: %s (%s)\n", f.Failures, f.Runs, f.Spec, f.First.Run, first, f.First.Log)
	}
	for _, r := range table.HarnessFailures() {
		fmt.Printf("  harness failure in run %d: %s (%s)\n", r.N, r.Harness, r.Log)
	}
}
