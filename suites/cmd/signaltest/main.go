// Command signaltest stops gangconf runs with a signal at random moments and
// checks that each run leaves nothing behind: it starts `make conformance`
// (a short LABEL_FILTER) or `make bench SCENARIO=smoke`, each point in a
// directory of its own, sends SIGINT (to the process group, as a terminal's
// Ctrl-C) or SIGTERM (to make, as kill does) once the run has reached a phase
// (compile, cluster-up, nodes, specs, teardown) and a random delay has passed,
// and then checks that make exited non-zero with a line saying it was
// stopped, and that no process of the run, no cluster directory in its work
// directory and no port it listened on is left. What is left it kills, by
// PID, and the point fails. `make signal-test` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/klog/v2"
)

func main() {
	points := flag.Int("points", 20, "signals to send, one run each")
	seed := flag.Uint64("seed", 0, "random seed; 0 picks one (printed, so that a run can be replayed)")
	dir := flag.String("dir", "_output/signal-test", "where each point's results, cluster files and output go")
	root := flag.String("C", ".", "the gangconf checkout whose Makefile runs")
	targets := flag.String("targets", "conformance,bench", "what points run, comma list: conformance, bench")
	labelFilter := flag.String("label-filter", "item:9", "conformance's LABEL_FILTER: a few specs")
	only := flag.Int("only", 0, "run only this point of the plan (with -seed and -points, to replay a failure)")
	list := flag.Bool("list", false, "print the plan and exit")
	flag.Parse()
	// client-go logs the phase probes' failed requests to a cluster still
	// coming up; they are expected, and this output is a report.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	if flag.NArg() > 0 || *points < 1 || *only < 0 || *only > *points {
		flag.Usage()
		os.Exit(2)
	}
	ts, err := parseTargets(*targets)
	if err != nil {
		fmt.Fprintf(os.Stderr, "signaltest: %v\n", err)
		os.Exit(2)
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}
	c := config{make: "make", labelFilter: *labelFilter,
		stopTimeout: 3 * time.Minute, runTimeout: 10 * time.Minute, grace: 5 * time.Second}
	if c.root, err = filepath.Abs(*root); err == nil {
		c.dir, err = filepath.Abs(*dir)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "signaltest: %v\n", err)
		os.Exit(2)
	}
	fmt.Printf("signaltest: %d points, seed %d (replay with -seed %d -points %d, one point with -only N)\n", *points, *seed, *seed, *points)
	ps := plan(*seed, *points, ts)
	// An earlier test's points: their processes were killed then.
	if !*list {
		old, _ := filepath.Glob(filepath.Join(c.dir, "point-*"))
		for _, d := range old {
			_ = os.RemoveAll(d)
		}
	}
	if *only > 0 {
		ps = ps[*only-1 : *only]
	}
	if *list {
		for _, p := range ps {
			fmt.Printf("point %d: %s, %s, aimed at %s +%s\n", p.N, p.Target, signalName(p.Signal), p.Aim, p.delay.Round(time.Millisecond))
		}
		return
	}
	failed := 0
	for i := range ps {
		p := &ps[i]
		fmt.Printf("point %d/%d: %s, %s, aimed at %s +%s\n", p.N, *points, p.Target, signalName(p.Signal), p.Aim, p.delay.Round(time.Millisecond))
		p.run(context.Background(), c)
		if p.Failure != "" {
			failed++
		}
		p.print()
	}
	table := render(ps, *seed)
	fmt.Print("\n" + table)
	_ = os.WriteFile(filepath.Join(c.dir, "signal-test.md"), []byte(table), 0o644)
	if failed > 0 {
		fmt.Printf("signaltest: FAIL: %d of %d points (seed %d)\n", failed, len(ps), *seed)
		os.Exit(1)
	}
	fmt.Printf("signaltest: ok: %d points, nothing left behind (seed %d)\n", len(ps), *seed)
}

// print says how the point went, after its run.
func (p *point) print() {
	if p.Failure != "" {
		fmt.Printf("point %d: FAIL: %s\n", p.N, p.Failure)
	} else {
		fmt.Printf("point %d: ok: hit %s +%s, %s, %q, stopped in %s\n", p.N, p.Hit, p.After.Round(time.Millisecond), p.Exit, p.Said, p.StopTook.Round(100*time.Millisecond))
	}
	fmt.Printf("point %d: phases entered at %s; took %s\n", p.N, timeline(p.Entered), p.Took.Round(100*time.Millisecond))
	if len(p.TempLeft) > 0 {
		fmt.Printf("point %d: left in its TMPDIR: %s\n", p.N, strings.Join(p.TempLeft, ", "))
	}
	if len(p.LateWho) > 0 {
		fmt.Printf("point %d: outlived make by %s, then exited: %s\n", p.N, p.Late, strings.Join(p.LateWho, ", "))
	}
}

// timeline says when a run entered each phase it reached.
func timeline(entered map[phase]time.Duration) string {
	var parts []string
	for ph := phaseBuild; ph <= phaseTeardown; ph++ {
		if d, ok := entered[ph]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", ph, d.Round(100*time.Millisecond)))
		}
	}
	return strings.Join(parts, ", ")
}

func parseTargets(list string) ([]target, error) {
	var out []target
	for _, f := range strings.Split(list, ",") {
		switch t := target(strings.TrimSpace(f)); t {
		case targetConformance, targetBench:
			out = append(out, t)
		default:
			return nil, fmt.Errorf("-targets: unknown target %q (conformance, bench)", f)
		}
	}
	return out, nil
}

// plan draws n points from seed. The aimed phases go round every phase in a
// shuffled order, so that any five points in a row cover each phase once.
func plan(seed uint64, n int, targets []target) []point {
	r := rand.New(rand.NewPCG(seed, seed>>1|1))
	var aims []phase
	for len(aims) < n {
		round := []phase{phaseBuild, phaseClusterUp, phaseNodes, phaseSpecs, phaseTeardown}
		r.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		aims = append(aims, round...)
	}
	ps := make([]point, n)
	for i := range ps {
		ps[i] = pick(r, i+1, aims[i], targets)
	}
	return ps
}

// render is the result table, in Markdown.
func render(ps []point, seed uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Signal test, seed %d, %s\n\n", seed, time.Now().Format(time.DateTime))
	b.WriteString("| point | target | signal | aimed | hit | exit | says | late | leftovers | in TMPDIR | stopped in | took |\n")
	b.WriteString("| ---: | --- | --- | --- | --- | --- | --- | ---: | --- | --- | ---: | ---: |\n")
	for _, p := range ps {
		hit, stopped := "not sent", "-"
		if p.Sent {
			hit = fmt.Sprintf("%s +%s", p.Hit, p.After.Round(100*time.Millisecond))
			stopped = p.StopTook.Round(100 * time.Millisecond).String()
		}
		left := "none"
		if len(p.Leftovers) > 0 {
			left = strings.Join(p.Leftovers, "; ")
		}
		if p.Failure != "" && len(p.Leftovers) == 0 {
			left = "none; FAIL: " + p.Failure
		}
		said := p.Said
		if said == "" {
			said = "(none)"
		}
		temp := "-"
		if len(p.TempLeft) > 0 {
			temp = strings.Join(p.TempLeft, ", ")
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | `%s` | %s | %s | %s | %s | %s |\n", p.N, p.Target, signalName(p.Signal), p.Aim,
			hit, p.Exit, strings.ReplaceAll(said, "|", `\|`), p.Late, strings.ReplaceAll(left, "|", `\|`), temp, stopped, p.Took.Round(time.Second))
	}
	return b.String()
}
