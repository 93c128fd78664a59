package results

import "sort"

// The Metric labels of a result's DataItems, with their units: what a
// threshold may name.
const (
	ItemGangLatency = "GangLatency"
	ItemBindSpread  = "BindSpread"
	ItemThroughput  = "SchedulingThroughput"
	ItemAttempt     = "PodGroupSchedulingAttempt"
	ItemAlgorithm   = "PodGroupSchedulingAlgorithm"
	// A preemption workload's GangLatency is the preemption latency (the
	// preemptor complete to its victims gone and it bound); these are its
	// two parts, and the first eviction.
	ItemVictimsGone    = "PreemptionVictimsGone"
	ItemPreemptorBound = "PreemptionPreemptorBound"
	ItemFirstEviction  = "PreemptionFirstEviction"
)

var units = map[string]string{
	ItemGangLatency: "ms", ItemBindSpread: "ms", ItemThroughput: "pods/s",
	ItemAttempt: "ms", ItemAlgorithm: "ms",
	ItemVictimsGone: "ms", ItemPreemptorBound: "ms", ItemFirstEviction: "ms",
}

// Unit is the unit of a metric's DataItems; ok is false for a metric that
// no result has.
func Unit(metric string) (unit string, ok bool) {
	unit, ok = units[metric]
	return unit, ok
}

// Metrics lists the metrics of a result's DataItems, sorted.
func Metrics() []string {
	out := make([]string, 0, len(units))
	for m := range units {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Summary is the percentiles perf-dash shows for one measurement.
type Summary struct {
	Perc50  float64 `json:"Perc50"`
	Perc90  float64 `json:"Perc90"`
	Perc95  float64 `json:"Perc95"`
	Perc99  float64 `json:"Perc99"`
	Average float64 `json:"Average"`
}

// Buckets names Summary's buckets, as thresholds name them.
const Buckets = "Perc50, Perc90, Perc95, Perc99, Average"

// Bucket is the figure in the bucket called name; ok is false for a name
// that is not one of Buckets.
func (s Summary) Bucket(name string) (value float64, ok bool) {
	switch name {
	case "Perc50":
		return s.Perc50, true
	case "Perc90":
		return s.Perc90, true
	case "Perc95":
		return s.Perc95, true
	case "Perc99":
		return s.Perc99, true
	case "Average":
		return s.Average, true
	}
	return 0, false
}

// DataItem is perf-dash's unit of data.
type DataItem struct {
	Data   Summary           `json:"data"`
	Unit   string            `json:"unit"`
	Labels map[string]string `json:"labels"`
}

// DataItems is the file perf-dash reads.
type DataItems struct {
	Version   string     `json:"version"`
	DataItems []DataItem `json:"dataItems"`
}
