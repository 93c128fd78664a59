package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
)

// Server-side histograms of v1.37.2's scheduler (alpha metrics). Their
// buckets are powers of two from 1 ms: a quantile is known only to within
// its bucket, so every figure carries the bucket's bounds.
const (
	MetricAttempt   = "scheduler_podgroup_scheduling_attempt_duration_seconds"
	MetricAlgorithm = "scheduler_podgroup_scheduling_algorithm_duration_seconds"
)

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
func (f Families) Histogram(name string, match map[string]string) results.Histogram {
	var h results.Histogram
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
