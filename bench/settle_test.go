package bench

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// Per-second CPU use of gpu-5k's control plane after its nodes turned Ready,
// sampled here (cores): busy digesting the nodes, then kwok's heartbeats.
func TestCPUWindowSettlesOnlyOnceTheWholeWindowIsUnderTheLimit(t *testing.T) {
	w := &cpuWindow{size: 5}
	samples := []float64{1.95, 1.88, 1.90, 1.86, 1.83, 0.97, 0.45, 0.05, 0.04, 0.80, 0.90}
	settledAt := -1
	for i, s := range samples {
		avg, full := w.add(s, time.Second)
		if i < 4 && full {
			t.Fatalf("window full after %d samples of 5", i+1)
		}
		if full && avg < 1.2 && settledAt < 0 {
			settledAt = i
		}
	}
	// Samples 3..7 average 1.03 cores: the first full window under 1.2.
	if settledAt != 7 {
		t.Fatalf("settled at sample %d, want 7", settledAt)
	}
	w = &cpuWindow{size: 2}
	w.add(0.5, 500*time.Millisecond)
	if avg, full := w.add(0.3, 500*time.Millisecond); !full || math.Abs(avg-0.8) > 1e-9 {
		t.Fatalf("0.8 CPU s over 1 s = %g cores (full %v), want 0.8", avg, full)
	}
}

func TestSettleWaitsForBusyProcessesAndGivesUp(t *testing.T) {
	ctx := context.Background()
	// This test process, idle while it waits: settles at once.
	self := map[string]int{"self": os.Getpid()}
	waited, ok, err := settle(ctx, self, 0.5, 100*time.Millisecond, 5*time.Second, 50*time.Millisecond)
	if err != nil || !ok || waited > 2*time.Second {
		t.Fatalf("idle process: waited %s, settled %v, %v", waited, ok, err)
	}
	// A process busy on one core never goes under a tenth of a core.
	defer spin(1)()
	waited, ok, err = settle(ctx, self, 0.1, 100*time.Millisecond, 500*time.Millisecond, 50*time.Millisecond)
	if err != nil || ok || waited < 500*time.Millisecond {
		t.Fatalf("busy process: waited %s, settled %v, %v; want a give-up after the timeout", waited, ok, err)
	}
}

func TestPauseCountsWaitsAndCalibratesEachTime(t *testing.T) {
	ctx := context.Background()
	p := pacer{Pacing: &results.Pacing{}}
	self := map[string]int{"self": os.Getpid()}
	for i := 0; i < 3; i++ {
		if err := p.pause(ctx, self, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.pause(ctx, nil, nil, false); err != nil {
		t.Fatal(err)
	}
	// Three waits on this idle process, none on no process; four samples.
	c := p.Calibration
	if p.Waits != 3 || p.Unquiet != 0 || p.Waited < 3*QuietWindow || len(c.CPU) != 4 || len(c.Memory) != 4 {
		t.Fatalf("pacing %+v", p)
	}
	for _, d := range append(c.CPU, c.Memory...) {
		if d <= 0 {
			t.Fatalf("calibration sample %s", d)
		}
	}
	if m := results.Median([]time.Duration{5, 1, 9}); m != 5 {
		t.Fatalf("median of 5, 1, 9 = %d", m)
	}
	if m := results.Median([]time.Duration{9, 1, 4, 5}); m != 4 {
		t.Fatalf("median of 9, 1, 4, 5 = %d, want the middle two's mean", m)
	}
	if results.Median([]time.Duration(nil)) != 0 {
		t.Fatal("no samples: median 0")
	}
}

// The calibration work must be the same in every run and every sample.
func TestCalibrationWorkIsFixed(t *testing.T) {
	if len(sortInput) != 1<<16 || slices.IsSorted(sortInput) {
		t.Fatal("sort input: 65536 numbers out of order")
	}
	first := slices.Clone(sortInput)
	sortWork()
	if !slices.Equal(first, sortInput) {
		t.Fatal("sortWork sorted its input in place: the next sample would time sorted data")
	}
	// One cycle through every index: a walk never settles in a short loop
	// that fits in the cache.
	c := memoryCycle()
	i, n := c[0], 1
	for i != 0 {
		i, n = c[i], n+1
	}
	if n != len(c) {
		t.Fatalf("the walk returns after %d of %d steps", n, len(c))
	}
}

func TestAPIServerCollectsAtAQuarterOfTheMemoryAtMost6GiB(t *testing.T) {
	for _, c := range []struct {
		gib  int64
		want string
	}{{4, ""}, {8, "2048MiB"}, {16, "4096MiB"}, {64, "6144MiB"}} {
		env := APIServerEnv(c.gib << 20)
		if env["GOMEMLIMIT"] != c.want || (c.want != "" && env["GOGC"] != "off") {
			t.Errorf("%d GiB: %v, want GOMEMLIMIT=%q", c.gib, env, c.want)
		}
	}
}

func TestPauseHasTheAPIServerCollectWhenDueAndWaitsForIt(t *testing.T) {
	ctx := context.Background()
	p := pacer{Pacing: &results.Pacing{}}
	self := map[string]int{"self": os.Getpid()}
	calls := 0
	// A collection outlasting the quiet wait: the pause must not end first.
	slow := func(context.Context) error {
		calls++
		time.Sleep(5 * QuietWindow)
		return nil
	}
	start := time.Now()
	if err := p.pause(ctx, self, slow, false); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || time.Since(start) < 5*QuietWindow || p.Waits != 2 {
		t.Fatalf("first pause: %d collections, took %s, %d waits; want one, waited for, quiet again after it", calls, time.Since(start), p.Waits)
	}
	// Not due again until CollectEvery has passed, unless forced.
	if err := p.pause(ctx, self, slow, false); err != nil {
		t.Fatal(err)
	}
	if err := p.pause(ctx, self, slow, true); err != nil {
		t.Fatal(err)
	}
	if calls != 2 || p.Collections != 2 {
		t.Fatalf("%d collections asked, %d counted; want 2 (first pause, forced pause)", calls, p.Collections)
	}
	failing := func(context.Context) error { return errors.New("403 Forbidden") }
	if err := p.pause(ctx, self, failing, true); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("failed collection: %v; want its error", err)
	}
}

// cpuTime sums all threads, and to the nanosecond where cpuSeconds counts
// 10 ms ticks: two goroutines spin until it has advanced 300 ms, and
// cpuSeconds must have seen about as much.
func TestCPUTimeCountsEveryThreadFinerThanATick(t *testing.T) {
	if !haveSchedstat {
		t.Skip("the kernel keeps no schedstat")
	}
	self := os.Getpid()
	before, err := cpuTime(self)
	if err != nil {
		t.Fatal(err)
	}
	ticksBefore, _ := cpuSeconds(self)
	stop := spin(2)
	var spent time.Duration
	err = wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 20*time.Second, false, func(context.Context) (bool, error) {
		now, err := cpuTime(self)
		spent = now - before
		return spent >= 300*time.Millisecond, err
	})
	stop()
	if err != nil {
		t.Fatalf("after %s of CPU time: %v", spent, err)
	}
	ticksAfter, _ := cpuSeconds(self)
	ticks := time.Duration((ticksAfter - ticksBefore) * float64(time.Second))
	if spent < 300*time.Millisecond || ticks < spent-50*time.Millisecond || ticks > spent+100*time.Millisecond {
		t.Fatalf("cpuTime saw %s, /proc/<pid>/stat %s", spent, ticks)
	}
	if spent%(10*time.Millisecond) == 0 {
		t.Errorf("cpuTime %s is a whole number of ticks", spent)
	}
}

// spin keeps n goroutines busy until the returned stop is called.
func spin(n int) (stop func()) {
	done := make(chan struct{})
	for range n {
		go func() {
			for {
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	return func() { close(done) }
}

func BenchmarkCPUTime(b *testing.B) {
	self := os.Getpid()
	for b.Loop() {
		if _, err := cpuTime(self); err != nil {
			b.Fatal(err)
		}
	}
}

// Each metered process gets its cost, listed by name whatever the map's order.
func TestCostMeterListsEveryProcessByName(t *testing.T) {
	pid := os.Getpid()
	costs := StartCostMeter(map[string]int{"scheduler": pid, "etcd": pid, "kube-apiserver": pid}).Stop()
	var names []string
	for _, c := range costs {
		names = append(names, c.Process)
		if c.PeakRSSMiB <= 0 {
			t.Errorf("%s: peak %v MiB, want it measured", c.Process, c.PeakRSSMiB)
		}
	}
	if got := strings.Join(names, ","); got != "etcd,kube-apiserver,scheduler" {
		t.Errorf("processes %s, want them by name", got)
	}
}
