// Package reports turns a results directory into a one-page report a SIG
// reviewer can judge: report.html (self-contained, plots inline) and
// report.md (for pull requests and release notes). A missing or malformed
// file makes the report say so; it never stops the report.
package reports

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/gangconf/gangconf/suites/framework/admission"
	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// Profiles in the order the report shows them.
var Profiles = []string{"core", "extended", "alpha"}

// Model is everything the report shows.
type Model struct {
	Generated   time.Time
	Environment *results.Environment
	Verdicts    []Verdict
	Areas       []Area
	// Controls are the negative controls that ran, in the order of the
	// registry of scheduler kinds, the
	// alpha profile's runs of a control merged into its column.
	Controls []Control
	// Power is what make mutants found; nil when it did not run.
	Power *Power
	// Soak is make soak's flake table; nil when it did not run.
	Soak *Soak
	// Kills is which control and which mutant area failed each spec.
	Kills *KillMatrix
	Bench []Scenario
	// Upstream puts gangconf's figures over upstream scheduler_perf's for
	// the workloads both ran; nil without a bench-upstream run.
	Upstream *UpstreamComparison
	Limits   []string
	// Problems are files the report needed and could not read.
	Problems []string
	// HasSuite is false when the results hold no conformance run.
	HasSuite bool
	// specs is every spec any run read: its area, and whether it ran.
	specs map[string]specSeen
}

// specSeen is what the runs say of one spec, for the kill matrix.
type specSeen struct {
	area string
	ran  bool
}

// see records a spec read from any run.
func (m *Model) see(s suiteSpec) {
	if m.specs == nil {
		m.specs = map[string]specSeen{}
	}
	seen := m.specs[s.Name]
	if s.area != "" {
		seen.area = s.area
	}
	seen.ran = seen.ran || s.State != types.SpecStateSkipped.String()
	m.specs[s.Name] = seen
}

// Verdict is one profile's outcome.
type Verdict struct {
	Profile       string
	Passed, Total int
	Conformant    bool
}

// Outcome is the verdict in words, as the reports write it.
func (v Verdict) Outcome() string {
	switch {
	case v.Conformant:
		return "conformant"
	case v.Total == 0:
		return "not run"
	}
	return "not conformant"
}

// Area groups the specs of one area label.
type Area struct {
	Name  string
	Specs []Spec
}

// Spec is one spec's outcome.
type Spec struct {
	Name     string
	Profile  string
	Item     string
	State    string
	Duration time.Duration
	// Failure is the first lines of the failure message.
	Failure string
	Passed  bool
	// Log is the run's e2e.log, relative to the results directory.
	Log string
}

// Control is a negative control's evidence: the specs it failed.
type Control struct {
	Name   string
	Killed []string
	Ran    int
	// Breaks says what the control breaks, for the controls gangconf has.
	Breaks string
	// Runs names the runs of the control read: RunMain, RunAlpha.
	Runs []string
	// ran holds the specs it ran, for the kill matrix.
	ran map[string]bool
}

// Scenario is one benchmark scenario's table and plots.
type Scenario struct {
	Name string
	Rows []BenchRow
	Cost []ProcessCost
	// Calibration medians in ms and the samples behind them (see
	// results.Pacing); zero in results from before they were recorded.
	CalibrationSort, CalibrationMemory float64
	CalibrationSamples                 int
	// Thresholds is the scenario's thresholds held against the run.
	Thresholds []results.ThresholdCheck
	// Agreement with the baseline run; nil without one.
	Agreement *Agreement
	Plots     []Plot
	// Environment of this scenario's run; nil in results from before
	// every result recorded its own.
	Environment *results.Environment
	// Metrics are the DataItems metrics the run recorded, sorted: a
	// scheduler without the podgroup histograms leaves theirs out.
	Metrics []string
}

// ProcessCost is what one process spent on the scenario.
type ProcessCost struct {
	results.Cost
	// PerPodMs is its CPU time per pod bound, ms; zero in results from
	// before they counted the pods.
	PerPodMs float64
	// MiBPer1000Nodes is its peak resident memory per 1000 nodes of the
	// cluster; zero in results that do not record the nodes.
	MiBPer1000Nodes float64
}

// AgreeWithin is gangconf's reproducibility target: two runs of a scenario
// give every size's latency median within 15% of each other.
const AgreeWithin = 1.15

// Agreement is a scenario against the baseline run: how many sizes' latency
// medians meet AgreeWithin, and how far the machine's speed moved meanwhile,
// told by the processes' own CPU time per pod bound and by the calibration.
// Two runs of one scheduler whose API server spent some percent more CPU
// per pod ran on a machine about that much slower (bench/MEASUREMENTS.md).
type Agreement struct {
	Within, Compared int
	// Farthest is the row whose ratio lies farthest from 1.
	Farthest BenchRow
	// Geomean is the ratios' geometric mean.
	Geomean float64
	// Cost is each process's CPU time per pod bound over the baseline's.
	Cost []CostRatio
	// Calibration medians over the baseline's; zero when a run lacks them.
	SortRatio, MemoryRatio float64
	// MachineRatio is MachineProcess's CPU time per pod bound over the
	// baseline's (zero when a run lacks it), and MachineWithin how many sizes
	// meet AgreeWithin once their ratio is divided by it: what agrees beyond
	// the machine's move.
	MachineRatio  float64
	MachineWithin int
	// ThroughputWithin of ThroughputCompared concurrent workloads have their
	// throughput within AgreeWithin of the baseline's, the figure such a
	// workload measures (its gangs' latencies are mostly their wait in the
	// queue); ThroughputFarthest lies farthest from it.
	ThroughputWithin, ThroughputCompared int
	ThroughputFarthest                   BenchRow
	// BesideWithin of BesideCompared rows have their ratio over the binder
	// beside (BenchRow.BesideRatio) within AgreeWithin of the baseline's;
	// BesideFarthest lies farthest from it.
	BesideWithin, BesideCompared int
	BesideFarthest               BenchRow
}

// MachineProcess is the process whose CPU time per pod bound stands for the
// machine's speed: with one scheduler on both sides it does the same work
// per pod. Between three runs of the sweep its ratios were 1.059, 0.865 and
// 0.916, the scheduler's the same to 0.001 (bench/MEASUREMENTS.md).
const MachineProcess = "kube-apiserver"

// MachineProcess names the process the ratios are divided by, for the
// report's templates.
func (Agreement) MachineProcess() string { return MachineProcess }

// agrees says whether a ratio of two medians meets AgreeWithin.
func agrees(ratio float64) bool { return ratio <= AgreeWithin && ratio >= 1/AgreeWithin }

// TargetPercent is AgreeWithin as the report words it.
func (Agreement) TargetPercent() int { return int(math.Round((AgreeWithin - 1) * 100)) }

// CostRatio is one process's CPU time per pod bound over the baseline's.
type CostRatio struct {
	Process string
	Ratio   float64
}

// BenchRow is one workload at one size.
type BenchRow struct {
	Workload, Size, Mode, Policy string
	// Client-side gang latency, ms.
	P50, P90, P99 float64
	// Throughput, pods/s: average of the samples.
	Throughput float64
	// Server-side attempt duration p50 (ms) and the bucket it lies in; empty
	// when the scheduler exposes none.
	ServerP50 string
	// BaselineRatio is P50 over the baseline run's, BaselineP90Ratio P90
	// over the baseline's; zero without one.
	BaselineRatio, BaselineP90Ratio float64
	// BaselineThroughputRatio is Throughput over the baseline run's, for
	// concurrent workloads; zero otherwise.
	BaselineThroughputRatio float64
	// Beside names the binder whose twin of this workload ran beside it,
	// turn about (results.Beside); empty without one. BesideRatio is this
	// row's figure over the twin's from the same run: the p50 latency in
	// sequential mode, the throughput in concurrent mode, as neither carries
	// the machine's move between runs. BaselineBesideRatio is BesideRatio
	// over the baseline run's; zero without one.
	Beside                           string
	BesideRatio, BaselineBesideRatio float64
	// Preemption holds a preemption workload's parts (results.Preemption);
	// nil for any other workload. Its P50, P90 and P99 are the total.
	Preemption *PreemptionParts
	// name is the DataItems name the row came from.
	name string
}

// PreemptionParts are the parts of a preemption workload's latency, ms,
// each from the preemptor complete.
type PreemptionParts struct {
	FirstEvictionP50, VictimsGoneP50, VictimsGoneP90, BoundP50, BoundP90 float64
}

// UpstreamComparison is gangconf's figure over upstream scheduler_perf's,
// per workload that both ran.
type UpstreamComparison struct {
	Rows []UpstreamRow
	// Gangconf and Upstream say when and where each side ran.
	Gangconf, Upstream *results.Environment
	// SameMachine is true when both ran on one machine (CPU model, cores
	// and memory agree): only then is the ratio worth reading.
	SameMachine bool
	// Sittings is how many sittings the figures are the medians of.
	Sittings int
}

// UpstreamRow is one workload: average throughput (pods/s) and the
// server-side podgroup attempt p50 (ms) of each side, and their ratios
// (gangconf over upstream; zero when a side lacks the figure).
type UpstreamRow struct {
	Workload, Policy, Size         string
	Throughput, UpstreamThroughput float64
	ThroughputRatio                float64
	AttemptP50, UpstreamAttemptP50 float64
	AttemptRatio                   float64
	HasAttempt                     bool
	// Sittings is how many sittings' figures the row's are the medians
	// of; RatioMin and RatioMax the range of their throughput ratios,
	// UpstreamMin and UpstreamMax of upstream's own throughput, the
	// machine's noise.
	Sittings                 int
	RatioMin, RatioMax       float64
	UpstreamMin, UpstreamMax float64
}

// Plot is an SVG, inline for HTML and linked for Markdown.
type Plot struct {
	Name string
	// Rel is the path relative to the results directory.
	Rel string
	SVG string
}

// Load reads a results directory. baseline, if not empty, is another
// results directory to compare the benchmarks with.
func Load(dir, baseline string) *Model {
	m := &Model{Generated: time.Now().UTC().Truncate(time.Second)}
	m.loadEnvironment(dir)
	m.loadSuite(dir)
	m.loadControls(dir)
	m.loadMutants(dir)
	m.loadSoak(dir)
	m.Kills = m.killMatrix()
	m.loadBench(dir, baseline)
	m.loadUpstream(dir)
	if m.HasSuite {
		// What this version of the suite does not check yet, so a verdict is
		// read for what it covers.
		m.Limits = append(m.Limits, "this gangconf has no specs yet for PodDisruptionBudgets in victim choice (item 20) or scheduler and API server faults (item 25): the extended verdict covers preemption only")
	}
	if m.Environment != nil && m.Environment.FeatureGates != "" && !strings.Contains(m.Environment.FeatureGates, "GenericWorkload=true") {
		m.Limits = append(m.Limits, "the cluster ran with feature gates "+m.Environment.FeatureGates+": the PodGroup API was off")
	}
	return m
}

func (m *Model) problem(format string, args ...any) {
	m.Problems = append(m.Problems, fmt.Sprintf(format, args...))
}

func (m *Model) loadEnvironment(dir string) {
	var env results.Environment
	err := readJSON(filepath.Join(dir, "environment.json"), &env)
	if _, serr := os.Stat(filepath.Join(dir, "environment.json")); os.IsNotExist(serr) &&
		readJSON(filepath.Join(dir, "bench", "environment.json"), &env) == nil {
		// make bench alone writes its environment beside its results.
		err = nil
	}
	if err != nil {
		m.problem("environment.json: %v", err)
		return
	}
	m.Environment = &env
}

// AlphaDir is where make conformance-alpha and make control-alpha write the
// alpha profile's runs, on a cluster with the alpha gates on, inside the
// results directory.
const AlphaDir = "alpha"

// Names of the runs a results directory holds.
const (
	RunMain  = "core/extended"
	RunAlpha = "alpha"
	RunStack = "stack"
)

// StackDir is where make conformance-stack and make control-stack write the
// stack profile's runs (an admission controller in front of the scheduler,
// on the alpha cluster), inside the results directory.
const StackDir = "stack"

// StackProfile is the stack specs' profile label; the report gives it a
// verdict of its own only when a stack run is there.
const StackProfile = "stack"

// suiteRun is one Ginkgo run of the conformance suite.
type suiteRun struct {
	*suiteSpecs
	// log is its e2e.log, relative to the results directory.
	log string
}

// loadSuite reads the suite's run and, when make conformance-alpha ran, the
// alpha profile's run beside it: one matrix and one set of verdicts.
func (m *Model) loadSuite(dir string) {
	if _, err := os.Stat(filepath.Join(dir, "junit_01.xml")); err != nil {
		m.problem("junit_01.xml: %v", short(err))
	}
	var main, alpha, stack *suiteRun
	if specs, err := readSpecs(filepath.Join(dir, StackDir, "ginkgo-report.json")); err == nil {
		stack = &suiteRun{specs, StackDir + "/e2e.log"}
	} else if !isMissing(err) {
		m.problem("%s/ginkgo-report.json: %v", StackDir, err)
	}
	if specs, err := readSpecs(filepath.Join(dir, "ginkgo-report.json")); err != nil {
		m.problem("ginkgo-report.json: %v", err)
	} else {
		main = &suiteRun{specs, "e2e.log"}
	}
	// Without an alpha run, the alpha specs are the main run's skips.
	if specs, err := readSpecs(filepath.Join(dir, AlphaDir, "ginkgo-report.json")); err == nil {
		alpha = &suiteRun{specs, AlphaDir + "/e2e.log"}
	} else if !isMissing(err) {
		m.problem("%s/ginkgo-report.json: %v", AlphaDir, err)
	}
	if main == nil && alpha == nil && stack == nil {
		return
	}
	m.HasSuite = true
	runOf := func(profile string) *suiteRun {
		if profile == "alpha" && alpha != nil {
			return alpha
		}
		if profile == StackProfile && stack != nil {
			return stack
		}
		return main
	}
	var specs []suiteSpec
	for _, r := range []*suiteRun{main, alpha, stack} {
		if r == nil {
			continue
		}
		// A run's specs of another run's profile are its label filter's skips.
		for _, s := range r.list {
			if runOf(s.Profile) != r {
				continue
			}
			s.Log = r.log
			m.see(s)
			specs = append(specs, s)
			if s.State == types.SpecStateSkipped.String() {
				m.Limits = append(m.Limits, fmt.Sprintf("skipped: %s (%s)", s.Name, firstLine(s.Failure)))
			}
		}
		if !r.suiteOK {
			what := "the suite itself"
			if r == alpha {
				what = "the alpha profile's run itself"
			}
			if r == stack {
				what = "the stack profile's run itself"
			}
			m.Limits = append(m.Limits, what+" failed outside the specs (setup or teardown): "+firstLine(r.suiteFailure))
		}
	}
	m.Areas = byArea(specs)
	for _, p := range Profiles {
		m.Verdicts = append(m.Verdicts, verdict(p, specs, runOf(p)))
	}
	if stack != nil {
		v := verdict(StackProfile, specs, stack)
		v.Profile = stackName(dir)
		m.Verdicts = append(m.Verdicts, v)
	}
}

// stackName names the stack's verdict row after what ran in it, from the
// stack run's environment.json: the admission controller and its version
// in front of the scheduler.
func stackName(dir string) string {
	var env results.Environment
	if err := readJSON(filepath.Join(dir, StackDir, "environment.json"), &env); err != nil || env.Admission == nil {
		return StackProfile
	}
	a := env.Admission
	name := a.Product
	if name == "" {
		name = a.Name
	}
	sched := env.Scheduler.Name
	if sched == "" {
		sched = "the scheduler"
	}
	out := fmt.Sprintf("%s (%s %s in front of %s)", StackProfile, name, a.Version, sched)
	if a.Broken {
		out += fmt.Sprintf(", a crafted broken stack (%s)", a.Name)
	}
	return out
}

// byArea groups specs by their area label, areas and specs sorted by name.
func byArea(specs []suiteSpec) []Area {
	areas := map[string][]Spec{}
	for _, s := range specs {
		areas[s.area] = append(areas[s.area], s.Spec)
	}
	var out []Area
	for _, a := range slices.Sorted(maps.Keys(areas)) {
		list := areas[a]
		sort.SliceStable(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		out = append(out, Area{Name: a, Specs: list})
	}
	return out
}

// verdict is a profile's outcome over the specs of run, the run that ran
// that profile (nil: none did).
func verdict(profile string, specs []suiteSpec, run *suiteRun) Verdict {
	v := Verdict{Profile: profile}
	for _, s := range specs {
		if s.Profile != profile || s.State == types.SpecStateSkipped.String() {
			continue
		}
		v.Total++
		if s.Passed {
			v.Passed++
		}
	}
	v.Conformant = v.Total > 0 && v.Passed == v.Total && run != nil && run.suiteOK
	return v
}

// TrivialControl serves no PodGroup API at all: a spec that only it fails
// is shown able to fail by a cluster from before KEP-4671, nothing finer.
const TrivialControl = "no-api"

// loadControls reads each control's runs, the suite's in controls/ and the
// alpha profile's in alpha/controls/, one Control per control.
func (m *Model) loadControls(dir string) {
	byName := map[string]*Control{}
	for _, run := range []struct{ sub, name string }{{"", RunMain}, {AlphaDir, RunAlpha}, {StackDir, RunStack}} {
		entries, err := os.ReadDir(filepath.Join(dir, run.sub, "controls"))
		if err != nil {
			continue
		}
		for _, e := range entries {
			rel := path.Join(run.sub, "controls", e.Name(), "ginkgo-report.json")
			specs, err := readSpecs(filepath.Join(dir, rel))
			if err != nil {
				m.problem("%s: %v", rel, err)
				continue
			}
			c := byName[e.Name()]
			if c == nil {
				// What it breaks comes from the registry of scheduler kinds;
				// a directory of no control gangconf has gets no description.
				k, _ := kinds.Lookup(e.Name())
				breaks := k.About
				if a, err := admission.Lookup(e.Name()); err == nil && breaks == "" {
					breaks = a.About
				}
				c = &Control{Name: e.Name(), Breaks: breaks, ran: map[string]bool{}}
				byName[e.Name()] = c
			}
			c.Runs = append(c.Runs, run.name)
			for _, s := range specs.list {
				m.see(s)
				if s.State == types.SpecStateSkipped.String() {
					continue
				}
				c.Ran++
				c.ran[s.Name] = true
				if !s.Passed {
					c.Killed = append(c.Killed, s.Name)
				}
			}
		}
	}
	for _, name := range ordered(slices.Collect(maps.Keys(byName)), kinds.Names(kinds.Control)) {
		c := byName[name]
		sort.Strings(c.Killed)
		m.Controls = append(m.Controls, *c)
	}
}

// ordered sorts names as order lists them, the others after by name.
func ordered(names, order []string) []string {
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := rank(order, a), rank(order, b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return names
}

// rank is name's place in order; names order does not list come after.
func rank(order []string, name string) int {
	if i := slices.Index(order, name); i >= 0 {
		return i
	}
	return len(order)
}

func (m *Model) loadBench(dir, baseline string) {
	files, _ := filepath.Glob(filepath.Join(dir, "bench", "*-result.json"))
	base := map[string]baselineFigures{}
	if baseline != "" {
		bfiles, _ := filepath.Glob(filepath.Join(baseline, "bench", "*.json"))
		for _, f := range bfiles {
			var items results.DataItems
			// A result file holds no DataItems; the agreement reads it below.
			if strings.HasSuffix(f, "-result.json") {
				continue
			}
			if readJSON(f, &items) == nil {
				for _, r := range rows(items, nil) {
					base[r.name] = baselineFigures{p50: r.P50, p90: r.P90, throughput: r.Throughput, beside: r.BesideRatio}
				}
			}
		}
		if len(base) == 0 {
			m.problem("baseline %s: no benchmark DataItems found", baseline)
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), "-result.json")
		var res results.Result
		if err := readJSON(f, &res); err != nil {
			m.problem("bench/%s: %v", filepath.Base(f), err)
			continue
		}
		var items results.DataItems
		if err := readJSON(filepath.Join(dir, "bench", name+".json"), &items); err != nil {
			m.problem("bench/%s.json: %v", name, err)
			continue
		}
		c := res.Pacing.Calibration
		sc := Scenario{Name: name, Rows: rows(items, base), Environment: res.Environment, Thresholds: res.Thresholds, Metrics: metricsOf(items),
			CalibrationSort: msOf(results.Median(c.CPU)), CalibrationMemory: msOf(results.Median(c.Memory)), CalibrationSamples: len(c.CPU)}
		sc.Cost = processCosts(res)
		if len(base) > 0 {
			var bres results.Result
			if err := readJSON(filepath.Join(baseline, "bench", filepath.Base(f)), &bres); err != nil {
				m.problem("baseline bench/%s: %v", filepath.Base(f), err)
			}
			sc.Agreement = agreement(sc.Rows, res, bres)
		}
		plots, _ := filepath.Glob(filepath.Join(dir, "plots", name+"-*.svg"))
		sort.Strings(plots)
		for _, p := range plots {
			data, err := os.ReadFile(p)
			if err != nil {
				m.problem("plots/%s: %v", filepath.Base(p), err)
				continue
			}
			sc.Plots = append(sc.Plots, Plot{Name: strings.TrimSuffix(filepath.Base(p), ".svg"), Rel: "plots/" + filepath.Base(p), SVG: svgBody(string(data))})
		}
		m.Bench = append(m.Bench, sc)
	}
}

// processCosts is each process's cost, per pod bound and, where the result
// records the cluster's nodes, per 1000 of them.
func processCosts(res results.Result) []ProcessCost {
	nodes := 0
	if res.Environment != nil && res.Environment.Nodes != nil {
		nodes = res.Environment.Nodes.Count
	}
	var out []ProcessCost
	for _, pc := range res.Cost {
		out = append(out, ProcessCost{Cost: pc, PerPodMs: msOf(pc.PerPod(res.PodsBound)), MiBPer1000Nodes: pc.MiBPer1000Nodes(nodes)})
	}
	return out
}

// agreement compares the rows' ratios and the two runs' machine figures;
// nil when no row has a baseline. base may be empty (its result file
// missing): then only the latencies are compared.
func agreement(rows []BenchRow, cur, base results.Result) *Agreement {
	a := &Agreement{}
	logSum := 0.0
	for _, r := range rows {
		x := r.BaselineRatio
		if x <= 0 {
			continue
		}
		a.Compared++
		if agrees(x) {
			a.Within++
		}
		if farther(x, a.Farthest.BaselineRatio) {
			a.Farthest = r
		}
		logSum += math.Log(x)
	}
	if a.Compared == 0 {
		return nil
	}
	a.Geomean = math.Exp(logSum / float64(a.Compared))
	for _, c := range cur.Cost {
		for _, b := range base.Cost {
			if now, then := c.PerPod(cur.PodsBound), b.PerPod(base.PodsBound); b.Process == c.Process && now > 0 && then > 0 {
				r := CostRatio{Process: c.Process, Ratio: float64(now) / float64(then)}
				a.Cost = append(a.Cost, r)
				if r.Process == MachineProcess {
					a.MachineRatio = r.Ratio
				}
			}
		}
	}
	for _, r := range rows {
		if a.MachineRatio > 0 && r.BaselineRatio > 0 && agrees(r.BaselineRatio/a.MachineRatio) {
			a.MachineWithin++
		}
		tally(r, r.BaselineBesideRatio, a.BesideFarthest.BaselineBesideRatio, &a.BesideWithin, &a.BesideCompared, &a.BesideFarthest)
		tally(r, r.BaselineThroughputRatio, a.ThroughputFarthest.BaselineThroughputRatio, &a.ThroughputWithin, &a.ThroughputCompared, &a.ThroughputFarthest)
	}
	a.SortRatio = medianRatio(cur.Pacing.Calibration.CPU, base.Pacing.Calibration.CPU)
	a.MemoryRatio = medianRatio(cur.Pacing.Calibration.Memory, base.Pacing.Calibration.Memory)
	return a
}

// tally counts row r's ratio x over the baseline, if it has one: compared,
// within the target, and whether it lies farther from 1 than the farthest
// so far, whose ratio is farthestX.
func tally(r BenchRow, x, farthestX float64, within, compared *int, farthest *BenchRow) {
	if x <= 0 {
		return
	}
	*compared++
	if agrees(x) {
		*within++
	}
	if farther(x, farthestX) {
		*farthest = r
	}
}

// farther says whether ratio x lies farther from 1 than y, or y is none.
func farther(x, y float64) bool { return y == 0 || math.Abs(math.Log(x)) > math.Abs(math.Log(y)) }

// medianRatio is the median of now over the median of then; zero when
// either has no samples.
func medianRatio(now, then []time.Duration) float64 {
	return ratio(float64(results.Median(now)), float64(results.Median(then)))
}

// loadUpstream joins bench-upstream/ (upstream scheduler_perf, converted by
// make bench-upstream) with gangconf's own run of the same scenario; or,
// after make bench-upstream SITTINGS=n, each sitting's, into their medians.
func (m *Model) loadUpstream(dir string) {
	sittings, _ := filepath.Glob(filepath.Join(dir, results.UpstreamSittingsDir, "*"))
	if len(sittings) == 0 {
		m.Upstream = m.upstreamSitting(dir, "")
	} else {
		var cs []*UpstreamComparison
		for _, s := range sittings {
			if c := m.upstreamSitting(s, filepath.Join(results.UpstreamSittingsDir, filepath.Base(s))+"/"); c != nil {
				cs = append(cs, c)
			}
		}
		m.Upstream = medianSitting(cs)
	}
	if m.Upstream != nil && !m.Upstream.SameMachine {
		m.Limits = append(m.Limits, "gangconf's and upstream's upstream-gangs figures are not known to come from one machine: their ratios say little")
	}
}

// upstreamSitting compares the two sides' figures in one results
// directory, whose path relative to the report's is rel; nil without
// upstream's.
func (m *Model) upstreamSitting(dir, rel string) *UpstreamComparison {
	name := results.UpstreamScenario
	var up results.DataItems
	if err := readJSON(filepath.Join(dir, "bench-upstream", name+".json"), &up); err != nil {
		if !strings.Contains(err.Error(), "missing") {
			m.problem("%sbench-upstream/%s.json: %v", rel, name, err)
		}
		return nil
	}
	var ours results.DataItems
	if err := readJSON(filepath.Join(dir, "bench", name+".json"), &ours); err != nil {
		m.problem("%sbench-upstream/ is there but %sbench/%s.json, gangconf's run to compare it with, is %v", rel, rel, name, err)
		return nil
	}
	c := &UpstreamComparison{Sittings: 1}
	var upRes results.UpstreamResult
	var ourRes results.Result
	if err := readJSON(filepath.Join(dir, "bench-upstream", name+"-result.json"), &upRes); err != nil {
		m.problem("%sbench-upstream/%s-result.json: %v", rel, name, err)
	}
	if err := readJSON(filepath.Join(dir, "bench", name+"-result.json"), &ourRes); err != nil {
		m.problem("%sbench/%s-result.json: %v", rel, name, err)
	}
	c.Upstream, c.Gangconf = upRes.Environment, ourRes.Environment
	if c.Gangconf != nil && c.Upstream != nil {
		c.SameMachine = sameMachine(c.Gangconf.Machine, c.Upstream.Machine)
	}
	upFigures, ourFigures := figures(up), figures(ours)
	for _, r := range rows(ours, nil) {
		u, ok := upFigures[r.name]
		if !ok || u.throughput == 0 {
			continue
		}
		o := ourFigures[r.name]
		tr := ratio(o.throughput, u.throughput)
		row := UpstreamRow{Workload: r.Workload, Policy: r.Policy, Size: r.Size, Sittings: 1,
			Throughput: o.throughput, UpstreamThroughput: u.throughput, ThroughputRatio: tr,
			RatioMin: tr, RatioMax: tr, UpstreamMin: u.throughput, UpstreamMax: u.throughput}
		if o.hasAttempt && u.hasAttempt {
			row.HasAttempt = true
			row.AttemptP50, row.UpstreamAttemptP50 = o.attemptP50, u.attemptP50
			row.AttemptRatio = ratio(o.attemptP50, u.attemptP50)
		}
		c.Rows = append(c.Rows, row)
	}
	if len(c.Rows) == 0 {
		m.problem("%sbench-upstream/%s.json and %sbench/%s.json share no workload", rel, name, rel, name)
		return nil
	}
	return c
}

// medianSitting folds sittings into one comparison: per workload the
// median of each figure and of the sittings' own ratios (each sitting ran
// both sides back to back, so its ratio is the one the machine's drift
// spoils least), with the ratios' and upstream's own range. It runs from
// the first sitting's upstream side to the last's gangconf side, on one
// machine if every sitting was.
func medianSitting(cs []*UpstreamComparison) *UpstreamComparison {
	if len(cs) == 0 {
		return nil
	}
	out := &UpstreamComparison{Sittings: len(cs), Upstream: cs[0].Upstream, Gangconf: cs[len(cs)-1].Gangconf, SameMachine: true}
	type key struct{ workload, policy, size string }
	var order []key
	of := map[key][]UpstreamRow{}
	for _, c := range cs {
		out.SameMachine = out.SameMachine && c.SameMachine
		for _, r := range c.Rows {
			k := key{r.Workload, r.Policy, r.Size}
			if _, seen := of[k]; !seen {
				order = append(order, k)
			}
			of[k] = append(of[k], r)
		}
	}
	for _, k := range order {
		rs := of[k]
		pick := func(f func(UpstreamRow) float64) []float64 {
			var xs []float64
			for _, r := range rs {
				xs = append(xs, f(r))
			}
			return xs
		}
		ratios, ups := pick(func(r UpstreamRow) float64 { return r.ThroughputRatio }), pick(func(r UpstreamRow) float64 { return r.UpstreamThroughput })
		row := UpstreamRow{Workload: k.workload, Policy: k.policy, Size: k.size, Sittings: len(rs),
			Throughput:         results.Median(pick(func(r UpstreamRow) float64 { return r.Throughput })),
			UpstreamThroughput: results.Median(ups), ThroughputRatio: results.Median(ratios),
			RatioMin: slices.Min(ratios), RatioMax: slices.Max(ratios), UpstreamMin: slices.Min(ups), UpstreamMax: slices.Max(ups),
			HasAttempt: !slices.ContainsFunc(rs, func(r UpstreamRow) bool { return !r.HasAttempt })}
		if row.HasAttempt {
			row.AttemptP50 = results.Median(pick(func(r UpstreamRow) float64 { return r.AttemptP50 }))
			row.UpstreamAttemptP50 = results.Median(pick(func(r UpstreamRow) float64 { return r.UpstreamAttemptP50 }))
			row.AttemptRatio = results.Median(pick(func(r UpstreamRow) float64 { return r.AttemptRatio }))
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// sameMachine says whether two runs' machines agree on CPU model, cores and
// memory: what ratios between their figures need to be worth reading.
func sameMachine(a, b results.Machine) bool {
	return a.CPUModel == b.CPUModel && a.Cores == b.Cores && a.MemoryKB == b.MemoryKB
}

// figure is what the upstream comparison reads of one DataItems name.
type figure struct {
	throughput, attemptP50 float64
	hasAttempt             bool
}

func figures(items results.DataItems) map[string]figure {
	out := map[string]figure{}
	for _, it := range items.DataItems {
		f := out[it.Labels["Name"]]
		switch it.Labels["Metric"] {
		case results.ItemThroughput:
			f.throughput = it.Data.Average
		case results.ItemAttempt:
			f.attemptP50, f.hasAttempt = it.Data.Perc50, true
		}
		out[it.Labels["Name"]] = f
	}
	return out
}

// ratio is a over b, zero without b.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// baselineFigures are what a row is compared with in the baseline run.
type baselineFigures struct{ p50, p90, throughput, beside float64 }

// metricsOf lists the metrics of the DataItems, sorted, each once.
func metricsOf(items results.DataItems) []string {
	var out []string
	for _, it := range items.DataItems {
		out = append(out, it.Labels["Metric"])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rows makes one table row per workload and size from the DataItems.
func rows(items results.DataItems, base map[string]baselineFigures) []BenchRow {
	byName := map[string]*BenchRow{}
	var order []string
	for _, it := range items.DataItems {
		name := it.Labels["Name"]
		r := byName[name]
		if r == nil {
			// Names read <scenario>/<workload>/size=<n>.
			workload := name
			if parts := strings.Split(name, "/"); len(parts) >= 2 {
				workload = parts[1]
			}
			r = &BenchRow{Workload: workload, Size: it.Labels["Size"], Mode: it.Labels["Mode"], Policy: it.Labels["Policy"], name: name}
			byName[name] = r
			order = append(order, name)
		}
		switch it.Labels["Metric"] {
		case results.ItemGangLatency:
			r.P50, r.P90, r.P99 = it.Data.Perc50, it.Data.Perc90, it.Data.Perc99
			r.BaselineRatio = ratio(it.Data.Perc50, base[name].p50)
			r.BaselineP90Ratio = ratio(it.Data.Perc90, base[name].p90)
		case results.ItemThroughput:
			r.Throughput = it.Data.Average
			if r.Mode == results.ModeConcurrent {
				r.BaselineThroughputRatio = ratio(it.Data.Average, base[name].throughput)
			}
		case results.ItemFirstEviction:
			r.preemption().FirstEvictionP50 = it.Data.Perc50
		case results.ItemVictimsGone:
			r.preemption().VictimsGoneP50, r.preemption().VictimsGoneP90 = it.Data.Perc50, it.Data.Perc90
		case results.ItemPreemptorBound:
			r.preemption().BoundP50, r.preemption().BoundP90 = it.Data.Perc50, it.Data.Perc90
		case results.ItemAttempt:
			r.ServerP50 = fmt.Sprintf("%.2f", it.Data.Perc50)
			// Buckets reads "p50 in (1,2]ms p90 in ...": keep p50's bucket.
			if f := strings.Fields(it.Labels["Buckets"]); len(f) >= 3 {
				r.ServerP50 += " in " + f[2]
			}
		}
	}
	// In run order: each workload's sizes, ascending.
	var out []BenchRow
	for _, n := range order {
		out = append(out, *byName[n])
	}
	pairBeside(out)
	for i := range out {
		out[i].BaselineBesideRatio = ratio(out[i].BesideRatio, base[out[i].name].beside)
	}
	return out
}

// pairBeside gives each row whose workload has a twin (named
// <workload>@<binder>, results.TwinName) its ratio over the twin's row of the
// same size.
func pairBeside(rows []BenchRow) {
	type key struct{ workload, size string }
	twins := map[key]BenchRow{}
	for _, r := range rows {
		if workload, _, ok := strings.Cut(r.Workload, "@"); ok {
			twins[key{workload, r.Size}] = r
		}
	}
	for i := range rows {
		r := &rows[i]
		twin, ok := twins[key{r.Workload, r.Size}]
		if !ok {
			continue
		}
		_, r.Beside, _ = strings.Cut(twin.Workload, "@")
		if r.Mode == results.ModeConcurrent {
			r.BesideRatio = ratio(r.Throughput, twin.Throughput)
		} else {
			r.BesideRatio = ratio(r.P50, twin.P50)
		}
	}
}

// preemption is the row's preemption parts, made on first use.
func (r *BenchRow) preemption() *PreemptionParts {
	if r.Preemption == nil {
		r.Preemption = &PreemptionParts{}
	}
	return r.Preemption
}

// PreemptionRows are the rows of preemption workloads.
func (s Scenario) PreemptionRows() []BenchRow {
	var out []BenchRow
	for _, r := range s.Rows {
		if r.Preemption != nil {
			out = append(out, r)
		}
	}
	return out
}

// BesideRows are the rows with a ratio over a binder beside them.
func (s Scenario) BesideRows() []BenchRow {
	var out []BenchRow
	for _, r := range s.Rows {
		if r.BesideRatio > 0 {
			out = append(out, r)
		}
	}
	return out
}

type suiteSpec struct {
	Spec
	area string
}

type suiteSpecs struct {
	list         []suiteSpec
	suiteOK      bool
	suiteFailure string
}

// readSpecs reads a Ginkgo JSON report.
func readSpecs(path string) (*suiteSpecs, error) {
	var reports []types.Report
	if err := readJSON(path, &reports); err != nil {
		return nil, err
	}
	if len(reports) == 0 {
		return nil, fmt.Errorf("holds no suite")
	}
	out := &suiteSpecs{suiteOK: true}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt {
				if s.State.Is(types.SpecStateFailureStates) {
					out.suiteOK = false
					out.suiteFailure = s.Failure.Message
				}
				continue
			}
			sp := suiteSpec{Spec: Spec{Name: s.FullText(), State: s.State.String(), Duration: s.RunTime.Round(time.Millisecond),
				Passed: s.State == types.SpecStatePassed}}
			for _, l := range s.Labels() {
				k, v, _ := strings.Cut(l, ":")
				switch k {
				case "profile":
					sp.Profile = v
				case "area":
					sp.area = v
				case "item":
					sp.Item = v
				}
			}
			if s.State.Is(types.SpecStateFailureStates) || s.State == types.SpecStateSkipped {
				sp.Failure = firstLines(Redact(s.Failure.Message), 4)
			}
			out.list = append(out.list, sp)
		}
	}
	sort.SliceStable(out.list, func(i, j int) bool { return out.list[i].Name < out.list[j].Name })
	return out, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return short(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("malformed: %v", err)
	}
	return nil
}

// isMissing says whether err is readJSON's for a file that is not there.
func isMissing(err error) bool { return err != nil && err.Error() == "missing" }

// short turns a missing file into "missing".
func short(err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("missing")
	}
	return err
}

func firstLine(s string) string { return firstLines(s, 1) }

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}

// svgBody strips the XML prolog so the SVG can sit inside HTML.
func svgBody(s string) string {
	if i := strings.Index(s, "<svg"); i >= 0 {
		return s[i:]
	}
	return s
}

// Secrets never reach a report: PEM blocks, kubeconfig credential fields
// and bearer tokens are cut from any text taken from the results.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?s)-----BEGIN [A-Z ]+-----.*?-----END [A-Z ]+-----`),
	regexp.MustCompile(`(?i)((?:client-key-data|client-certificate-data|certificate-authority-data|token|password)\s*[:=]\s*)\S+`),
	regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9\-._~+/]+=*`),
}

// Redact removes credentials from text.
func Redact(s string) string {
	s = secretPatterns[0].ReplaceAllString(s, "[redacted]")
	for _, p := range secretPatterns[1:] {
		s = p.ReplaceAllString(s, "${1}[redacted]")
	}
	return s
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
