package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// target is what a point runs.
type target string

const (
	targetConformance target = "conformance"
	targetBench       target = "bench"
)

// point is one signal at one moment of one run, and what it left.
type point struct {
	N      int
	Target target
	Signal syscall.Signal
	// Aim is the phase the moment was picked in; Hit the phase the run was
	// in when the signal went out; After how long after Hit began.
	Aim, Hit phase
	After    time.Duration
	delay    time.Duration
	// Entered is when the run entered each phase it reached, from its start.
	Entered map[phase]time.Duration
	// Sent says whether the signal went out before the run ended, and when.
	Sent   bool
	sentAt time.Time
	// Exit is how the run ended; Said the line of its output that says it
	// was stopped (empty when none did).
	Exit string
	Said string
	// Late is how long the last of the run's processes outlived make, and
	// LateWho which processes did (they exited within the grace period).
	Late      time.Duration
	LateWho   []string
	Leftovers []string
	// TempLeft is what the run left in its own TMPDIR: noted, not failed,
	// as none of it is a cluster's.
	TempLeft []string
	// Took is the point's whole time, StopTook from the signal to make's exit.
	Took, StopTook time.Duration
	Failure        string
}

func signalName(s syscall.Signal) string {
	if s == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}

// Delays after a phase's start, at most, by target: about how long the
// phase lasts on ci-small with a warm build cache, so that the moment falls
// inside it. Ginkgo compiles the suite for some 5 s, go build finds
// gangbench built; the benchmark's nodes phase includes its wait for a quiet
// cluster; its teardown is over in a few hundred milliseconds.
var maxDelay = map[target]map[phase]time.Duration{
	targetConformance: {
		phaseBuild:     4 * time.Second,
		phaseClusterUp: 2 * time.Second,
		phaseNodes:     800 * time.Millisecond,
		phaseSpecs:     6 * time.Second,
		phaseTeardown:  100 * time.Millisecond,
	},
	targetBench: {
		phaseBuild:     time.Second,
		phaseClusterUp: 2 * time.Second,
		phaseNodes:     3 * time.Second,
		phaseSpecs:     5 * time.Second,
		phaseTeardown:  40 * time.Millisecond,
	},
}

// pick draws a point's target, signal and moment; aim is given, so that the
// points cover every phase.
func pick(r *rand.Rand, n int, aim phase, targets []target) point {
	p := point{N: n, Aim: aim, Target: targets[r.IntN(len(targets))], Signal: syscall.SIGINT}
	if r.IntN(2) == 1 {
		p.Signal = syscall.SIGTERM
	}
	p.delay = time.Duration(r.Int64N(int64(maxDelay[p.Target][aim]) + 1))
	return p
}

// config is what every point shares.
type config struct {
	root, dir, make string
	labelFilter     string
	// stopTimeout bounds the wait for the run to end after the signal;
	// runTimeout the wait for the aimed moment.
	stopTimeout, runTimeout time.Duration
	// grace is how long the run's processes may take to exit after make
	// has (a component kwokctl has signalled, still exiting).
	grace time.Duration
}

// stoppedLine matches the line a stopped run ends with: the harness's own
// ("gangbench: stopped (terminated signal received)", and the suite's
// from hack/relay.sh), or make's when the signal came before the harness
// ran ("make: *** [Makefile:80: build] Interrupt"), maybe after the
// progress dots of the specs on the same line. The signal must be the one
// sent.
func stoppedLine(sig syscall.Signal) *regexp.Regexp {
	name := "interrupt"
	if sig == syscall.SIGTERM {
		name = "terminated"
	}
	return regexp.MustCompile(`(?i)(stopped \(` + name + ` signal received\)|make: \*\*\* \[.*\] ` + name + `$)`)
}

// run runs the point: starts make in a directory of its own, sends the
// signal at the moment picked, waits for the run to end, then looks for
// what it left behind, and removes it.
func (p *point) run(ctx context.Context, c config) {
	start := time.Now()
	defer func() { p.Took = time.Since(start) }()
	dir := filepath.Join(c.dir, fmt.Sprintf("point-%02d", p.N))
	results, workDir, tmp := filepath.Join(dir, "results"), filepath.Join(dir, "kwok"), filepath.Join(dir, "tmp")
	if err := freshDirs(dir, results, workDir, tmp); err != nil {
		p.Failure = err.Error()
		return
	}
	logPath := filepath.Join(dir, "output.log")
	out, err := os.Create(logPath)
	if err != nil {
		p.Failure = err.Error()
		return
	}
	defer out.Close()

	cmd := exec.Command(c.make, p.makeArgs(c, results, workDir)...)
	cmd.Dir = c.root
	// A TMPDIR of its own shows what the run leaves there (the go
	// command's work directories, e2e-framework's kubeconfig copy).
	cmd.Env = append(childEnv(), "TMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = out, out
	// A group of its own: SIGINT goes to it as a terminal's Ctrl-C does,
	// and nothing else of ours is in it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		p.Failure = fmt.Sprintf("start make: %v", err)
		return
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	// The trailing separator keeps point-01 from matching point-010.
	tr := newTracker(dir+string(filepath.Separator), cmd.Process.Pid)
	m := newMarkers(workDir, results, p.Target)
	p.watch(ctx, c, cmd, tr, m, exited)
	<-exited
	madeExit := time.Now()
	p.Exit = describeExit(cmd.ProcessState)
	if p.Sent {
		p.StopTook = madeExit.Sub(p.sentAt)
	}
	p.waitLate(tr, madeExit, c.grace)
	p.checkLeftovers(tr, workDir)
	if entries, err := os.ReadDir(tmp); err == nil {
		for _, e := range entries {
			p.TempLeft = append(p.TempLeft, e.Name())
		}
	}
	p.checkSaid(logPath)
	if p.Failure == "" {
		p.Failure = p.verdict(dir, logPath, m.phase, cmd.ProcessState.Success())
	}
	if p.Failure == "" {
		// Only a passing point's cluster files go; a failing one's stay to
		// be read (its processes are killed either way).
		_ = os.RemoveAll(workDir)
	}
}

// freshDirs empties dir and makes the subdirectories.
func freshDirs(dir string, subdirs ...string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, d := range subdirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// waitLate gives whatever the run started up to grace after make exited to
// finish exiting, and records how long it took and who was late.
func (p *point) waitLate(tr *tracker, madeExit time.Time, grace time.Duration) {
	for i := 0; time.Since(madeExit) < grace; i++ {
		tr.poll()
		alive := tr.alive()
		if len(alive) == 0 {
			break
		}
		if i == 0 {
			for _, q := range alive {
				p.LateWho = append(p.LateWho, q.comm)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.Late = time.Since(madeExit).Round(10 * time.Millisecond)
	if p.Late < 60*time.Millisecond {
		p.Late = 0
	}
}

// verdict is why the point failed, "" when it passed: a leftover, no
// signal sent, make exiting 0 after it, or no line saying it stopped.
func (p *point) verdict(dir, logPath string, ph phase, success bool) string {
	switch {
	case len(p.Leftovers) > 0:
		return fmt.Sprintf("left behind (processes now killed, files kept in %s): %s", dir, strings.Join(p.Leftovers, "; "))
	case !p.Sent:
		return fmt.Sprintf("the run ended (%s) before the signal, in phase %s; see %s", p.Exit, ph, logPath)
	case success:
		return fmt.Sprintf("make exited 0 after %s; see %s", signalName(p.Signal), logPath)
	case p.Said == "":
		return fmt.Sprintf("no line of the output says the run was stopped by %s; see %s", signalName(p.Signal), logPath)
	}
	return ""
}

func (p *point) makeArgs(c config, results, workDir string) []string {
	// -o build: make signal-test has built the binaries once; each run
	// checking them again would add some 8 s, and no cluster runs then.
	args := []string{"--no-print-directory", string(p.Target), "-o", "build",
		"RESULTS=" + results, "WORK_DIR=" + workDir,
		"PROVIDER=kwok", "CLUSTER=ci-small", "SCHEDULER=reference", "SCHEDULER_NAME="}
	if p.Target == targetBench {
		return append(args, "SCENARIO=smoke", "SIZES=", "REPEATS=1", "BESIDE=")
	}
	return append(args, "LABEL_FILTER="+c.labelFilter)
}

// childEnv is this process's environment without make's own variables: run
// from the Makefile, MAKEFLAGS would hand the outer make's variables
// (RESULTS among them) down to the run's make.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "KUBECONFIG", "TMPDIR":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// watch follows the run, sends the signal at the moment picked, and returns
// once make has exited, or has outlived its time (then it kills the run's
// processes so the wait ends).
func (p *point) watch(ctx context.Context, c config, cmd *exec.Cmd, tr *tracker, m *markers, exited chan struct{}) {
	const tick = 20 * time.Millisecond
	var fire time.Time
	current, start := phaseBuild, time.Now()
	entered := start
	p.Entered = map[phase]time.Duration{phaseBuild: 0}
	deadline := time.Now().Add(c.runTimeout)
	for i := 0; ; i++ {
		select {
		case <-exited:
			tr.poll()
			return
		case <-time.After(tick):
		}
		if i%5 == 0 {
			tr.poll()
		}
		if i%25 == 0 {
			tr.pollPorts()
		}
		if ph := m.observe(ctx); ph != current {
			current, entered = ph, time.Now()
			p.Entered[ph] = entered.Sub(start)
		}
		now := time.Now()
		switch {
		case !p.Sent && current >= p.Aim && fire.IsZero():
			fire = now.Add(p.delay)
		case !p.Sent && !fire.IsZero() && !now.Before(fire):
			p.Hit, p.After = current, now.Sub(entered)
			p.send(cmd.Process.Pid)
			p.Sent, p.sentAt = true, now
		case !p.Sent && now.After(deadline):
			p.Failure = fmt.Sprintf("phase %s not reached within %s (the run was in %s)", p.Aim, c.runTimeout, current)
			p.killAll(tr, cmd.Process.Pid)
			<-exited
			return
		case p.Sent && now.Sub(p.sentAt) > c.stopTimeout:
			p.Failure = fmt.Sprintf("make still running %s after %s", c.stopTimeout, signalName(p.Signal))
			p.killAll(tr, cmd.Process.Pid)
			<-exited
			return
		}
	}
}

// send delivers the signal as it comes in life: SIGINT to the whole process
// group, as a terminal's Ctrl-C; SIGTERM to make alone, as kill(1), timeout(1)
// or a CI runner's cancel does.
func (p *point) send(makePID int) {
	if p.Signal == syscall.SIGINT {
		_ = syscall.Kill(-makePID, syscall.SIGINT)
		return
	}
	_ = syscall.Kill(makePID, syscall.SIGTERM)
}

// killAll ends a run that did not stop: its process group, then every
// process of it found since.
func (p *point) killAll(tr *tracker, pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	tr.poll()
	for _, q := range tr.alive() {
		_ = kill(q)
	}
}

// checkLeftovers names every process, cluster directory and listening port
// the run left, and kills the processes, by PID, only the run's. The
// directories stay to be read; the next signal test removes them.
func (p *point) checkLeftovers(tr *tracker, workDir string) {
	tr.poll()
	alive := tr.alive()
	// Ports first: they close with the processes.
	p.Leftovers = append(p.Leftovers, tr.openPorts()...)
	for _, q := range alive {
		p.Leftovers = append(p.Leftovers, "process "+q.String())
		if err := kill(q); err != nil {
			p.Leftovers = append(p.Leftovers, fmt.Sprintf("could not kill PID %d: %v", q.id.pid, err))
		}
	}
	for _, pattern := range []string{"clusters/*", "run-*"} {
		dirs, _ := filepath.Glob(filepath.Join(workDir, pattern))
		for _, d := range dirs {
			rel, _ := filepath.Rel(workDir, d)
			p.Leftovers = append(p.Leftovers, "cluster directory "+rel)
		}
	}
}

// checkSaid finds the line of the run's output that says it was stopped.
func (p *point) checkSaid(logPath string) {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return
	}
	re := stoppedLine(p.Signal)
	for _, line := range strings.Split(string(data), "\n") {
		if re.MatchString(strings.TrimSpace(line)) {
			p.Said = strings.TrimSpace(line)
			return
		}
	}
}

func describeExit(st *os.ProcessState) string {
	if st == nil {
		return "unknown"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("exit %d", st.ExitCode())
}
