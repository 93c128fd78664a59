package mutation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gangconf/gangconf/reference-scheduler/mutants"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// Campaign runs a selection of mutants against the suites.
type Campaign struct {
	Runner *Runner
	// Reference is the unmutated reference scheduler: its binary runs every
	// profile mutant; its configuration every source mutant.
	Reference Scheduler
	// Workspace builds source mutants (nil when none are selected).
	Workspace *mutants.Workspace
	// Dir receives the results; BuildDir the mutants' binaries and files.
	Dir, BuildDir string
	// Full runs every suite to its end for every mutant.
	Full bool
	// Catalogue is the size of the catalogue the selection came from.
	Catalogue int
	// ReferenceReport, when set, is a Ginkgo report of the reference on the
	// core and extended suite from the same sitting, used instead of a run.
	ReferenceReport string
	Logf            func(string, ...any)
}

// Run judges each mutant in turn, writing the results after each one so
// that a stopped campaign keeps what it found.
func (c *Campaign) Run(ctx context.Context, selected []mutants.Mutant) (*results.Mutants, error) {
	res := &results.Mutants{Started: time.Now(), Full: c.Full, Catalogue: c.Catalogue}
	reference, err := c.referenceFailures(ctx, selected)
	if err != nil {
		return nil, err
	}
	for s := range reference {
		for spec := range reference[s] {
			res.ReferenceFailed = append(res.ReferenceFailed, spec)
		}
	}
	sort.Strings(res.ReferenceFailed)
	for i, m := range selected {
		v, err := c.judge(ctx, m, reference)
		if err != nil {
			return res, errors.Join(err, c.write(res))
		}
		res.Mutants = append(res.Mutants, v)
		c.Logf("mutant %d/%d %s: %s %s", i+1, len(selected), m.Name, v.Outcome, summary(v))
		if err := c.write(res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func summary(v results.MutantVerdict) string {
	if len(v.KilledBy) > 0 {
		return "by " + strings.Join(v.KilledBy, "; ")
	}
	return v.Reason
}

func (c *Campaign) write(res *results.Mutants) error {
	res.Seconds = time.Since(res.Started).Seconds()
	res.Score = results.NewScore(res.Mutants)
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.Dir, results.MutantsFile), data, 0o644)
}

// referenceFailures runs the reference on every suite the selection needs,
// and returns, per suite, the specs it failed.
func (c *Campaign) referenceFailures(ctx context.Context, selected []mutants.Mutant) (map[string]map[string]bool, error) {
	suites := []Suite{CoreExtended}
	for _, m := range selected {
		if m.Alpha() && m.Equivalent == "" {
			suites = append(suites, Alpha)
			break
		}
	}
	out := map[string]map[string]bool{}
	for _, s := range suites {
		var rs []Result
		var err error
		if s == CoreExtended && c.ReferenceReport != "" {
			rs, err = ReadReport(c.ReferenceReport)
		} else {
			c.Logf("reference: %s suite", s.Name)
			rs, err = c.Runner.Run(ctx, c.Reference, s, filepath.Join(c.Dir, "reference", s.Name), false)
		}
		if err != nil {
			return nil, fmt.Errorf("the reference's %s run: %w", s.Name, err)
		}
		out[s.Name] = Failures(rs)
		c.Logf("reference: %s suite, %d specs ran, %d failed", s.Name, ran(rs), len(out[s.Name]))
	}
	return out, nil
}

// judge builds or configures one mutant and runs its suites: the alpha one
// first for a mutant of an alpha feature, then the core and extended one,
// stopping at the first kill unless the campaign is full.
func (c *Campaign) judge(ctx context.Context, m mutants.Mutant, reference map[string]map[string]bool) (results.MutantVerdict, error) {
	v := results.MutantVerdict{Name: m.Name, Area: m.Area, Kind: m.Kind, Bug: m.Bug}
	if m.Equivalent != "" {
		v.Outcome, v.Reason = results.Equivalent, m.Equivalent
		return v, nil
	}
	start := time.Now()
	sched, outcome, err := c.scheduler(ctx, m)
	v.BuildSeconds = time.Since(start).Seconds()
	if outcome == "" && err != nil {
		return v, err
	}
	if outcome != "" {
		v.Outcome, v.Reason = outcome, err.Error()
		return v, nil
	}
	start = time.Now()
	onBoth, err := c.runSuites(ctx, m, sched, reference, &v)
	v.RunSeconds = time.Since(start).Seconds()
	switch {
	case ctx.Err() != nil:
		return v, ctx.Err()
	case err != nil:
		v.Outcome, v.Reason = results.Undecided, err.Error()
	case len(v.KilledBy) > 0:
		v.Outcome = results.Killed
	case len(onBoth) > 0:
		v.Outcome, v.Reason = results.Undecided, "failed only specs that also failed on the reference: "+strings.Join(onBoth, "; ")
	default:
		v.Outcome = results.Survived
	}
	return v, nil
}

// runSuites runs the mutant's suites, adding the specs that kill it to v,
// and returns the specs that failed on it and on the reference alike.
func (c *Campaign) runSuites(ctx context.Context, m mutants.Mutant, sched Scheduler, reference map[string]map[string]bool, v *results.MutantVerdict) ([]string, error) {
	var onBoth []string
	for _, s := range c.suites(m) {
		v.Suites = append(v.Suites, s.Name)
		rs, err := c.Runner.Run(ctx, sched, s, filepath.Join(c.Dir, m.Name, s.Name), !c.Full)
		if err != nil {
			return onBoth, err
		}
		killers, both := Judge(reference[base(s.Name)], rs)
		v.KilledBy = append(v.KilledBy, killers...)
		onBoth = append(onBoth, both...)
		if len(v.KilledBy) > 0 && !c.Full {
			break
		}
	}
	return onBoth, nil
}

// suites are the runs a mutant meets, in order: for a mutant of an alpha
// feature the alpha suite first. Unless the campaign is full, the specs of
// the mutant's own area run before the rest of their suite, so that a mutant
// is usually killed in a short run; one that survives meets every spec all
// the same.
func (c *Campaign) suites(m mutants.Mutant) []Suite {
	if m.Alpha() {
		return []Suite{Alpha, CoreExtended}
	}
	if c.Full {
		return []Suite{CoreExtended}
	}
	area := "area:" + m.Area
	return []Suite{CoreExtended.Narrow("area", area), CoreExtended.Narrow("rest", "!"+area)}
}

// base is the suite a narrowed one came from.
func base(name string) string {
	b, _, _ := strings.Cut(name, "/")
	return b
}

// scheduler makes the mutant's scheduler: a source mutant built from the
// pinned source with its edits, a profile mutant the reference binary with
// its configuration. A rule that does not apply, or a build that fails, is
// an outcome, not an error.
func (c *Campaign) scheduler(ctx context.Context, m mutants.Mutant) (Scheduler, string, error) {
	dir := filepath.Join(c.BuildDir, m.Name)
	if err := os.RemoveAll(dir); err != nil {
		return Scheduler{}, "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Scheduler{}, "", err
	}
	if m.Kind == mutants.KindProfile {
		ref, err := os.ReadFile(c.Reference.Config)
		if err != nil {
			return Scheduler{}, "", err
		}
		cfg, err := m.Config(ref)
		if err != nil {
			return Scheduler{}, "", err
		}
		path := filepath.Join(dir, "config.yaml")
		return Scheduler{Binary: c.Reference.Binary, Config: path}, "", os.WriteFile(path, cfg, 0o644)
	}
	overlay, err := m.Overlay(c.Workspace.Src, dir)
	var stale *mutants.StaleError
	if errors.As(err, &stale) {
		return Scheduler{}, results.Stale, err
	}
	if err != nil {
		return Scheduler{}, "", err
	}
	bin := filepath.Join(dir, "reference-scheduler")
	if err := c.Workspace.Build(ctx, overlay, bin); err != nil {
		if ctx.Err() != nil {
			return Scheduler{}, "", ctx.Err()
		}
		return Scheduler{}, results.Unbuildable, err
	}
	return Scheduler{Binary: bin, Config: c.Reference.Config}, "", nil
}
