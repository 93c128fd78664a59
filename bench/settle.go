package bench

import (
	"context"
	"time"
)

// Right after thousands of nodes turn Ready, the control plane is still
// digesting them: on gpu-5k here the API server, controller manager, etcd
// and kwok kept both cores busy for about 45 s (1.9 cores). Gangs timed in
// that window measure the cluster's start, not the scheduler, and a run's
// first sizes fell in it.
// The runner therefore waits until the control plane leaves most of the
// machine free before it times anything.

// SettleShare is the share of the machine's cores the control plane may use,
// averaged over SettleWindow, for the cluster to count as settled.
const (
	SettleShare   = 0.6
	SettleWindow  = 5 * time.Second
	SettleTimeout = 3 * time.Minute
)

// cpuWindow is a sliding window of per-interval CPU use.
type cpuWindow struct {
	size   int
	deltas []float64
}

// add records one interval's CPU seconds and returns the window's average
// use in cores, and whether the window is full.
func (w *cpuWindow) add(cpu float64, interval time.Duration) (float64, bool) {
	w.deltas = append(w.deltas, cpu)
	if len(w.deltas) > w.size {
		w.deltas = w.deltas[1:]
	}
	sum := 0.0
	for _, d := range w.deltas {
		sum += d
	}
	return sum / (float64(len(w.deltas)) * interval.Seconds()), len(w.deltas) == w.size
}

// Settle waits until the processes together use less than limit cores on
// average over window, sampling once a second. It returns how long it waited
// and whether they settled before timeout (if not, the caller measures
// anyway and says so). Processes that have gone are not counted.
func Settle(ctx context.Context, pids map[string]int, limit float64, window, timeout time.Duration) (time.Duration, bool, error) {
	return settle(ctx, pids, limit, window, timeout, time.Second)
}

func settle(ctx context.Context, pids map[string]int, limit float64, window, timeout, interval time.Duration) (time.Duration, bool, error) {
	start := time.Now()
	total := func() float64 {
		sum := 0.0
		for _, pid := range pids {
			if c, err := cpuTime(pid); err == nil {
				sum += c.Seconds()
			}
		}
		return sum
	}
	w := &cpuWindow{size: max(1, int(window/interval))}
	last := total()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return time.Since(start), false, ctx.Err()
		case <-tick.C:
		}
		now := total()
		avg, full := w.add(now-last, interval)
		last = now
		if full && avg < limit {
			return time.Since(start), true, nil
		}
		if time.Since(start) >= timeout {
			return time.Since(start), false, nil
		}
	}
}
