package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gangconf/gangconf/suites/framework/proc"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times; 100 on every
// Linux this runs on.
const clockTicks = 100

// CostMeter samples processes' CPU time and resident memory once a second.
type CostMeter struct {
	pids  map[string]int
	start map[string]float64
	peak  map[string]float64
	mu    sync.Mutex
	stop  chan struct{}
	done  chan struct{}
}

// StartCostMeter begins sampling the named processes.
func StartCostMeter(pids map[string]int) *CostMeter {
	m := &CostMeter{pids: pids, start: map[string]float64{}, peak: map[string]float64{}, stop: make(chan struct{}), done: make(chan struct{})}
	for name, pid := range pids {
		if cpu, err := cpuSeconds(pid); err == nil {
			m.start[name] = cpu
		}
	}
	go func() {
		defer close(m.done)
		wait.Until(m.sample, time.Second, m.stop)
	}()
	return m
}

func (m *CostMeter) sample() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, pid := range m.pids {
		if rss, err := rssMiB(pid); err == nil && rss > m.peak[name] {
			m.peak[name] = rss
		}
	}
}

// Stop ends sampling and returns each process's cost since the start.
func (m *CostMeter) Stop() []results.Cost {
	close(m.stop)
	<-m.done
	m.sample()
	var out []results.Cost
	for name, pid := range m.pids {
		c := results.Cost{Process: name, PeakRSSMiB: m.peak[name]}
		if cpu, err := cpuSeconds(pid); err == nil {
			c.CPUSeconds = cpu - m.start[name]
		}
		out = append(out, c)
	}
	// By name, so that reports list the processes in one order every run.
	slices.SortFunc(out, func(a, b results.Cost) int { return strings.Compare(a.Process, b.Process) })
	return out
}

// cpuSeconds is the process's user+system CPU time.
func cpuSeconds(pid int) (float64, error) {
	fields, err := proc.StatFields(pid)
	if err != nil {
		return 0, err
	}
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return (utime + stime) / clockTicks, nil
}

// cpuTime is the process's CPU time to the nanosecond: the sum of its
// threads' run times (/proc/<pid>/task/*/schedstat). /proc/<pid>/stat counts
// in 10 ms ticks, too coarse to tell a quiet tenth of a second from a busy
// one over several processes. A thread that exits takes its time along, so
// this is for short windows; cpuSeconds is for a whole scenario. Where the
// kernel keeps no schedstat, it falls back on cpuSeconds.
func cpuTime(pid int) (time.Duration, error) {
	if !haveSchedstat {
		s, err := cpuSeconds(pid)
		return time.Duration(s * float64(time.Second)), err
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, t := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread has exited
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			return 0, fmt.Errorf("empty /proc/%d/task/%s/schedstat", pid, t.Name())
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("malformed /proc/%d/task/%s/schedstat", pid, t.Name())
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}

// haveSchedstat is whether the kernel keeps per-thread run times
// (CONFIG_SCHED_INFO).
var haveSchedstat = func() bool {
	_, err := os.Stat("/proc/self/schedstat")
	return err == nil
}()

// rssMiB is the process's resident memory.
func rssMiB(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			kb, err := strconv.ParseFloat(f[0], 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
