package bench

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// series is one line of a plot: a value per PodGroup size.
type series struct {
	name string
	pts  plotter.XYs
}

// figure is one plot against PodGroup size.
type figure struct {
	file, title, ylabel string
	// xlabel, if set, replaces the PodGroup size's label.
	xlabel string
	// dashed, if set, draws the series whose name ends with it dashed, so
	// that a line lying on another stays visible.
	dashed string
	// logY draws the y axis in log scale: latencies span milliseconds to
	// seconds across sizes.
	logY   bool
	series []series
}

// quantileLines are the lines drawn for client- and server-side latencies.
var quantileLines = []struct {
	tag string
	q   float64
}{{"p50", .5}, {"p90", .9}, {"p99", .99}}

// figures builds the plots of one scenario. Only workloads with more than
// one size get a curve; the rest show in the tables.
func figures(r *results.Result) []figure {
	lat := figure{file: r.Scenario.Name + "-latency", title: "Gang latency (client side) - " + r.Scenario.Name, ylabel: "ms (log scale)", logY: true}
	srv := figure{file: r.Scenario.Name + "-cycle", title: "Scheduling attempt (server side, buckets x2 from 1ms) - " + r.Scenario.Name, ylabel: "ms (log scale)", logY: true}
	tp := figure{file: r.Scenario.Name + "-throughput", title: "Throughput - " + r.Scenario.Name, ylabel: "pods/s"}
	spr := figure{file: r.Scenario.Name + "-spread", title: "Bind spread (last bind - first bind) - " + r.Scenario.Name, ylabel: "ms"}
	pre := figure{file: r.Scenario.Name + "-preemption", title: "Preemption latency and its parts (p50, client side) - " + r.Scenario.Name, ylabel: "ms (log scale)", logY: true,
		xlabel: "victim PodGroup size (pods)", dashed: " total"}
	for _, cv := range curves(r) {
		w, srs := cv.workload, cv.sizes
		preemption := isPreemption(r.Scenario, w)
		if preemption {
			pre.series = append(pre.series, preemptionSeries(w, srs)...)
		}
		for _, ql := range quantileLines {
			var l, s, c plotter.XYs
			for _, sr := range srs {
				x := float64(sr.Size)
				l = append(l, plotter.XY{X: x, Y: percentile(sortedMs(sr.Gangs, latency), ql.q)})
				s = append(s, plotter.XY{X: x, Y: percentile(sortedMs(sr.Gangs, spread), ql.q)})
				if v, _, _, ok := sr.Attempt.Quantile(ql.q); ok {
					c = append(c, plotter.XY{X: x, Y: v * 1000})
				}
			}
			// A preemption's latency has its own figure, with its parts.
			if !preemption {
				lat.series = append(lat.series, series{w + " " + ql.tag, l})
			}
			spr.series = append(spr.series, series{w + " " + ql.tag, s})
			if len(c) > 0 {
				srv.series = append(srv.series, series{w + " " + ql.tag, c})
			}
		}
		var t plotter.XYs
		for _, sr := range srs {
			// A concurrent workload bound within its first second of binds
			// has no throughput sample (throughputSampler).
			if len(sr.Throughput) == 0 {
				continue
			}
			v := append([]float64(nil), sr.Throughput...)
			sort.Float64s(v)
			t = append(t, plotter.XY{X: float64(sr.Size), Y: nearestRank(v, .5)})
		}
		if len(t) > 0 {
			tp.series = append(tp.series, series{w + " median", t})
		}
	}
	var out []figure
	for _, f := range []figure{lat, srv, tp, spr, pre} {
		if len(f.series) > 0 {
			out = append(out, f)
		}
	}
	return append(out, costFigures(r)...)
}

// curve is one workload's sizes, as recorded.
type curve struct {
	workload string
	sizes    []results.SizeResult
}

// curves are the workloads a plot draws a curve for, those of more than one
// size, in the order they first ran.
func curves(r *results.Result) []curve {
	var out []curve
	at := map[string]int{}
	for _, sr := range r.Sizes {
		i, ok := at[sr.Workload]
		if !ok {
			i = len(out)
			at[sr.Workload] = i
			out = append(out, curve{workload: sr.Workload})
		}
		out[i].sizes = append(out[i].sizes, sr)
	}
	return slices.DeleteFunc(out, func(c curve) bool { return len(c.sizes) < 2 })
}

// preemptionSeries are a preemption workload's lines: the two parts of
// the preemption latency and the latency, p50 against the victim gang's
// size.
func preemptionSeries(w string, srs []results.SizeResult) []series {
	var out []series
	for _, part := range []struct {
		tag  string
		pick func(results.GangResult) time.Duration
	}{{"victims gone", victimsGone}, {"preemptor bound", preemptorBound}, {"total", latency}} {
		var pts plotter.XYs
		for _, sr := range srs {
			pts = append(pts, plotter.XY{X: float64(sr.Size), Y: percentile(sortedMs(sr.Gangs, part.pick), .5)})
		}
		// The total is the later part, so it lies on one of them.
		out = append(out, series{w + " " + part.tag, pts})
	}
	return out
}

// Plot draws the scenario's figures into dir as SVG and PNG, and returns
// the SVG paths.
func Plot(dir string, r *results.Result) ([]string, error) {
	var files []string
	for _, f := range figures(r) {
		p := plot.New()
		p.Title.Text = f.title
		p.X.Label.Text = "PodGroup size (pods)"
		if f.xlabel != "" {
			p.X.Label.Text = f.xlabel
		}
		p.Y.Label.Text = f.ylabel
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = log2Ticks{}
		if f.logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		} else {
			p.Y.Min = 0
		}
		p.Legend.Top = true
		p.Legend.Left = true
		p.Add(plotter.NewGrid())
		for i, s := range f.series {
			pts := s.pts
			if f.logY {
				pts = positive(pts)
			}
			line, points, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, fmt.Errorf("plot %s: %w", f.file, err)
			}
			c := palette[i%len(palette)]
			line.Color, points.Color = c, c
			if f.dashed != "" && strings.HasSuffix(s.name, f.dashed) {
				line.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
			}
			points.Shape = draw.CircleGlyph{}
			p.Add(line, points)
			p.Legend.Add(s.name, line, points)
		}
		for _, ext := range []string{"svg", "png"} {
			path := filepath.Join(dir, f.file+"."+ext)
			if err := p.Save(8*vg.Inch, 4.5*vg.Inch, path); err != nil {
				return nil, err
			}
		}
		files = append(files, filepath.Join(dir, f.file+".svg"))
	}
	return files, nil
}

// positive drops points a log axis cannot show.
func positive(pts plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for _, p := range pts {
		if p.Y > 0 {
			out = append(out, p)
		}
	}
	return out
}

var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
}

// log2Ticks marks the powers of two on a log axis.
type log2Ticks struct{}

func (log2Ticks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for v := math.Exp2(math.Floor(math.Log2(math.Max(min, 1)))); v <= max*1.0001; v *= 2 {
		out = append(out, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
	}
	return out
}
