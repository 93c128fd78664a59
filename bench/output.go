package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// percentile is the q-quantile of sorted values, interpolated between the
// two nearest ranks (numpy's and R's default), so that p50 is the median: of
// an even number of gangs, the mean of the middle two. The nearest rank took
// the lower one, and at 6 gangs a size's p50 moved 1.16 times between two
// runs whose medians moved 1.10.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := q * float64(len(sorted)-1)
	i := int(h)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// nearestRank is the q-quantile of sorted values as upstream scheduler_perf
// takes its throughput's: the value at rank ceil(q*n).
func nearestRank(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func sortedMs(gangs []results.GangResult, pick func(results.GangResult) time.Duration) []float64 {
	out := make([]float64, len(gangs))
	for i, g := range gangs {
		out[i] = float64(pick(g)) / float64(time.Millisecond)
	}
	sort.Float64s(out)
	return out
}

func latency(g results.GangResult) time.Duration { return g.Latency }
func spread(g results.GangResult) time.Duration  { return g.Spread }

func percentileDuration(gangs []results.GangResult, q float64) time.Duration {
	return time.Duration(percentile(sortedMs(gangs, latency), q) * float64(time.Millisecond)).Round(time.Millisecond)
}

// summarize gives the sorted values' average and their quantiles as
// quantile takes them.
func summarize(sorted []float64, quantile func([]float64, float64) float64) results.Summary {
	if len(sorted) == 0 {
		return results.Summary{}
	}
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	return results.Summary{Perc50: quantile(sorted, .5), Perc90: quantile(sorted, .9), Perc95: quantile(sorted, .95), Perc99: quantile(sorted, .99),
		Average: sum / float64(len(sorted))}
}

// labelKeys every item carries, absent ones "not applicable", as perf-dash
// wants a fixed set of label keys.
var labelKeys = []string{"Metric", "Name", "Size", "Mode", "Policy", "Buckets"}

// itemName is a size's DataItem Name label: <scenario>/<workload>/size=<n>.
func itemName(scenario string, sr results.SizeResult) string {
	return fmt.Sprintf("%s/%s/size=%d", scenario, sr.Workload, sr.Size)
}

// unitOf is the unit of a metric's DataItems.
func unitOf(metric string) string {
	u, _ := results.Unit(metric)
	return u
}

func item(metric, name string, sr results.SizeResult, s results.Summary, extra map[string]string) results.DataItem {
	l := map[string]string{"Metric": metric, "Name": name, "Size": strconv.Itoa(sr.Size), "Mode": sr.Mode, "Policy": sr.Policy}
	for k, v := range extra {
		l[k] = v
	}
	for _, k := range labelKeys {
		if l[k] == "" {
			l[k] = "not applicable"
		}
	}
	return results.DataItem{Data: s, Unit: unitOf(metric), Labels: l}
}

// DataItemsOf turns a result into perf-dash DataItems: latencies in ms,
// throughput in pods/s. Server-side quantiles carry their bucket bounds.
func DataItemsOf(r *results.Result) results.DataItems {
	out := results.DataItems{Version: "v1"}
	for _, sr := range r.Sizes {
		name := itemName(r.Scenario.Name, sr)
		out.DataItems = append(out.DataItems,
			item(results.ItemGangLatency, name, sr, summarize(sortedMs(sr.Gangs, latency), percentile), nil),
			item(results.ItemBindSpread, name, sr, summarize(sortedMs(sr.Gangs, spread), percentile), nil))
		if isPreemption(r.Scenario, sr.Workload) {
			out.DataItems = append(out.DataItems, preemptionItems(name, sr)...)
		}
		tp := append([]float64(nil), sr.Throughput...)
		sort.Float64s(tp)
		out.DataItems = append(out.DataItems, item(results.ItemThroughput, name, sr, summarize(tp, nearestRank), nil))
		for metric, h := range map[string]results.Histogram{results.ItemAttempt: sr.Attempt, results.ItemAlgorithm: sr.Algorithm} {
			if h.Count == 0 {
				continue
			}
			s, bounds := serverSummary(h)
			out.DataItems = append(out.DataItems, item(metric, name, sr, s, map[string]string{"Buckets": bounds}))
		}
	}
	return out
}

// serverSummary interpolates the histogram's quantiles, in ms, and says
// within which buckets they lie.
func serverSummary(h results.Histogram) (results.Summary, string) {
	var s results.Summary
	var bounds string
	for _, q := range []struct {
		q   float64
		dst *float64
		tag string
	}{{.5, &s.Perc50, "p50"}, {.9, &s.Perc90, "p90"}, {.95, &s.Perc95, "p95"}, {.99, &s.Perc99, "p99"}} {
		v, lo, hi, _ := h.Quantile(q.q)
		*q.dst = v * 1000
		bounds += fmt.Sprintf("%s in (%g,%g]ms ", q.tag, lo*1000, hi*1000)
	}
	s.Average = h.Mean() * 1000
	return s, bounds[:len(bounds)-1]
}

// WriteGoBench writes one line per gang in Go benchmark format, so that
// benchstat can compare two runs: ns/op is the gang latency. The calibration
// samples come as BenchmarkCalibration/<scenario>/{cpu,memory}, so that the
// comparison also shows how much faster or slower the machine itself ran;
// and each process's CPU time per pod bound and peak memory as
// BenchmarkCost/<scenario>/<process>: between two runs of one scheduler, an
// API server that spent more CPU per pod in step with the latencies says the
// same work ran on a slower machine.
func WriteGoBench(w io.Writer, r *results.Result) error {
	if r.PodsBound > 0 {
		for _, c := range r.Cost {
			if _, err := fmt.Fprintf(w, "BenchmarkCost/%s/%s \t1\t%d cpu-ns/pod\t%.0f peak-MiB\n",
				r.Scenario.Name, c.Process, c.PerPod(r.PodsBound).Nanoseconds(), c.PeakRSSMiB); err != nil {
				return err
			}
		}
	}
	c := r.Pacing.Calibration
	for _, series := range []struct {
		name    string
		samples []time.Duration
	}{{"cpu", c.CPU}, {"memory", c.Memory}} {
		for _, d := range series.samples {
			if _, err := fmt.Fprintf(w, "BenchmarkCalibration/%s/%s \t1\t%d ns/op\n", r.Scenario.Name, series.name, d.Nanoseconds()); err != nil {
				return err
			}
		}
	}
	for _, sr := range r.Sizes {
		for _, g := range sr.Gangs {
			if _, err := fmt.Fprintf(w, "BenchmarkGang/%s/%s/size=%d \t1\t%d ns/op\t%d spread-ns\n",
				r.Scenario.Name, sr.Workload, sr.Size, g.Latency.Nanoseconds(), g.Spread.Nanoseconds()); err != nil {
				return err
			}
		}
	}
	return nil
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) }

// WriteCSV writes every gang's timings.
func WriteCSV(w io.Writer, r *results.Result) error {
	cw := csv.NewWriter(w)
	// The preemption columns come last, zero outside preemption workloads,
	// so that readers of the earlier columns are unaffected.
	_ = cw.Write([]string{"scenario", "workload", "mode", "policy", "size", "gang", "latency_ms", "bind_spread_ms", "complete",
		"first_eviction_ms", "victims_gone_ms", "preemptor_bound_ms", "victims"})
	for _, sr := range r.Sizes {
		for _, g := range sr.Gangs {
			_ = cw.Write([]string{r.Scenario.Name, sr.Workload, sr.Mode, sr.Policy, strconv.Itoa(sr.Size), strconv.Itoa(g.Index),
				ms(g.Latency), ms(g.Spread),
				g.Complete.UTC().Format(time.RFC3339Nano),
				ms(g.FirstEviction), ms(g.VictimsGone), ms(g.PreemptorBound), strconv.Itoa(g.Victims)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// Write puts the scenario's files into dir: <scenario>.json (DataItems),
// <scenario>.csv, <scenario>-result.json (raw), and its lines into bench.txt,
// in place of any the scenario had there: `make bench` and then `make
// bench-upstream` into one results directory leave both runs' lines.
func Write(dir string, r *results.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := r.Scenario.Name
	if err := results.WriteJSON(filepath.Join(dir, name+".json"), DataItemsOf(r)); err != nil {
		return err
	}
	if err := results.WriteJSON(filepath.Join(dir, name+"-result.json"), r); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, name+".csv"), func(w io.Writer) error { return WriteCSV(w, r) }); err != nil {
		return err
	}
	path := filepath.Join(dir, "bench.txt")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return writeFile(path, func(w io.Writer) error {
		for _, line := range strings.SplitAfter(string(old), "\n") {
			if line == "" || benchScenario(line) == name {
				continue
			}
			if _, err := io.WriteString(w, line); err != nil {
				return err
			}
		}
		return WriteGoBench(w, r)
	})
}

// benchScenario is the scenario of a bench.txt line (Benchmark<Kind>/<scenario>/...).
func benchScenario(line string) string {
	if parts := strings.SplitN(line, "/", 3); len(parts) == 3 && strings.HasPrefix(parts[0], "Benchmark") {
		return parts[1]
	}
	return ""
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
