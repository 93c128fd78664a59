// Command gangmutants is `make mutants`: it runs the conformance suites
// against every mutant of the reference scheduler in the catalogue, after the
// reference itself in the same sitting, and writes each mutant's verdict and
// the mutation score. Settings come from the environment, as make passes them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	refconfig "github.com/gangconf/gangconf/reference-scheduler/config"
	"github.com/gangconf/gangconf/reference-scheduler/mutants"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/mutation"
	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

const usage = `usage: gangmutants -catalogue FILE -build-dir DIR

Runs the core and extended suites (and the alpha suite for mutants of alpha
features) against each mutant of the catalogue; a mutant is killed at its
first failing spec unless MUTANTS_FULL=1. Environment: MUTANTS (comma list of
names; default all), MUTANTS_FULL, MUTANTS_REFERENCE (a Ginkgo report of the
reference on the core and extended suite, instead of running it),
MUTANTS_MIN_SCORE (fail below this percentage), RESULTS, BIN_DIR, WORK_DIR,
PROCS.
`

func main() {
	fs := flag.NewFlagSet("gangmutants", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	catalogue := fs.String("catalogue", "reference-scheduler/mutants.yaml", "the mutants")
	buildDir := fs.String("build-dir", "_output/mutants", "where mutants are built")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	ctx, stop := settings.SignalContext()
	defer stop()
	if err := run(ctx, *catalogue, *buildDir); err != nil {
		fmt.Fprintf(os.Stderr, "gangmutants: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, catalogue, buildDir string) error {
	cat, err := mutants.Load(catalogue)
	if err != nil {
		return err
	}
	selected, err := cat.Select(os.Getenv("MUTANTS"))
	if err != nil {
		return err
	}
	c, err := campaign(ctx, selected, buildDir)
	if err != nil {
		return err
	}
	c.Catalogue = len(cat.Mutants)
	res, err := c.Run(ctx, selected)
	if res != nil {
		fmt.Printf("%s; results in %s\n", res.Score, filepath.Join(c.Dir, results.MutantsFile))
	}
	if err != nil {
		return err
	}
	return checkScore(res.Score, os.Getenv("MUTANTS_MIN_SCORE"))
}

// checkScore fails a campaign whose score is below MUTANTS_MIN_SCORE (a
// percentage; unset: any score passes).
func checkScore(s results.Score, min string) error {
	if min == "" {
		return nil
	}
	want, err := strconv.ParseFloat(min, 64)
	if err != nil || want < 0 || want > 100 {
		return fmt.Errorf("MUTANTS_MIN_SCORE=%q is not a percentage", min)
	}
	if s.Counts[results.Killed]+s.Counts[results.Survived] == 0 || s.Percent < want {
		return fmt.Errorf("mutation score %.1f%% is below MUTANTS_MIN_SCORE=%s", s.Percent, min)
	}
	return nil
}

// campaign checks the settings and prepares what the selection needs before
// any cluster starts.
func campaign(ctx context.Context, selected []mutants.Mutant, buildDir string) (*mutation.Campaign, error) {
	s := settings.FromEnv()
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if buildDir, err = filepath.Abs(buildDir); err != nil {
		return nil, err
	}
	procs, err := strconv.Atoi(envOr("PROCS", "4"))
	if err != nil || procs < 1 {
		return nil, fmt.Errorf("PROCS=%q is not a positive number", os.Getenv("PROCS"))
	}
	full, err := strconv.ParseBool(envOr("MUTANTS_FULL", "0"))
	if err != nil {
		return nil, fmt.Errorf("MUTANTS_FULL=%q is not 0 or 1", os.Getenv("MUTANTS_FULL"))
	}
	refReport := os.Getenv("MUTANTS_REFERENCE")
	if refReport != "" {
		if _, err := mutation.ReadReport(refReport); err != nil {
			return nil, fmt.Errorf("MUTANTS_REFERENCE: %w", err)
		}
	}
	if err := cluster.CheckBinaries(s.BinDir, "reference-scheduler", "ginkgo"); err != nil {
		return nil, err
	}
	bin, ginkgo := filepath.Join(s.BinDir, "reference-scheduler"), filepath.Join(s.BinDir, "ginkgo")
	if err := os.MkdirAll(buildDir, 0o755); err != nil {
		return nil, err
	}
	suite := filepath.Join(buildDir, "conformance.test")
	if err := mutation.CompileSuite(ctx, root, suite); err != nil {
		return nil, err
	}
	c := &mutation.Campaign{
		Runner: &mutation.Runner{Ginkgo: ginkgo, Suite: suite,
			BinDir: s.BinDir, WorkDir: s.WorkDir, Procs: procs, Log: os.Stdout},
		Dir: filepath.Join(s.Results, "mutants"), BuildDir: buildDir, Full: full, ReferenceReport: refReport,
		Logf: func(f string, a ...any) { fmt.Printf("gangmutants: "+f+"\n", a...) },
	}
	if c.Reference, err = referenceScheduler(bin, buildDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	for _, m := range selected {
		if m.Kind == mutants.KindSource && m.Equivalent == "" {
			c.Logf("preparing the pinned source for source mutants in %s", buildDir)
			c.Workspace, err = mutants.Prepare(ctx, root, buildDir)
			return c, err
		}
	}
	return c, nil
}

// referenceScheduler writes the reference profile's configuration where
// the mutants' runs read it.
func referenceScheduler(bin, buildDir string) (mutation.Scheduler, error) {
	prof, err := refconfig.Lookup("reference")
	if err != nil {
		return mutation.Scheduler{}, err
	}
	cfg := filepath.Join(buildDir, "reference.yaml")
	return mutation.Scheduler{Binary: bin, Config: cfg}, os.WriteFile(cfg, prof.Config, 0o644)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
