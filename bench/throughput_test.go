package bench

import (
	"slices"
	"testing"
	"time"
)

// Totals as the ticks of a concurrent workload saw them: three seconds of
// creating before the first bind, a first partial interval, a second with
// no bind, then a tick that came late.
func TestThroughputSamplesFollowUpstreamsRules(t *testing.T) {
	t0 := time.Unix(0, 0)
	ticks := []struct {
		at    time.Duration
		total int
	}{
		{1 * time.Second, 0}, {2 * time.Second, 0}, {3 * time.Second, 0},
		{4 * time.Second, 7},          // first bind: dropped, a partial interval
		{5 * time.Second, 27},         // 20/s
		{6 * time.Second, 27},         // nothing bound: no zero ...
		{7 * time.Second, 47},         // ... 20 over 2 s, recorded for both seconds
		{8500 * time.Millisecond, 62}, // 15 over 1.5 s
	}
	var s throughputSampler
	for _, tk := range ticks {
		s.observe(t0.Add(tk.at), tk.total)
	}
	if want := []float64{20, 10, 10, 10}; !slices.Equal(s.samples, want) {
		t.Fatalf("samples = %v, want %v", s.samples, want)
	}
	// Counted from the first create with a zero for every idle second, as
	// gangconf did before, the same run averages 62/8 = 7.75 pods/s, not 12.5.
	if avg := summarize(s.samples, nearestRank).Average; avg != 12.5 {
		t.Errorf("average = %v, want 12.5", avg)
	}
}

// A workload bound within its first interval with a bind gives no sample,
// as upstream's would: the report then shows no throughput, not a zero.
func TestThroughputOfAWorkloadBoundAtOnceIsNotSampled(t *testing.T) {
	var s throughputSampler
	s.observe(time.Unix(1, 0), 0)
	s.observe(time.Unix(2, 0), 16)
	if len(s.samples) != 0 {
		t.Fatalf("samples = %v, want none", s.samples)
	}
}
