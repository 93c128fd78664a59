package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// GangResult is one gang's client-side timings.
type GangResult struct {
	Workload string        `json:"workload"`
	Size     int           `json:"size"`
	Index    int           `json:"index"`
	Latency  time.Duration `json:"latencyNs"`
	Spread   time.Duration `json:"bindSpreadNs"`
	// Complete is when the gang was complete (the wall clock, so that a
	// gang can be lined up with the components' logs).
	Complete time.Time `json:"complete"`
	// Preemption workloads only (Workload.Preemption), each from Complete:
	// to the first victim pod marked or gone (FirstEviction), to the last
	// victim pod gone (VictimsGone), and to the preemptor's last member
	// bound (PreemptorBound); Latency is the later of the last two. Victims
	// is how many victim pods were gone then.
	FirstEviction  time.Duration `json:"firstEvictionNs,omitempty"`
	VictimsGone    time.Duration `json:"victimsGoneNs,omitempty"`
	PreemptorBound time.Duration `json:"preemptorBoundNs,omitempty"`
	Victims        int           `json:"victims,omitempty"`
}

// SizeResult is everything measured for one workload at one size.
type SizeResult struct {
	Workload string       `json:"workload"`
	Mode     string       `json:"mode"`
	Policy   string       `json:"policy"`
	Size     int          `json:"size"`
	Gangs    []GangResult `json:"gangs"`
	// Throughput samples, pods bound per second (concurrent mode), or each
	// gang's size over its latency (sequential mode).
	Throughput []float64 `json:"throughput"`
	// Server-side histogram deltas; empty when the scheduler exposes none.
	Attempt   Histogram `json:"-"`
	Algorithm Histogram `json:"-"`
	// CPU is each metered process's CPU time while the size's gangs were
	// placed (see ProcessCPU); empty where the harness meters none.
	CPU []ProcessCPU `json:"cpu,omitempty"`
}

// Result is a scenario's outcome.
type Result struct {
	// Scenario as it ran (after SIZES).
	Scenario *Scenario `json:"scenario"`
	// Environment of the run (versions, cluster, scheduler, machine, commit),
	// with every result so that each file says where it came from.
	Environment *Environment `json:"environment,omitempty"`
	Sizes       []SizeResult `json:"sizes"`
	Cost        []Cost       `json:"cost"`
	// PodsBound counts every pod bound during the scenario, warm-up gangs'
	// too: the work that Cost paid for.
	PodsBound int `json:"podsBound"`
	// Beside is the binder whose twins ran beside the scheduler; nil: none.
	Beside *Beside       `json:"beside,omitempty"`
	Pacing Pacing        `json:"pacing"`
	Took   time.Duration `json:"tookNs"`
	// Thresholds is the scenario's thresholds held against this result.
	Thresholds []ThresholdCheck `json:"thresholds,omitempty"`
}

// Merge folds a repeat of the same scenario into r, so that a run with
// REPEATS writes one set of files and plots over every repeat rather than
// the last one's: gangs are numbered on after r's, histogram deltas and CPU
// seconds add up, and each process's peak memory is the larger one.
func (r *Result) Merge(next *Result) error {
	if next.Scenario.Name != r.Scenario.Name {
		return fmt.Errorf("cannot merge results of scenario %q into %q", next.Scenario.Name, r.Scenario.Name)
	}
	for _, n := range next.Sizes {
		i := slices.IndexFunc(r.Sizes, func(s SizeResult) bool { return s.Workload == n.Workload && s.Size == n.Size })
		if i < 0 {
			r.Sizes = append(r.Sizes, n)
			continue
		}
		s := &r.Sizes[i]
		offset := len(s.Gangs)
		for _, g := range n.Gangs {
			g.Index += offset
			s.Gangs = append(s.Gangs, g)
		}
		s.Throughput = append(s.Throughput, n.Throughput...)
		s.Attempt = s.Attempt.Add(n.Attempt)
		s.Algorithm = s.Algorithm.Add(n.Algorithm)
		s.CPU = AddCPU(s.CPU, n.CPU)
	}
	for _, c := range next.Cost {
		i := slices.IndexFunc(r.Cost, func(o Cost) bool { return o.Process == c.Process })
		if i < 0 {
			r.Cost = append(r.Cost, c)
			continue
		}
		r.Cost[i].CPUSeconds += c.CPUSeconds
		r.Cost[i].PeakRSSMiB = max(r.Cost[i].PeakRSSMiB, c.PeakRSSMiB)
	}
	r.PodsBound += next.PodsBound
	p, q := &r.Pacing, next.Pacing
	p.Waits += q.Waits
	p.Waited += q.Waited
	p.Unquiet += q.Unquiet
	p.Collections += q.Collections
	p.Creating += q.Creating
	p.Removing += q.Removing
	p.Calibration.CPU = append(p.Calibration.CPU, q.Calibration.CPU...)
	p.Calibration.Memory = append(p.Calibration.Memory, q.Calibration.Memory...)
	r.Took += next.Took
	return nil
}

// Beside is a second binder whose gangs take turns with the scheduler
// under test's in one run: each workload gets a twin, named
// <workload>@<Name>, whose pods name SchedulerName. In sequential mode the
// twin's gang runs right after the original's at each size of a round; a
// concurrent twin runs right after the original workload. This machine's
// speed moved by up to 30% between runs minutes apart (bench/MEASUREMENTS.md)
// and every latency with it; a ratio of two figures measured turn about in
// one run does not carry that move.
type Beside struct {
	Name          string `json:"name"`
	SchedulerName string `json:"schedulerName"`
}

// TwinName is the name of a workload's twin run by the binder beside.
func TwinName(workload, beside string) string { return workload + "@" + beside }

// Cost is what one process spent during a scenario.
type Cost struct {
	Process    string  `json:"process"`
	CPUSeconds float64 `json:"cpuSeconds"`
	PeakRSSMiB float64 `json:"peakRSSMiB"`
}

// PerPod is the process's CPU time per pod bound (see Result.PodsBound);
// zero without pods.
func (c Cost) PerPod(pods int) time.Duration {
	if pods <= 0 {
		return 0
	}
	return time.Duration(c.CPUSeconds * float64(time.Second) / float64(pods))
}

// MiBPer1000Nodes is the process's peak resident memory per 1000 nodes of
// a cluster of that many nodes; zero without nodes. The control plane's
// memory grows with the nodes it holds, so this compares clusters of any size.
func (c Cost) MiBPer1000Nodes(nodes int) float64 {
	if nodes <= 0 {
		return 0
	}
	return c.PeakRSSMiB * 1000 / float64(nodes)
}

// Pacing is where the runner's time went between its measurements (waiting,
// creating and removing pods) and how fast the machine ran meanwhile.
type Pacing struct {
	Waits int `json:"waits"`
	// Waited is the time spent waiting for quiet, in all.
	Waited time.Duration `json:"waitedNs"`
	// Creating is the time spent creating pods (a sequential gang's clock
	// starts when its last create returns; concurrent gangs are scheduled
	// meanwhile), Removing removing them after, in all: with Waited, what a
	// sequential workload costs beyond its gangs' latencies.
	Creating time.Duration `json:"creatingNs"`
	Removing time.Duration `json:"removingNs"`
	// Unquiet counts waits that ended at bench.QuietTimeout.
	Unquiet int `json:"unquiet"`
	// Collections counts the API server's garbage collections the runner
	// asked for (see bench.CollectEvery).
	Collections int `json:"collections"`
	// Calibration is fixed work timed on the quiet cluster before each
	// measurement. Two runs whose calibration medians differ ran on a
	// machine of different speed, whatever the scheduler did.
	Calibration Calibration `json:"calibration"`
}

// Calibration holds the samples of two pieces of fixed work: sorting numbers
// that fit in a core's cache (CPU speed), and a walk through memory far
// larger than the caches (memory latency, which other tenants of the host
// share).
type Calibration struct {
	CPU    []time.Duration `json:"cpuNs"`
	Memory []time.Duration `json:"memoryNs"`
}

// Median of samples (of an even number, the mean of the middle two), 0
// without any: durations, or figures such as ratios.
func Median[T ~int64 | ~float64](samples []T) T {
	n := len(samples)
	if n == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return (s[(n-1)/2] + s[n/2]) / 2
}

// ThresholdCheck is one threshold held against one size's figure.
type ThresholdCheck struct {
	Workload  string    `json:"workload"`
	Size      int       `json:"size"`
	Threshold Threshold `json:"threshold"`
	// Value is the figure; nil when the run did not measure it (a scheduler
	// without the podgroup histograms, a workload done before the first
	// throughput sample), which, as in scheduler_perf, is no failure.
	Value  *float64 `json:"value,omitempty"`
	Passed bool     `json:"passed"`
}

// String says the check in one line, e.g. "sweep size 64: GangLatency
// Perc50 <= 3000 ms, measured 612.0: held".
func (c ThresholdCheck) String() string {
	head := fmt.Sprintf("%s size %d: %s", c.Workload, c.Size, c.Threshold)
	switch {
	case c.Value == nil:
		return head + ", not measured"
	case c.Passed:
		return fmt.Sprintf("%s, measured %.1f: held", head, *c.Value)
	}
	return fmt.Sprintf("%s, measured %.1f: CROSSED", head, *c.Value)
}

// Histogram is a cumulative histogram summed over the series that matched:
// what a scheduler's own histogram recorded during a size. A SizeResult
// keeps it, unwritten, so that repeats add up before the benchmarks
// summarise it into DataItems.
type Histogram struct {
	Upper []float64 // bucket upper bounds, ascending, +Inf last
	Cum   []uint64  // cumulative counts per bucket
	Count uint64
	Sum   float64
}

// Sub is the histogram of what happened between an earlier scrape and this one.
func (h Histogram) Sub(before Histogram) Histogram {
	if before.Upper == nil {
		return h
	}
	out := Histogram{Upper: h.Upper, Cum: make([]uint64, len(h.Cum)), Count: h.Count - before.Count, Sum: h.Sum - before.Sum}
	for i := range h.Cum {
		out.Cum[i] = h.Cum[i] - before.Cum[i]
	}
	return out
}

// Add is the histogram of both h's samples and other's (same buckets).
func (h Histogram) Add(other Histogram) Histogram {
	if h.Upper == nil {
		return other
	}
	if other.Upper == nil {
		return h
	}
	out := Histogram{Upper: h.Upper, Cum: make([]uint64, len(h.Cum)), Count: h.Count + other.Count, Sum: h.Sum + other.Sum}
	for i := range h.Cum {
		out.Cum[i] = h.Cum[i] + other.Cum[i]
	}
	return out
}

// Quantile estimates the q-quantile by linear interpolation inside its
// bucket, as Prometheus's histogram_quantile does, and returns the bucket's
// bounds with it. ok is false for an empty histogram.
func (h Histogram) Quantile(q float64) (value, lower, upper float64, ok bool) {
	if h.Count == 0 || len(h.Cum) == 0 {
		return 0, 0, 0, false
	}
	rank := q * float64(h.Count)
	i := sort.Search(len(h.Cum), func(i int) bool { return float64(h.Cum[i]) >= rank })
	if i >= len(h.Cum) {
		i = len(h.Cum) - 1
	}
	lower = 0
	var below uint64
	if i > 0 {
		lower, below = h.Upper[i-1], h.Cum[i-1]
	}
	upper = h.Upper[i]
	if math.IsInf(upper, 1) {
		// Above the top bucket: all that is known is the top bound.
		return lower, lower, upper, true
	}
	inBucket := h.Cum[i] - below
	if inBucket == 0 {
		return upper, lower, upper, true
	}
	return lower + (upper-lower)*(rank-float64(below))/float64(inBucket), lower, upper, true
}

// Mean is the average sample.
func (h Histogram) Mean() float64 {
	if h.Count == 0 {
		return 0
	}
	return h.Sum / float64(h.Count)
}
