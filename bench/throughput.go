package bench

import "time"

// throughputSampler turns running totals of pods bound, taken about once a
// second, into pods-per-second samples by upstream scheduler_perf's rules
// (its throughputCollector), so that gangconf's throughput and upstream's
// mean the same thing: sampling starts at the first tick that finds a pod
// bound, and that first interval is dropped, as it began before anything
// could bind; an interval with no pod bound records no zero but waits for
// the next bind, whose rate is then recorded once for each interval it
// spans; rates are over the time that passed between ticks. Counting the
// seconds before the first bind as zeros, as gangconf did before, made a
// workload's average depend on how long its first gang took to create.
type throughputSampler struct {
	// last is the total at the last tick that recorded or started the
	// sampling; zero until a pod is bound.
	last    int
	lastAt  time.Time
	skipped int
	samples []float64
}

// observe takes the total bound since the workload began, at a tick.
func (s *throughputSampler) observe(now time.Time, total int) {
	switch {
	case total == 0:
		return
	case s.last == 0:
		// The first tick with a pod bound: its interval is dropped.
	case total == s.last:
		s.skipped++
		return
	default:
		rate := float64(total-s.last) / now.Sub(s.lastAt).Seconds()
		for i := 0; i <= s.skipped; i++ {
			s.samples = append(s.samples, rate)
		}
		s.skipped = 0
	}
	s.last, s.lastAt = total, now
}
