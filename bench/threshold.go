package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// validateThreshold checks that the workload's threshold t names a figure
// the run measures, with one bound, at sizes the workload has.
func validateThreshold(t results.Threshold, w results.Workload) error {
	if _, ok := results.Unit(t.Metric); !ok {
		return fmt.Errorf("threshold on unknown metric %q (known: %s)", t.Metric, strings.Join(results.Metrics(), ", "))
	}
	if _, ok := (results.Summary{}).Bucket(t.Bucket); !ok {
		return fmt.Errorf("threshold on %s: unknown bucket %q (known: %s)", t.Metric, t.Bucket, results.Buckets)
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

// CheckThresholds holds every workload's thresholds against the result's
// DataItems. The scheduler's own workloads only: a binder's twins beside it
// carry other names.
func CheckThresholds(r *results.Result) []results.ThresholdCheck {
	figures := map[string]results.Summary{}
	for _, it := range DataItemsOf(r).DataItems {
		figures[it.Labels["Name"]+"|"+it.Labels["Metric"]] = it.Data
	}
	var out []results.ThresholdCheck
	for _, w := range r.Scenario.Workloads {
		for _, t := range w.Thresholds {
			for _, sr := range r.Sizes {
				if sr.Workload != w.Name || (len(t.Sizes) > 0 && !slices.Contains(t.Sizes, sr.Size)) {
					continue
				}
				c := results.ThresholdCheck{Workload: w.Name, Size: sr.Size, Threshold: t, Passed: true}
				if s, ok := figures[itemName(r.Scenario.Name, sr)+"|"+t.Metric]; ok && sampled(sr, t.Metric) {
					v, _ := s.Bucket(t.Bucket)
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
func sampled(sr results.SizeResult, metric string) bool {
	switch metric {
	case results.ItemThroughput:
		return len(sr.Throughput) > 0
	case results.ItemGangLatency, results.ItemBindSpread, results.ItemVictimsGone, results.ItemPreemptorBound, results.ItemFirstEviction:
		return len(sr.Gangs) > 0
	}
	// The server-side items exist only when their histogram counted some.
	return true
}

// Crossed is the checks that failed.
func Crossed(checks []results.ThresholdCheck) []results.ThresholdCheck {
	var out []results.ThresholdCheck
	for _, c := range checks {
		if !c.Passed {
			out = append(out, c)
		}
	}
	return out
}
