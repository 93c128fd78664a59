package reports

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	"sigs.k8s.io/yaml"

	"github.com/gangconf/gangconf/bench"
	"github.com/gangconf/gangconf/suites/framework/controls"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// The matrix fixture: two versions' results, written by the writers make
// matrix runs (Ginkgo's reporters, the harness's results.WriteJSON,
// bench.Write), into a matrix directory made for each test.
const (
	older = "v1.37.2"
	newer = "v1.38.0-beta.0"
)

// fixtureSpec is one spec of the fixture's suite.
type fixtureSpec struct{ container, leaf, profile, area, item string }

func (s fixtureSpec) name() string { return s.container + " " + s.leaf }

var (
	fitsSpec   = fixtureSpec{"All-or-nothing", "a gang that fits binds all its pods", "core", "all-or-nothing", "9"}
	noFitSpec  = fixtureSpec{"All-or-nothing", "a gang that cannot fully fit binds no pod", "core", "all-or-nothing", "9"}
	quorumSpec = fixtureSpec{"Quorum", "a gang binds once minCount members are present", "core", "quorum", "6"}
	rackSpec   = fixtureSpec{"Topology", "a gang that fits in one rack is placed in it", "alpha", "topology", "21"}
)

// outcome is a spec's state in a run, with its failure or skip message.
type outcome struct {
	spec    fixtureSpec
	state   types.SpecState
	message string
}

func passed(s fixtureSpec) outcome { return outcome{s, types.SpecStatePassed, ""} }
func failed(s fixtureSpec, msg string) outcome {
	return outcome{s, types.SpecStateFailed, msg}
}
func skippedForGate(s fixtureSpec) outcome {
	return outcome{s, types.SpecStateSkipped, "the cluster lacks alpha gate TopologyAwareWorkloadScheduling"}
}

// writeSuite writes a run's ginkgo-report.json and junit_01.xml into dir,
// as the suite's ReportAfterSuite does.
func writeSuite(t *testing.T, dir string, outcomes ...outcome) {
	t.Helper()
	r := types.Report{SuitePath: "suites/conformance", SuiteDescription: "gangconf conformance", SuiteSucceeded: true,
		StartTime: time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)}
	for _, o := range outcomes {
		r.SpecReports = append(r.SpecReports, types.SpecReport{
			ContainerHierarchyTexts:  []string{o.spec.container},
			ContainerHierarchyLabels: [][]string{{"profile:" + o.spec.profile, "area:" + o.spec.area}},
			LeafNodeType:             types.NodeTypeIt, LeafNodeText: o.spec.leaf, LeafNodeLabels: []string{"item:" + o.spec.item},
			State: o.state, Failure: types.Failure{Message: o.message}, RunTime: time.Second,
		})
		r.SuiteSucceeded = r.SuiteSucceeded && !o.state.Is(types.SpecStateFailureStates)
	}
	must(t, os.MkdirAll(dir, 0o755))
	must(t, reporters.GenerateJSONReport(r, filepath.Join(dir, "ginkgo-report.json")))
	must(t, reporters.GenerateJUnitReportWithConfig(r, filepath.Join(dir, "junit_01.xml"), reporters.JunitReportConfig{}))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fixtureMachine is where both versions of the fixture ran.
var fixtureMachine = results.Machine{CPUModel: "AMD EPYC", Cores: 2, MemoryKB: 24684092, OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "Linux 6.1", Go: "go1.26.8"}

// environment is what the harness records of a version's run at minute.
func environment(v string, minute int) results.Environment {
	return results.Environment{Date: time.Date(2026, 12, 8, 10, minute, 0, 0, time.UTC), GangconfCommit: "e16ea00",
		KubernetesVersion: v, Provider: "kwok", ClusterProfile: "ci-small", FeatureGates: "GenericWorkload=true",
		Scheduler: results.Scheduler{Name: "reference", SchedulerName: "default-scheduler", Version: "Kubernetes " + v}, Machine: fixtureMachine}
}

// gangs are a size's gangs of the given latencies, ms.
func gangs(ms ...int) []results.GangResult {
	var out []results.GangResult
	for i, l := range ms {
		out = append(out, results.GangResult{Index: i, Latency: time.Duration(l) * time.Millisecond})
	}
	return out
}

// benchResult is a smoke run: the sequential 8gpu workload's gangs at size 4
// (and 8, when given) and a concurrent workload at the throughput given;
// the scheduler's CPU seconds for 100 pods, and the podgroup attempt
// histogram when withAttempt.
func benchResult(env results.Environment, size4, size8 []int, throughput, schedulerCPU float64, withAttempt bool) *results.Result {
	seq := results.SizeResult{Workload: "8gpu", Mode: results.ModeSequential, Policy: results.PolicyGang, Size: 4, Gangs: gangs(size4...), Throughput: []float64{20}}
	if withAttempt {
		seq.Attempt = results.Histogram{Upper: []float64{0.001, 0.002, 0.004, math.Inf(1)}, Cum: []uint64{0, 2, 3, 3}, Count: 3, Sum: 0.005}
	}
	r := &results.Result{Scenario: &results.Scenario{Name: "smoke"}, Environment: &env, PodsBound: 100,
		Sizes: []results.SizeResult{seq, {Workload: "4Gangs_4Pods", Mode: results.ModeConcurrent, Policy: results.PolicyGang, Size: 4,
			Gangs: gangs(900, 1000, 1100, 1200), Throughput: []float64{throughput, throughput}}},
		Cost:   []results.Cost{{Process: "scheduler", CPUSeconds: schedulerCPU, PeakRSSMiB: 80}, {Process: MachineProcess, CPUSeconds: 4, PeakRSSMiB: 400}},
		Pacing: results.Pacing{Calibration: results.Calibration{CPU: []time.Duration{10 * time.Millisecond}, Memory: []time.Duration{20 * time.Millisecond}}}}
	if size8 != nil {
		r.Sizes = append(r.Sizes, results.SizeResult{Workload: "8gpu", Mode: results.ModeSequential, Policy: results.PolicyGang, Size: 8, Gangs: gangs(size8...)})
	}
	return r
}

// writeRecord writes a controls record of the fixture's specs and returns
// its path: no-gang must fail noFitSpec and quorumSpec.
func writeRecord(t *testing.T) string {
	t.Helper()
	rec := controls.Record{Specs: []controls.Entry{
		{Spec: fitsSpec.name(), KilledBy: []string{"no-api"}},
		{Spec: noFitSpec.name(), KilledBy: []string{"no-gang", "no-api"}},
		{Spec: quorumSpec.name(), KilledBy: []string{"no-gang", "no-api"}},
		{Spec: rackSpec.name(), KilledBy: []string{"no-alpha"}},
	}}
	data, err := yaml.Marshal(rec)
	must(t, err)
	path := filepath.Join(t.TempDir(), "controls.yaml")
	must(t, os.WriteFile(path, data, 0o644))
	return path
}

// matrixFixture writes the two versions' results into a new matrix
// directory. On the newer version the quorum spec fails, no-gang passes
// the spec it must fail, the gangs take 1.5 times as long at p50 (2 times
// at p90: one slow gang), the concurrent workload binds 0.8 times as fast,
// the scheduler spends 1.5 times the CPU per pod, the podgroup attempt
// histogram is gone and size 8 is new.
func matrixFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, v := range []struct {
		name       string
		minute     int
		main, gang []outcome
		result     *results.Result
	}{
		{older, 0, []outcome{passed(fitsSpec), passed(noFitSpec), passed(quorumSpec), skippedForGate(rackSpec)},
			[]outcome{passed(fitsSpec), failed(noFitSpec, "2 of 4 members bound"), failed(quorumSpec, "0 of 4 members bound"), skippedForGate(rackSpec)},
			benchResult(environment(older, 20), []int{100, 200, 300}, nil, 100, 2, true)},
		{newer, 30, []outcome{passed(fitsSpec), passed(noFitSpec), failed(quorumSpec, "Timed out after 30s: 3 of 4 members bound\nat quorum_test.go:40"), skippedForGate(rackSpec)},
			[]outcome{passed(fitsSpec), passed(noFitSpec), failed(quorumSpec, "0 of 4 members bound"), skippedForGate(rackSpec)},
			benchResult(environment(newer, 50), []int{150, 300, 625}, []int{400, 500, 600}, 80, 3, false)},
	} {
		vdir := filepath.Join(dir, v.name)
		writeSuite(t, vdir, v.main...)
		writeSuite(t, filepath.Join(vdir, "controls", "no-gang"), v.gang...)
		must(t, results.WriteJSON(filepath.Join(vdir, "environment.json"), environment(v.name, v.minute)))
		must(t, bench.Write(filepath.Join(vdir, "bench"), v.result))
	}
	return dir
}
