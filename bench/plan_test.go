package bench

import (
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/settings"
)

// readPlanWith reads the plan from env (every plan variable not named
// there unset) for SCHEDULER=scheduler.
func readPlanWith(t *testing.T, scheduler string, env map[string]string) (Plan, settings.Settings, error) {
	t.Helper()
	for _, k := range []string{"SCENARIO", "SIZES", "REPEATS", "BESIDE"} {
		t.Setenv(k, env[k])
	}
	s := settings.Settings{Scheduler: scheduler}
	p, err := ReadPlan(&s)
	return p, s, err
}

func TestBadBenchPlansAreRejectedWithWhatToDo(t *testing.T) {
	cases := []struct {
		name      string
		scheduler string
		env       map[string]string
		want      string
	}{
		{"unknown scenario", "reference", map[string]string{"SCENARIO": "nope"}, `unknown scenario "nope" (known: gang-size-sweep, gang-size-sweep-15k, smoke, upstream-gangs, workload-preemption)`},
		{"sizes that are no numbers", "reference", map[string]string{"SCENARIO": "smoke", "SIZES": "8x"}, `SIZES="8x": want a comma list of whole numbers`},
		{"a size of zero", "reference", map[string]string{"SCENARIO": "smoke", "SIZES": "0"}, `SIZES="0": want a comma list of whole numbers`},
		{"sizes the scenario lacks", "reference", map[string]string{"SCENARIO": "smoke", "SIZES": "3"},
			"scenario smoke has none of SIZES=3: choose among its sizes [1 2 4 8]"},
		{"no repeats", "reference", map[string]string{"SCENARIO": "smoke", "REPEATS": "0"}, `REPEATS="0": want a whole number of at least 1`},
		{"repeats that are no number", "reference", map[string]string{"SCENARIO": "smoke", "REPEATS": "two"}, `REPEATS="two": want a whole number of at least 1`},
		{"beside a scheduler that is not the ceiling", "reference", map[string]string{"SCENARIO": "smoke", "BESIDE": "reference"},
			`BESIDE="reference": only ceiling can run beside the scheduler under test`},
		{"the ceiling beside itself", "ceiling", map[string]string{"SCENARIO": "smoke", "BESIDE": "ceiling"},
			"BESIDE=ceiling: the ceiling is already the scheduler under test"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readPlanWith(t, c.scheduler, c.env)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
}

func TestGoodBenchPlans(t *testing.T) {
	p, s, err := readPlanWith(t, "reference", map[string]string{"SCENARIO": "smoke", "SIZES": "4", "REPEATS": "2", "BESIDE": "ceiling"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Scenarios) != 1 || p.Repeats != 2 || p.Ceiling != nil || p.Beside == nil || p.Beside.SchedulerName != BesideSchedulerName {
		t.Fatalf("plan = %+v", p)
	}
	for _, w := range p.Scenarios[0].Workloads {
		if len(w.Sizes) != 1 || w.Sizes[0] != 4 {
			t.Errorf("workload %s keeps sizes %v, want [4]", w.Name, w.Sizes)
		}
	}
	if s.Scheduler != "reference" {
		t.Errorf("SCHEDULER became %s", s.Scheduler)
	}
	// The ceiling under test runs in the benchmark's process: the harness
	// sees an external scheduler of its name.
	p, s, err = readPlanWith(t, "ceiling", map[string]string{"SCENARIO": "smoke"})
	if err != nil || p.Ceiling == nil || p.Repeats != 1 || s.Scheduler != "external" || s.SchedulerName != "default-scheduler" {
		t.Fatalf("ceiling plan = %+v, settings %+v, %v", p, s, err)
	}
}
