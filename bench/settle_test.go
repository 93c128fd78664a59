package bench

import (
	"context"
	"math"
	"os"
	"testing"
	"time"
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
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	waited, ok, err = settle(ctx, self, 0.1, 100*time.Millisecond, 500*time.Millisecond, 50*time.Millisecond)
	if err != nil || ok || waited < 500*time.Millisecond {
		t.Fatalf("busy process: waited %s, settled %v, %v; want a give-up after the timeout", waited, ok, err)
	}
}
