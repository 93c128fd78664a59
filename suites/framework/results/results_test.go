package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// keys lists the JSON object keys in v's encoding, depth first, each as a
// path: what a reader of the files relies on.
func keys(t *testing.T, v any) []string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				out = append(out, prefix+k)
				walk(prefix+k+".", v)
			}
		case []any:
			if len(x) > 0 {
				walk(prefix, x[0])
			}
		}
	}
	walk("", doc)
	return out
}

// The result files' field names are what reports and other tools read;
// renaming one here renames it in every file written from then on.
func TestResultFileFieldNames(t *testing.T) {
	one := 1.0
	r := Result{
		Scenario: &Scenario{Name: "s", Workloads: []Workload{{Name: "w", Gangs: []GangCount{{MaxSize: 1, Count: 1}}, Thresholds: []Threshold{{Sizes: []int{1}, Max: &one}},
			Preemption: &Preemption{}}}},
		Environment: &Environment{Nodes: &NodeCreation{}},
		Sizes:       []SizeResult{{Gangs: []GangResult{{FirstEviction: 1, VictimsGone: 1, PreemptorBound: 1, Victims: 1}}, Throughput: []float64{1}}},
		Cost:        []Cost{{}},
		Beside:      &Beside{},
		Pacing:      Pacing{Calibration: Calibration{CPU: []time.Duration{1}, Memory: []time.Duration{1}}},
		Thresholds:  []ThresholdCheck{{Value: &one}},
	}
	want := strings.Fields(`scenario scenario.name scenario.description scenario.labels scenario.cluster scenario.workloads
		scenario.workloads.name scenario.workloads.policy scenario.workloads.mode scenario.workloads.sizes scenario.workloads.gangs
		scenario.workloads.gangs.maxSize scenario.workloads.gangs.count scenario.workloads.requests scenario.workloads.thresholds
		scenario.workloads.thresholds.metric scenario.workloads.thresholds.bucket scenario.workloads.thresholds.sizes scenario.workloads.thresholds.max
		scenario.workloads.preemption scenario.workloads.preemption.disruptionMode scenario.workloads.preemption.preemptorPercent
		environment environment.date environment.gangconfCommit environment.kubernetesVersion environment.provider environment.scheduler
		environment.scheduler.name environment.scheduler.schedulerName environment.machine environment.machine.cpuModel environment.machine.cores
		environment.machine.memoryKiB environment.machine.os environment.machine.kernel environment.machine.go
		environment.nodes environment.nodes.count environment.nodes.createdNs environment.nodes.readyNs
		sizes sizes.workload sizes.mode sizes.policy sizes.size sizes.gangs sizes.gangs.workload sizes.gangs.size sizes.gangs.index
		sizes.gangs.latencyNs sizes.gangs.bindSpreadNs sizes.gangs.complete sizes.throughput
		sizes.gangs.firstEvictionNs sizes.gangs.victimsGoneNs sizes.gangs.preemptorBoundNs sizes.gangs.victims
		cost cost.process cost.cpuSeconds cost.peakRSSMiB podsBound beside beside.name beside.schedulerName
		pacing pacing.waits pacing.waitedNs pacing.creatingNs pacing.removingNs pacing.unquiet pacing.collections
		pacing.calibration pacing.calibration.cpuNs pacing.calibration.memoryNs tookNs
		thresholds thresholds.workload thresholds.size thresholds.threshold thresholds.threshold.metric thresholds.threshold.bucket
		thresholds.value thresholds.passed`)
	got := keys(t, r)
	if !sameSet(got, want) {
		t.Errorf("result file keys changed:\n got %v\nwant %v", got, want)
	}
	items := DataItems{DataItems: []DataItem{{Labels: map[string]string{}}}}
	if got, want := keys(t, items), strings.Fields("version dataItems dataItems.data dataItems.data.Perc50 dataItems.data.Perc90 dataItems.data.Perc95 dataItems.data.Perc99 dataItems.data.Average dataItems.unit dataItems.labels"); !sameSet(got, want) {
		t.Errorf("DataItems keys changed:\n got %v\nwant %v", got, want)
	}
}

func sameSet(a, b []string) bool {
	set := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	return reflect.DeepEqual(set(a), set(b))
}

// The report's fixtures, written by earlier versions, still read.
func TestFixturesRead(t *testing.T) {
	root := filepath.Join("..", "..", "..", "fixtures", "results")
	var r Result
	readFixture(t, filepath.Join(root, "sample", "bench", "smoke-result.json"), &r)
	if r.Environment == nil || r.PodsBound == 0 || len(r.Pacing.Calibration.CPU) == 0 || len(r.Thresholds) == 0 {
		t.Errorf("sample result read as %+v", r)
	}
	var up UpstreamResult
	readFixture(t, filepath.Join(root, "upstream", "bench-upstream", "upstream-gangs-result.json"), &up)
	if up.Environment == nil || up.Environment.Machine.Cores == 0 {
		t.Errorf("upstream result read as %+v", up)
	}
	var items DataItems
	readFixture(t, filepath.Join(root, "sample", "bench", "smoke.json"), &items)
	if len(items.DataItems) == 0 {
		t.Error("sample DataItems read as none")
	}
}

func readFixture(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestMedianAndBuckets(t *testing.T) {
	if m := Median([]time.Duration{4, 1, 3, 2}); m != 2 {
		t.Errorf("median of 1..4 = %d, want 2 (the mean of 2 and 3, truncated)", m)
	}
	s := Summary{Perc50: 1, Perc90: 2, Perc95: 3, Perc99: 4, Average: 5}
	for i, b := range strings.Split(Buckets, ", ") {
		if v, ok := s.Bucket(b); !ok || v != float64(i+1) {
			t.Errorf("bucket %s = %v, %t", b, v, ok)
		}
	}
	if _, ok := s.Bucket("Perc42"); ok {
		t.Error("an unknown bucket was found")
	}
}

// Figures that compare clusters of any size: nodes a second and memory per
// 1000 nodes, zero rather than infinite where there is nothing to divide by.
func TestNodeRatesAndMemoryPer1000Nodes(t *testing.T) {
	n := NodeCreation{Count: 15000, Created: 30 * time.Second, Ready: 60 * time.Second}
	if got, want := n.CreatedPerSecond(), 500.0; got != want {
		t.Errorf("created per second = %v, want %v", got, want)
	}
	if got, want := n.ReadyPerSecond(), 250.0; got != want {
		t.Errorf("ready per second = %v, want %v", got, want)
	}
	if got := (NodeCreation{Count: 5}).ReadyPerSecond(); got != 0 {
		t.Errorf("ready per second without a time = %v, want 0", got)
	}
	c := Cost{Process: "kube-apiserver", PeakRSSMiB: 3000}
	if got, want := c.MiBPer1000Nodes(15000), 200.0; got != want {
		t.Errorf("MiB per 1000 nodes = %v, want %v", got, want)
	}
	if got := c.MiBPer1000Nodes(0); got != 0 {
		t.Errorf("MiB per 1000 nodes without nodes = %v, want 0", got)
	}
}
