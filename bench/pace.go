package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// Each measurement (a sequential gang, a concurrent size) starts on a quiet
// cluster: removing a gang of 1024 pods leaves the API server, kwok and the
// scheduler busy with its deletion for a while after the pods are gone, and
// whichever gang came next was timed against it.
const (
	// QuietLimit is the CPU use, in cores, under which the control plane
	// and the scheduler together count as quiet; an idle gpu-5k cluster uses
	// about 0.04 here.
	QuietLimit = 0.2
	// QuietWindow is the floor of every wait, paid 696 times in the sweep:
	// at 300 ms it took 3.5 of its 4 min of waits, while CPU time came in
	// 10 ms ticks. cpuTime counts nanoseconds, and a tenth
	// of a second tells a quiet cluster from one still busy removing a gang.
	QuietWindow   = 100 * time.Millisecond
	quietInterval = 25 * time.Millisecond
	// QuietTimeout bounds one wait; a cluster busy with someone else's work
	// is measured anyway, and the result counts it.
	QuietTimeout = 10 * time.Second
)

// pacer paces a run's measurements and records where the time went in its
// Pacing.
type pacer struct {
	*results.Pacing
	// lastCollection is when the API server last collected its garbage.
	lastCollection time.Time
}

// A benchmark cluster's API server collects its garbage only near its memory
// limit (APIServerEnv): under the sweep's load once a minute, each collection
// marking for 0.6-3.6 s. In one sweep such a collection fell inside 8 of its
// 696 gangs and made them 1.2-1.7 times as slow. The runner therefore has it
// collect between measurements, often enough that it does not reach the
// limit by itself (there, 62 s or more apart): at the first pause CollectEvery after the last
// collection, and before every concurrent measurement, which allocates most.
const CollectEvery = 30 * time.Second

// pause waits until the processes are quiet, then times the calibration
// work. When due (or forced), the API server collects its garbage
// meanwhile: collect asks it to; nil, never. Without processes to watch it
// only calibrates.
func (p *pacer) pause(ctx context.Context, pids map[string]int, collect func(context.Context) error, force bool) error {
	var collecting chan error
	if collect != nil && (force || time.Since(p.lastCollection) >= CollectEvery) {
		// The collection overlaps the wait, which a large gang's removal
		// needs anyway.
		collecting = make(chan error, 1)
		go func() { collecting <- collect(ctx) }()
	}
	err := p.waitQuiet(ctx, pids)
	if collecting != nil {
		var cerr error
		select {
		case cerr = <-collecting:
		default:
			// Still collecting when the rest was quiet: quiet again after.
			if cerr = <-collecting; cerr == nil && err == nil {
				err = p.waitQuiet(ctx, pids)
			}
		}
		if cerr != nil {
			return fmt.Errorf("have the API server collect its garbage: %w", cerr)
		}
		p.Collections++
		p.lastCollection = time.Now()
	}
	if err != nil {
		return err
	}
	p.Calibration.CPU = append(p.Calibration.CPU, sortWork())
	p.Calibration.Memory = append(p.Calibration.Memory, memoryWork())
	return nil
}

// addTime starts a clock and returns what stops it, adding the time in
// between to total.
func addTime(total *time.Duration) (stop func()) {
	start := time.Now()
	return func() { *total += time.Since(start) }
}

// waitQuiet waits until the processes are quiet, and counts the wait.
func (p *pacer) waitQuiet(ctx context.Context, pids map[string]int) error {
	if len(pids) == 0 {
		return nil
	}
	waited, quiet, err := settle(ctx, pids, QuietLimit, QuietWindow, QuietTimeout, quietInterval)
	if err != nil {
		return err
	}
	p.Waits++
	p.Waited += waited
	if !quiet {
		p.Unquiet++
	}
	return nil
}

// sortInput is the fixed input of sortWork: the same pseudo-random numbers
// in every run, 512 KiB.
var sortInput = func() []uint64 {
	r := rand.New(rand.NewPCG(4671, 1))
	s := make([]uint64, 1<<16)
	for i := range s {
		s[i] = r.Uint64()
	}
	return s
}()

// sortWork sorts a copy of sortInput, timed: a few milliseconds of one core.
func sortWork() time.Duration {
	s := slices.Clone(sortInput)
	start := time.Now()
	slices.Sort(s)
	return time.Since(start)
}

// memoryCycle is one cycle through 64 MiB of indices in a fixed
// pseudo-random order (Sattolo's shuffle), so that each step of a walk
// waits for memory rather than the cache or the prefetcher. Built on first
// use.
var memoryCycle = sync.OnceValue(func() []uint32 {
	r := rand.New(rand.NewPCG(4671, 2))
	c := make([]uint32, 1<<24)
	for i := range c {
		c[i] = uint32(i)
	}
	for i := len(c) - 1; i > 0; i-- {
		j := r.IntN(i)
		c[i], c[j] = c[j], c[i]
	}
	return c
})

// memorySteps is how far memoryWork walks: some 10 ms here.
const memorySteps = 1 << 16

// memoryWork walks memorySteps steps of memoryCycle, timed.
func memoryWork() time.Duration {
	c := memoryCycle()
	start := time.Now()
	i := uint32(0)
	for n := 0; n < memorySteps; n++ {
		i = c[i]
	}
	d := time.Since(start)
	walkEnd = i
	return d
}

// walkEnd keeps memoryWork's walk from being optimised away.
var walkEnd uint32

// APIServerEnv is the Go runtime setting of a benchmark cluster's API
// server, for a machine of memoryKiB: no garbage collection until its heap
// reaches a quarter of the memory, at most 6 GiB. At Go's default the API
// server of gpu-5k (some 0.4-1.1 GiB live) collected every 2-9 s under
// load, each time marking for 0.3-0.9 s on one of the two cores, so a gang
// was timed with or without a collection in it by chance. Machines under
// 8 GiB keep the default, where a heap near the limit would collect
// without end.
func APIServerEnv(memoryKiB int64) map[string]string {
	limit := min(memoryKiB/4, 6<<20)
	if limit < 2<<20 {
		return nil
	}
	return map[string]string{"GOGC": "off", "GOMEMLIMIT": fmt.Sprintf("%dMiB", limit>>10)}
}
