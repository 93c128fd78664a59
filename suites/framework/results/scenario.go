package results

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Scenario is a benchmark: a cluster profile and the workloads run on it,
// as bench loads it from its scenario files and as a Result records it.
type Scenario struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Labels      []string   `json:"labels"`
	Cluster     string     `json:"cluster"`
	Workloads   []Workload `json:"workloads"`
}

// Workload is one kind of gang, at one or more sizes.
type Workload struct {
	Name string `json:"name"`
	// Policy is gang (minCount = size) or basic.
	Policy string `json:"policy"`
	// Mode is sequential (one gang at a time, capacity freed in between: each
	// gang measures one scheduling cycle) or concurrent (all gangs created at
	// once: throughput under queueing).
	Mode  string      `json:"mode"`
	Sizes []int       `json:"sizes"`
	Gangs []GangCount `json:"gangs"`
	// Requests of every pod.
	Requests corev1.ResourceList `json:"requests"`
	// Thresholds fail the run when one of its figures crosses them.
	Thresholds []Threshold `json:"thresholds,omitempty"`
	// Preemption, when set, makes each gang of this (sequential, gang)
	// workload a preemption: nil for a workload of plain gangs.
	Preemption *Preemption `json:"preemption,omitempty"`
}

// Preemption describes a workload-aware preemption measurement: for each
// gang of a size, a low-priority victim gang of that size fills a slice of
// nodes of its own, then a high-priority preemptor gang of the same pod
// requests, pinned to that slice, fits only by evicting victims.
type Preemption struct {
	// DisruptionMode of the victim gang: all (the whole gang goes) or
	// single (only the pods the preemptor needs).
	DisruptionMode string `json:"disruptionMode"`
	// PreemptorPercent is the preemptor's size in percent of the victim
	// gang's, rounded up: below 100, all and single evict different counts.
	PreemptorPercent int `json:"preemptorPercent"`
}

// Disruption modes of a victim gang.
const (
	DisruptionAll    = "all"
	DisruptionSingle = "single"
)

// PreemptorSize is the preemptor's member count against victims of size.
func (p Preemption) PreemptorSize(size int) int {
	return (size*p.PreemptorPercent + 99) / 100
}

// Victims is how many victim pods the preemptor must evict, against a
// victim gang of size that fills its nodes: all of them in mode all, one
// per preemptor member in mode single (victim and preemptor pods ask for
// the same).
func (p Preemption) Victims(size int) int {
	if p.DisruptionMode == DisruptionAll {
		return size
	}
	return p.PreemptorSize(size)
}

// GangCount says how many gangs to run of sizes up to MaxSize (0: any size).
// The first rule that matches a size applies.
type GangCount struct {
	MaxSize int `json:"maxSize,omitempty"`
	Count   int `json:"count"`
}

// Policies and modes.
const (
	PolicyGang     = "gang"
	PolicyBasic    = "basic"
	ModeSequential = "sequential"
	ModeConcurrent = "concurrent"
)

// GangsOf is how many gangs of the given size the workload runs.
func (w Workload) GangsOf(size int) int {
	for _, g := range w.Gangs {
		if g.MaxSize == 0 || size <= g.MaxSize {
			return g.Count
		}
	}
	return 0
}

// Threshold bounds one of a workload's measurements, as scheduler_perf's
// threshold and thresholdMetricSelector do: the run fails when a size's
// figure crosses it. Bounds are in the metric's DataItem unit (ms, pods/s).
type Threshold struct {
	Metric string `json:"metric"`
	// Bucket is the DataItem's data bucket: Perc50, Perc90, Perc95, Perc99
	// or Average.
	Bucket string `json:"bucket"`
	// Sizes it applies to; empty: every size of the workload.
	Sizes []int `json:"sizes,omitempty"`
	// Max is the highest figure allowed (latencies), Min the lowest
	// (throughput); exactly one is set.
	Max *float64 `json:"max,omitempty"`
	Min *float64 `json:"min,omitempty"`
}

// String says what the threshold allows, e.g. "GangLatency Perc50 <= 3000 ms".
func (t Threshold) String() string {
	op, v := "<=", t.Max
	if t.Min != nil {
		op, v = ">=", t.Min
	}
	return fmt.Sprintf("%s %s %s %g %s", t.Metric, t.Bucket, op, *v, units[t.Metric])
}
