package bench

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"time"
)

// Each measurement (a sequential gang, a concurrent size) starts on a quiet
// cluster: removing a gang of 1024 pods leaves the API server, kwok and the
// scheduler busy with its deletion for a while after the pods are gone, and
// whichever gang came next was timed against it.
const (
	// QuietLimit is the CPU use, in cores, under which the control plane
	// and the scheduler together count as quiet; an idle gpu-5k cluster uses
	// about 0.04 here.
	QuietLimit    = 0.2
	QuietWindow   = 300 * time.Millisecond
	quietInterval = 100 * time.Millisecond
	// QuietTimeout bounds one wait; a cluster busy with someone else's work
	// is measured anyway, and the result counts it.
	QuietTimeout = 10 * time.Second
)

// Pacing is what the runner waited before its measurements and how fast the
// machine ran meanwhile.
type Pacing struct {
	Waits int `json:"waits"`
	// Waited is the time spent waiting for quiet, in all.
	Waited time.Duration `json:"waitedNs"`
	// Unquiet counts waits that ended at QuietTimeout.
	Unquiet int `json:"unquiet"`
	// Calibration holds the time of a fixed piece of CPU work (see
	// calibrationWork), taken on the quiet cluster before each measurement.
	// Two runs whose calibration medians differ ran on a machine of
	// different speed, whatever the scheduler did.
	Calibration []time.Duration `json:"calibrationNs"`
}

// CalibrationMedian is the median calibration time, 0 without samples.
func (p Pacing) CalibrationMedian() time.Duration {
	if len(p.Calibration) == 0 {
		return 0
	}
	s := slices.Clone(p.Calibration)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// pause waits until the processes are quiet, then times the calibration
// work. Without processes to watch it only calibrates.
func (p *Pacing) pause(ctx context.Context, pids map[string]int) error {
	if len(pids) > 0 {
		waited, quiet, err := settle(ctx, pids, QuietLimit, QuietWindow, QuietTimeout, quietInterval)
		if err != nil {
			return err
		}
		p.Waits++
		p.Waited += waited
		if !quiet {
			p.Unquiet++
		}
	}
	p.Calibration = append(p.Calibration, calibrationWork())
	return nil
}

// calibrationData is the fixed input of calibrationWork: the same
// pseudo-random numbers in every run.
var calibrationData = func() []uint64 {
	r := rand.New(rand.NewPCG(4671, 1))
	s := make([]uint64, 1<<16)
	for i := range s {
		s[i] = r.Uint64()
	}
	return s
}()

// calibrationWork sorts a copy of calibrationData: a few milliseconds of one
// core's work, the same in every run, timed.
func calibrationWork() time.Duration {
	s := slices.Clone(calibrationData)
	start := time.Now()
	slices.Sort(s)
	return time.Since(start)
}
