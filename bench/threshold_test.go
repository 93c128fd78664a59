package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/gangconf/gangconf/suites/framework/results"
)

func ptr(v float64) *float64 { return &v }

func TestThresholdsNamingWhatNoRunMeasuresAreRejectedBeforeAnyClusterStarts(t *testing.T) {
	for _, c := range []struct {
		th   results.Threshold
		want string
	}{
		{results.Threshold{Metric: "GangLatencyP50", Bucket: "Perc50", Max: ptr(1)}, `unknown metric "GangLatencyP50" (known: BindSpread, GangLatency, PodGroupSchedulingAlgorithm`},
		{results.Threshold{Metric: results.ItemGangLatency, Bucket: "Perc75", Max: ptr(1)}, `unknown bucket "Perc75"`},
		{results.Threshold{Metric: results.ItemGangLatency, Bucket: "Perc50"}, "exactly one of max and min"},
		{results.Threshold{Metric: results.ItemThroughput, Bucket: "Average", Max: ptr(1), Min: ptr(1)}, "exactly one of max and min"},
		{results.Threshold{Metric: results.ItemGangLatency, Bucket: "Perc50", Sizes: []int{16}, Max: ptr(1)}, "size 16 is not one of the workload's"},
	} {
		s, err := Load("smoke")
		if err != nil {
			t.Fatal(err)
		}
		s.Workloads[0].Thresholds = []results.Threshold{c.th}
		if err := Validate(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.th, err, c.want)
		}
	}
}

func TestCheckThresholdsCrossesHoldsAndSaysWhatWasNotMeasured(t *testing.T) {
	gangs := func(ms ...int) []results.GangResult {
		var out []results.GangResult
		for i, v := range ms {
			out = append(out, results.GangResult{Index: i, Latency: time.Duration(v) * time.Millisecond})
		}
		return out
	}
	w := results.Workload{Name: "8gpu", Sizes: []int{1, 2, 64}, Thresholds: []results.Threshold{
		{Metric: results.ItemGangLatency, Bucket: "Perc50", Sizes: []int{64}, Max: ptr(500)},
		{Metric: results.ItemThroughput, Bucket: "Average", Min: ptr(100)},
		{Metric: results.ItemAttempt, Bucket: "Perc50", Max: ptr(1)},
	}}
	r := &results.Result{Scenario: &results.Scenario{Name: "s", Workloads: []results.Workload{w}}, Sizes: []results.SizeResult{
		{Workload: "8gpu", Size: 1, Gangs: gangs(5, 7, 9), Throughput: []float64{150, 250}},
		// All bound within the first second: no throughput sample.
		{Workload: "8gpu", Size: 2, Gangs: gangs(5)},
		{Workload: "8gpu", Size: 64, Gangs: gangs(400, 600, 700), Throughput: []float64{50, 60}},
		// The twin of a binder beside: not the scheduler's, not checked.
		{Workload: results.TwinName("8gpu", "ceiling"), Size: 64, Gangs: gangs(9000)},
	}}
	got := CheckThresholds(r)
	var lines []string
	for _, c := range got {
		lines = append(lines, c.String())
	}
	want := []string{
		"8gpu size 64: GangLatency Perc50 <= 500 ms, measured 600.0: CROSSED",
		"8gpu size 1: SchedulingThroughput Average >= 100 pods/s, measured 200.0: held",
		"8gpu size 2: SchedulingThroughput Average >= 100 pods/s, not measured",
		"8gpu size 64: SchedulingThroughput Average >= 100 pods/s, measured 55.0: CROSSED",
		"8gpu size 1: PodGroupSchedulingAttempt Perc50 <= 1 ms, not measured",
		"8gpu size 2: PodGroupSchedulingAttempt Perc50 <= 1 ms, not measured",
		"8gpu size 64: PodGroupSchedulingAttempt Perc50 <= 1 ms, not measured",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("checks:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if n := len(Crossed(got)); n != 2 {
		t.Fatalf("%d crossed, want 2", n)
	}
}
