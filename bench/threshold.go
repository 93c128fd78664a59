package bench

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The Metric labels of a result's DataItems, with their units: what a
// threshold may name.
const (
	ItemGangLatency = "GangLatency"
	ItemBindSpread  = "BindSpread"
	ItemThroughput  = "SchedulingThroughput"
	ItemAttempt     = "PodGroupSchedulingAttempt"
	ItemAlgorithm   = "PodGroupSchedulingAlgorithm"
)

var metricUnits = map[string]string{
	ItemGangLatency: "ms", ItemBindSpread: "ms", ItemThroughput: "pods/s",
	ItemAttempt: "ms", ItemAlgorithm: "ms",
}

const bucketsKnown = "Perc50, Perc90, Perc95, Perc99, Average"

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

func (t Threshold) validate(w Workload) error {
	if _, ok := metricUnits[t.Metric]; !ok {
		known := make([]string, 0, len(metricUnits))
		for m := range metricUnits {
			known = append(known, m)
		}
		sort.Strings(known)
		return fmt.Errorf("threshold on unknown metric %q (known: %s)", t.Metric, strings.Join(known, ", "))
	}
	if _, ok := bucketOf(Summary{}, t.Bucket); !ok {
		return fmt.Errorf("threshold on %s: unknown bucket %q (known: %s)", t.Metric, t.Bucket, bucketsKnown)
	}
	if (t.Max == nil) == (t.Min == nil) {
		return fmt.Errorf("threshold on %s %s: set exactly one of max and min", t.Metric, t.Bucket)
	}
	for _, n := range t.Sizes {
		if !slices.Contains(w.Sizes, n) {
			return fmt.Errorf("threshold on %s %s: size %d is not one of the workload's", t.Metric, t.Bucket, n)
		}
	}
	return nil
}

// String says what the threshold allows, e.g. "GangLatency Perc50 <= 3000 ms".
func (t Threshold) String() string {
	op, v := "<=", t.Max
	if t.Min != nil {
		op, v = ">=", t.Min
	}
	return fmt.Sprintf("%s %s %s %g %s", t.Metric, t.Bucket, op, *v, metricUnits[t.Metric])
}

func bucketOf(s Summary, bucket string) (float64, bool) {
	switch bucket {
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

// CheckThresholds holds every workload's thresholds against the result's
// DataItems. The scheduler's own workloads only: a binder's twins beside it
// carry other names.
func (r *Result) CheckThresholds() []ThresholdCheck {
	figures := map[string]Summary{}
	for _, it := range r.ToDataItems().DataItems {
		figures[it.Labels["Name"]+"|"+it.Labels["Metric"]] = it.Data
	}
	var out []ThresholdCheck
	for _, w := range r.Scenario.Workloads {
		for _, t := range w.Thresholds {
			for _, sr := range r.Sizes {
				if sr.Workload != w.Name || (len(t.Sizes) > 0 && !slices.Contains(t.Sizes, sr.Size)) {
					continue
				}
				c := ThresholdCheck{Workload: w.Name, Size: sr.Size, Threshold: t, Passed: true}
				if s, ok := figures[itemName(r.Scenario.Name, sr)+"|"+t.Metric]; ok && sampled(sr, t.Metric) {
					v, _ := bucketOf(s, t.Bucket)
					c.Value = &v
					c.Passed = (t.Max == nil || v <= *t.Max) && (t.Min == nil || v >= *t.Min)
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// sampled says whether the size has samples of the metric: a workload that
// bound all its pods within the throughput collector's first second has no
// throughput sample, and its DataItem's zeros are no figure.
func sampled(sr SizeResult, metric string) bool {
	switch metric {
	case ItemThroughput:
		return len(sr.Throughput) > 0
	case ItemGangLatency, ItemBindSpread:
		return len(sr.Gangs) > 0
	}
	// The server-side items exist only when their histogram counted some.
	return true
}

// Crossed is the checks that failed.
func Crossed(checks []ThresholdCheck) []ThresholdCheck {
	var out []ThresholdCheck
	for _, c := range checks {
		if !c.Passed {
			out = append(out, c)
		}
	}
	return out
}
