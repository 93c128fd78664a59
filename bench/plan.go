package bench

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// BesideSchedulerName is the schedulerName of the pods the ceiling binds
// when it runs beside the scheduler under test, a name no scheduler has.
const BesideSchedulerName = "gangconf-ceiling"

// Plan is what make bench asked for, from the environment.
type Plan struct {
	Scenarios []*results.Scenario
	// Repeats is how many runs of each scenario are pooled into its result.
	Repeats int
	// Ceiling is the ceiling's kind when it is the scheduler under test;
	// nil otherwise.
	Ceiling *kinds.Kind
	// Beside is the binder that runs beside the scheduler under test; nil
	// for none.
	Beside *results.Beside
}

// ReadPlan reads SCENARIO, SIZES, REPEATS and BESIDE, and rejects bad ones
// before any cluster starts. When the ceiling is the scheduler under test,
// s becomes an external scheduler of its name: the binder runs in the
// benchmark's own process.
func ReadPlan(s *settings.Settings) (Plan, error) {
	var p Plan
	var err error
	if p.Scenarios, err = Select(os.Getenv("SCENARIO")); err != nil {
		return p, err
	}
	if err := restrictSizes(p.Scenarios, os.Getenv("SIZES")); err != nil {
		return p, err
	}
	p.Repeats = 1
	if v := os.Getenv("REPEATS"); v != "" {
		if p.Repeats, err = strconv.Atoi(v); err != nil || p.Repeats < 1 {
			return p, fmt.Errorf("REPEATS=%q: want a whole number of at least 1", v)
		}
	}
	// An unknown SCHEDULER is left to the settings' Validate.
	if k, err := kinds.Lookup(s.Scheduler); err == nil && k.Class == kinds.Ceiling {
		p.Ceiling = &k
		s.Scheduler, s.SchedulerName = string(kinds.External), k.SchedulerName
	}
	p.Beside, err = besideOf(os.Getenv("BESIDE"), p.Ceiling != nil)
	return p, err
}

// besideOf reads BESIDE: empty for none, or a bench-only kind (the ceiling).
func besideOf(v string, useCeiling bool) (*results.Beside, error) {
	if v == "" {
		return nil, nil
	}
	k, err := kinds.Lookup(v)
	if err != nil || k.Class != kinds.Ceiling {
		return nil, fmt.Errorf("BESIDE=%q: only %s can run beside the scheduler under test", v, kinds.Ceiling)
	}
	if useCeiling {
		return nil, fmt.Errorf("BESIDE=%s: the ceiling is already the scheduler under test", v)
	}
	return &results.Beside{Name: k.Name, SchedulerName: BesideSchedulerName}, nil
}

// restrictSizes keeps only the listed PodGroup sizes (SIZES=1,8,64).
func restrictSizes(scenarios []*results.Scenario, list string) error {
	if strings.TrimSpace(list) == "" {
		return nil
	}
	keep := map[int]bool{}
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("SIZES=%q: want a comma list of whole numbers", list)
		}
		keep[n] = true
	}
	for _, s := range scenarios {
		had := map[int]bool{}
		for i := range s.Workloads {
			var sizes []int
			for _, n := range s.Workloads[i].Sizes {
				had[n] = true
				if keep[n] {
					sizes = append(sizes, n)
				}
			}
			s.Workloads[i].Sizes = sizes
		}
		var ws []results.Workload
		for _, w := range s.Workloads {
			if len(w.Sizes) > 0 {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			return fmt.Errorf("scenario %s has none of SIZES=%s: choose among its sizes %v", s.Name, list, slices.Sorted(maps.Keys(had)))
		}
		s.Workloads = ws
	}
	return nil
}
