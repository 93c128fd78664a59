package bench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/results"
)

func TestEveryScenarioLoadsAndTheStandardSetIsTheSweep(t *testing.T) {
	for _, n := range Scenarios() {
		if _, err := Load(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	std, err := Select("")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range std {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "gang-size-sweep" {
		t.Fatalf("standard set = %s", got)
	}
}

func TestBadScenariosAreRejectedBeforeAnyClusterStarts(t *testing.T) {
	if _, err := Select("smoke,warp-speed"); err == nil || !strings.Contains(err.Error(), `unknown scenario "warp-speed"`) {
		t.Fatalf("unknown scenario: %v", err)
	}
	s, err := Load("smoke")
	if err != nil {
		t.Fatal(err)
	}
	// ci-small has 32 8-GPU nodes: a gang of 64 one-node pods cannot fit.
	s.Workloads[0].Sizes = append(s.Workloads[0].Sizes, 64)
	if err := Validate(s); err == nil || !strings.Contains(err.Error(), "above the capacity of ci-small (32 pods") {
		t.Fatalf("size above capacity: %v", err)
	}
	s, _ = Load("smoke")
	s.Workloads[0].Requests = corev1.ResourceList{"example.com/tpu": resource.MustParse("1")}
	if err := Validate(s); err == nil {
		t.Fatal("a request no node offers was accepted")
	}
	s, _ = Load("smoke")
	s.Workloads[0].Mode = "burst"
	if err := Validate(s); err == nil || !strings.Contains(err.Error(), `mode "burst"`) {
		t.Fatalf("unknown mode: %v", err)
	}
}

func TestGangsOfFollowsTheFirstMatchingRule(t *testing.T) {
	w := results.Workload{Gangs: []results.GangCount{{MaxSize: 64, Count: 10}, {Count: 3}}}
	for size, want := range map[int]int{1: 10, 64: 10, 128: 3, 1024: 3} {
		if got := w.GangsOf(size); got != want {
			t.Errorf("GangsOf(%d) = %d, want %d", size, got, want)
		}
	}
}

func TestSizesAndWorkloadsTakeTurnsEachSpreadOverTheRounds(t *testing.T) {
	gangs := []results.GangCount{{MaxSize: 64, Count: 10}, {Count: 3}}
	a := &workloadRun{Workload: results.Workload{Name: "a", Sizes: []int{1, 64, 128, 1024}, Gangs: gangs}}
	b := &workloadRun{Workload: results.Workload{Name: "b", Sizes: []int{2, 64, 1024}, Gangs: []results.GangCount{{Count: 5}}}}
	rs := rounds([]*workloadRun{a, b})
	if len(rs) != 10 {
		t.Fatalf("%d rounds, want 10 (the most gangs of any size)", len(rs))
	}
	inRounds := map[string][]int{}
	next := map[string]int{}
	for r, round := range rs {
		for i, tu := range round {
			key := fmt.Sprintf("%s/%d", tu.run.Name, tu.run.Sizes[tu.size])
			if i > 0 {
				prev := round[i-1]
				if ps, s := prev.run.Sizes[prev.size], tu.run.Sizes[tu.size]; ps > s || ps == s && prev.run.Name >= tu.run.Name {
					t.Errorf("round %d: %s/%d before %s", r, prev.run.Name, ps, key)
				}
			}
			if tu.gang != next[key] {
				t.Errorf("%s: gang %d ran before gang %d", key, tu.gang, next[key])
			}
			next[key]++
			inRounds[key] = append(inRounds[key], r)
		}
	}
	for key, want := range map[string]string{
		"a/1": "[0 1 2 3 4 5 6 7 8 9]", "a/64": "[0 1 2 3 4 5 6 7 8 9]", "a/128": "[0 3 6]", "a/1024": "[0 3 6]",
		"b/2": "[0 2 4 6 8]", "b/64": "[0 2 4 6 8]", "b/1024": "[0 2 4 6 8]",
	} {
		if got := fmt.Sprint(inRounds[key]); got != want {
			t.Errorf("%s runs in rounds %s, want %s", key, got, want)
		}
	}
}

func TestHistogramsOfSeveralIntervalsAdd(t *testing.T) {
	a := results.Histogram{Upper: []float64{1, 2, math.Inf(1)}, Cum: []uint64{1, 3, 3}, Count: 3, Sum: 4}
	b := results.Histogram{Upper: a.Upper, Cum: []uint64{0, 2, 2}, Count: 2, Sum: 3}
	got := results.Histogram{}.Add(a).Add(b)
	if fmt.Sprint(got.Cum) != "[1 5 5]" || got.Count != 5 || got.Sum != 7 {
		t.Fatalf("sum = %+v", got)
	}
	if got := a.Add(results.Histogram{}); got.Count != 3 {
		t.Fatalf("adding an empty histogram changed it: %+v", got)
	}
}

const scrape = `# HELP scheduler_podgroup_scheduling_attempt_duration_seconds x
# TYPE scheduler_podgroup_scheduling_attempt_duration_seconds histogram
scheduler_podgroup_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.001"} %d
scheduler_podgroup_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.002"} %d
scheduler_podgroup_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.004"} %d
scheduler_podgroup_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="+Inf"} %d
scheduler_podgroup_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="scheduled"} %g
scheduler_podgroup_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="scheduled"} %d
scheduler_podgroup_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="0.001"} 50
scheduler_podgroup_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="0.002"} 50
scheduler_podgroup_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="0.004"} 50
scheduler_podgroup_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="+Inf"} 50
scheduler_podgroup_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="unschedulable"} 0.01
scheduler_podgroup_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="unschedulable"} 50
`

func TestHistogramDeltaAndInterpolatedQuantiles(t *testing.T) {
	before, err := ParseMetrics(strings.NewReader(fmt.Sprintf(scrape, 10, 10, 10, 10, 0.005, 10)))
	if err != nil {
		t.Fatal(err)
	}
	// 100 more attempts: 0 under 1ms, 50 in (1,2]ms, 50 in (2,4]ms.
	after, err := ParseMetrics(strings.NewReader(fmt.Sprintf(scrape, 10, 60, 110, 110, 0.305, 110)))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{"result": "scheduled"}
	h := after.Histogram(MetricAttempt, m).Sub(before.Histogram(MetricAttempt, m))
	if h.Count != 100 {
		t.Fatalf("delta count = %d, want 100 (the unschedulable series must not count)", h.Count)
	}
	v, lo, hi, ok := h.Quantile(0.5)
	if !ok || lo != 0.001 || hi != 0.002 || math.Abs(v-0.002) > 1e-9 {
		t.Fatalf("p50 = %g in (%g,%g]", v, lo, hi)
	}
	v, lo, hi, _ = h.Quantile(0.75)
	if lo != 0.002 || hi != 0.004 || math.Abs(v-0.003) > 1e-9 {
		t.Fatalf("p75 = %g in (%g,%g], want 0.003 interpolated in (0.002,0.004]", v, lo, hi)
	}
	if math.Abs(h.Mean()-0.003) > 1e-9 {
		t.Fatalf("mean = %g", h.Mean())
	}
	if _, _, _, ok := (results.Histogram{}).Quantile(.5); ok {
		t.Fatal("an empty histogram has no quantile")
	}
	if got := after.Histogram("no_such_metric", nil); got.Count != 0 {
		t.Fatal("a missing metric must give an empty histogram")
	}
}

// A sweep scrapes the scheduler twice per gang, some 1100 times: each scrape
// must reuse the last one's connection rather than leave another open in the
// scheduler.
func TestScrapesShareOneConnection(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, scrape, 10, 10, 10, 10, 0.005, 10)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	for i := 0; i < 3; i++ {
		f, err := Scrape(context.Background(), port)
		if err != nil {
			t.Fatal(err)
		}
		if f.Histogram(MetricAttempt, nil).Count == 0 {
			t.Fatal("scrape parsed no attempts")
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("3 scrapes opened %d connections, want 1", n)
	}
}

func result() *results.Result {
	s := &results.Scenario{Name: "demo"}
	r := &results.Result{Scenario: s, Pacing: results.Pacing{Calibration: results.Calibration{
		CPU: []time.Duration{4 * time.Millisecond, 5 * time.Millisecond}, Memory: []time.Duration{9 * time.Millisecond}}}}
	for _, size := range []int{1, 2, 4} {
		sr := results.SizeResult{Workload: "8gpu", Mode: results.ModeSequential, Policy: results.PolicyGang, Size: size}
		for i := 0; i < 10; i++ {
			lat := time.Duration(size*10+i) * time.Millisecond
			sr.Gangs = append(sr.Gangs, results.GangResult{Workload: "8gpu", Size: size, Index: i, Latency: lat, Spread: lat / 10,
				Complete: time.Date(2026, 12, 1, 12, 0, size, i*1000, time.UTC)})
			sr.Throughput = append(sr.Throughput, float64(size)/lat.Seconds())
		}
		r.Sizes = append(r.Sizes, sr)
	}
	return r
}

func TestDataItemsCarryTheSameLabelKeys(t *testing.T) {
	items := DataItemsOf(result())
	if items.Version != "v1" || len(items.DataItems) != 9 {
		t.Fatalf("items = %+v", items)
	}
	for _, it := range items.DataItems {
		if len(it.Labels) != len(labelKeys) {
			t.Errorf("item %v has labels %v", it.Labels["Metric"], it.Labels)
		}
	}
	first := items.DataItems[0]
	if first.Labels["Name"] != "demo/8gpu/size=1" || first.Unit != "ms" || first.Data.Perc50 != 14.5 || math.Abs(first.Data.Perc99-18.91) > 1e-9 {
		t.Fatalf("first item = %+v", first)
	}
}

func TestGangPercentilesInterpolateAndThroughputsTakeTheNearestRank(t *testing.T) {
	even := []float64{10, 20, 30, 60}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"median of an even count", percentile(even, .5), 25},
		{"p90 between the top two", percentile(even, .9), 51},
		{"p99 of one value", percentile([]float64{7}, .99), 7},
		{"upstream's p50 of an even count", nearestRank(even, .5), 20},
		{"upstream's p90", nearestRank(even, .9), 60},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !math.IsNaN(percentile(nil, .5)) || !math.IsNaN(nearestRank(nil, .5)) {
		t.Error("a quantile of no values is not NaN")
	}
}

func TestGoBenchFormatIsOneLinePerGangCalibrationAndProcess(t *testing.T) {
	r := result()
	r.Cost = []results.Cost{{Process: "scheduler", CPUSeconds: 3, PeakRSSMiB: 300.4}}
	r.PodsBound = 1000
	var b bytes.Buffer
	if err := WriteGoBench(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 34 || lines[0] != "BenchmarkCost/demo/scheduler \t1\t3000000 cpu-ns/pod\t300 peak-MiB" ||
		lines[1] != "BenchmarkCalibration/demo/cpu \t1\t4000000 ns/op" ||
		lines[3] != "BenchmarkCalibration/demo/memory \t1\t9000000 ns/op" ||
		lines[4] != "BenchmarkGang/demo/8gpu/size=1 \t1\t10000000 ns/op\t1000000 spread-ns" {
		t.Fatalf("%d lines: %q", len(lines), lines[:5])
	}
}

func TestRepeatsMergeIntoOneResult(t *testing.T) {
	r, next := result(), result()
	r.Cost = []results.Cost{{Process: "scheduler", CPUSeconds: 2, PeakRSSMiB: 300}}
	next.Cost = []results.Cost{{Process: "scheduler", CPUSeconds: 3, PeakRSSMiB: 200}, {Process: "kube-apiserver", CPUSeconds: 1, PeakRSSMiB: 900}}
	next.Sizes[0].Attempt = results.Histogram{Upper: []float64{1, math.Inf(1)}, Cum: []uint64{2, 3}, Count: 3}
	next.Sizes = append(next.Sizes, results.SizeResult{Workload: "8gpu", Size: 8, Gangs: []results.GangResult{{Size: 8}}})
	next.Pacing.Waits, next.Took = 4, time.Second
	r.Pacing.Creating, next.Pacing.Creating, next.Pacing.Removing = time.Second, 2*time.Second, time.Second
	r.PodsBound, next.PodsBound = 100, 50
	if err := r.Merge(next); err != nil {
		t.Fatal(err)
	}
	one := r.Sizes[0]
	if len(r.Sizes) != 4 || len(one.Gangs) != 20 || one.Gangs[19].Index != 19 || len(one.Throughput) != 20 || one.Attempt.Count != 3 {
		t.Fatalf("sizes = %d, size 1: %d gangs, last index %d, %d throughput samples, %d attempts",
			len(r.Sizes), len(one.Gangs), one.Gangs[len(one.Gangs)-1].Index, len(one.Throughput), one.Attempt.Count)
	}
	if want := []results.Cost{{Process: "scheduler", CPUSeconds: 5, PeakRSSMiB: 300}, {Process: "kube-apiserver", CPUSeconds: 1, PeakRSSMiB: 900}}; !slices.Equal(r.Cost, want) || r.PodsBound != 150 {
		t.Errorf("cost = %v for %d pods, want %v for 150", r.Cost, r.PodsBound, want)
	}
	if len(r.Pacing.Calibration.CPU) != 4 || len(r.Pacing.Calibration.Memory) != 2 || r.Pacing.Waits != 4 || r.Took != time.Second ||
		r.Pacing.Creating != 3*time.Second || r.Pacing.Removing != time.Second {
		t.Errorf("pacing = %+v, took %s", r.Pacing, r.Took)
	}
	if err := r.Merge(&results.Result{Scenario: &results.Scenario{Name: "other"}}); err == nil {
		t.Error("merged a result of another scenario")
	}
}

func TestWriteAndPlot(t *testing.T) {
	dir := t.TempDir()
	r := result()
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	files, err := Plot(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("plots = %v (no server-side data, so no cycle plot)", files)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "demo.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Each gang's row ends with when it was complete, to line it up with logs.
	// The preemption columns follow, zero for a workload of plain gangs.
	if want := "demo,8gpu,sequential,gang,4,9,49.000,4.900,2026-12-01T12:00:04.000009Z,0.000,0.000,0.000,0\n"; !strings.Contains(string(csv), want) {
		t.Errorf("demo.csv lacks %q:\n%s", want, csv)
	}
	for _, f := range []string{"demo.json", "demo.csv", "bench.txt", "demo-latency.svg", "demo-latency.png", "demo-spread.svg", "demo-throughput.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestBenchTxtKeepsOtherScenariosAndReplacesItsOwn(t *testing.T) {
	dir := t.TempDir()
	demo := result()
	other := result()
	other.Scenario = &results.Scenario{Name: "other"}
	for _, r := range []*results.Result{demo, other, demo} {
		if err := Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var one strings.Builder
	if err := WriteGoBench(&one, demo); err != nil {
		t.Fatal(err)
	}
	perRun := strings.Count(one.String(), "\n")
	got := map[string]int{}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line != "" {
			got[benchScenario(line)]++
		}
	}
	if got["demo"] != perRun || got["other"] != perRun || len(got) != 2 {
		t.Fatalf("bench.txt lines by scenario = %v, want %d each of demo and other:\n%s", got, perRun, data)
	}
}

func pod(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("p-%d", i), Labels: map[string]string{gang.LabelGang: fmt.Sprintf("g-%d", i/8)}},
		Spec:       corev1.PodSpec{NodeName: "n"},
	}
}

func TestCollectorCountsEachPodOnce(t *testing.T) {
	c := NewCollector()
	t0 := time.Now()
	for i := 0; i < 8; i++ {
		c.Observe(pod(i), t0.Add(time.Duration(i)*time.Millisecond))
		c.Observe(pod(i), t0.Add(time.Second))
	}
	unbound := pod(9)
	unbound.Spec.NodeName = ""
	c.Observe(unbound, t0)
	g := c.Gang("g-0")
	if g.Bound != 8 || g.Last.Sub(g.First) != 7*time.Millisecond || c.Total() != 8 {
		t.Fatalf("gang = %+v, total %d", g, c.Total())
	}
}

// BenchmarkCollector shows how many binding events a second the collector
// takes; it must keep up with at least 5000 (the bar).
func BenchmarkCollector(b *testing.B) {
	pods := make([]*corev1.Pod, 100000)
	for i := range pods {
		pods[i] = pod(i)
	}
	c := NewCollector()
	now := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(pods) == 0 {
			// Every event a new binding, as in a run.
			c = NewCollector()
		}
		c.Observe(pods[i%len(pods)], now)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// The scale sweep is opt-in, runs on gpu-15k up to 4096 members, and bounds
// its two largest sizes; its gangs fit that profile, not a smaller one.
func TestScaleSweepIsOptInAndValidatesAgainstGPU15k(t *testing.T) {
	s, err := Load("gang-size-sweep-15k")
	if err != nil {
		t.Fatal(err)
	}
	if s.Cluster != "gpu-15k" || slices.Contains(s.Labels, labelStandardSet) {
		t.Fatalf("cluster %s, labels %v: want gpu-15k and not standard", s.Cluster, s.Labels)
	}
	w := s.Workloads[0]
	if got := slices.Max(w.Sizes); got != 4096 || !slices.Contains(w.Sizes, 2048) {
		t.Errorf("sizes %v: want 2048 and up to 4096", w.Sizes)
	}
	bounded := map[int]bool{}
	for _, th := range w.Thresholds {
		for _, size := range th.Sizes {
			bounded[size] = th.Metric == results.ItemGangLatency && th.Max != nil
		}
	}
	if !bounded[2048] || !bounded[4096] {
		t.Errorf("thresholds %v: want a GangLatency max at 2048 and at 4096", w.Thresholds)
	}
	s.Cluster = "gpu-1k"
	if err := Validate(s); err == nil || !strings.Contains(err.Error(), "above the capacity of gpu-1k (1000 pods") {
		t.Errorf("on gpu-1k: %v", err)
	}
	s, _ = Load("gang-size-sweep-15k")
	s.Workloads[0].Thresholds[1].Sizes = []int{8192}
	if err := Validate(s); err == nil || !strings.Contains(err.Error(), "size 8192 is not one of the workload's") {
		t.Errorf("threshold at a size not run: %v", err)
	}
}
