package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gangconf/gangconf/suites/framework/scheduler"
)

// Server-side histograms of v1.37.2's scheduler (alpha metrics). Their
// buckets are powers of two from 1 ms: a quantile is known only to within
// its bucket, so every figure carries the bucket's bounds.
const (
	MetricAttempt   = "scheduler_podgroup_scheduling_attempt_duration_seconds"
	MetricAlgorithm = "scheduler_podgroup_scheduling_algorithm_duration_seconds"
)

// Histogram is a cumulative histogram summed over the series that matched.
type Histogram struct {
	Upper []float64 // bucket upper bounds, ascending, +Inf last
	Cum   []uint64  // cumulative counts per bucket
	Count uint64
	Sum   float64
}

// Families is one scrape of /metrics.
type Families map[string]*dto.MetricFamily

// Scrape reads the scheduler's /metrics on its loopback secure port.
func Scrape(ctx context.Context, port int) (Families, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", port), nil)
	if err != nil {
		return nil, err
	}
	resp, err := scheduler.LoopbackClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("/metrics: %s: %s", resp.Status, body)
	}
	return ParseMetrics(resp.Body)
}

// ParseMetrics parses the Prometheus text format.
func ParseMetrics(r io.Reader) (Families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse /metrics: %w", err)
	}
	return Families(fams), nil
}

// Histogram sums the series of a histogram metric whose labels include
// every label in match. A metric the scrape lacks gives an empty histogram.
func (f Families) Histogram(name string, match map[string]string) Histogram {
	var h Histogram
	fam, ok := f[name]
	if !ok || fam.GetType() != dto.MetricType_HISTOGRAM {
		return h
	}
	for _, m := range fam.GetMetric() {
		if !hasLabels(m, match) {
			continue
		}
		hist := m.GetHistogram()
		if h.Upper == nil {
			for _, b := range hist.GetBucket() {
				h.Upper = append(h.Upper, b.GetUpperBound())
			}
			h.Upper = append(h.Upper, math.Inf(1))
			h.Cum = make([]uint64, len(h.Upper))
		}
		for i, b := range hist.GetBucket() {
			if i < len(h.Cum)-1 {
				h.Cum[i] += b.GetCumulativeCount()
			}
		}
		h.Cum[len(h.Cum)-1] += hist.GetSampleCount()
		h.Count += hist.GetSampleCount()
		h.Sum += hist.GetSampleSum()
	}
	return h
}

func hasLabels(m *dto.Metric, match map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := match[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(match)
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
