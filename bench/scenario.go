// Package bench measures how fast a scheduler places gangs: declarative
// scenarios, a runner that times every gang from the outside, the
// scheduler's own histograms where it exposes them, and result writers.
package bench

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/results"
)

//go:embed scenarios/*.yaml
var scenarioFiles embed.FS

// labelStandardSet marks what `make bench` runs without SCENARIO.
const labelStandardSet = "standard"

// Scenarios lists the embedded scenarios' names.
func Scenarios() []string {
	entries, _ := fs.ReadDir(scenarioFiles, "scenarios")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Load loads and validates the scenario called name.
func Load(name string) (*results.Scenario, error) {
	data, err := scenarioFiles.ReadFile(path.Join("scenarios", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(Scenarios(), ", "))
	}
	var s results.Scenario
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	if err := Validate(&s); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	return &s, nil
}

// Select resolves a comma-separated list of scenario names; empty means the
// standard set (every scenario labelled standard).
func Select(list string) ([]*results.Scenario, error) {
	var names []string
	if strings.TrimSpace(list) == "" {
		for _, n := range Scenarios() {
			s, err := Load(n)
			if err != nil {
				return nil, err
			}
			if slices.Contains(s.Labels, labelStandardSet) {
				names = append(names, n)
			}
		}
	} else {
		names = strings.Split(list, ",")
	}
	var out []*results.Scenario
	for _, n := range names {
		s, err := Load(strings.TrimSpace(n))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Validate checks the scenario against its cluster profile before any
// cluster starts: every gang it asks for must fit, every threshold name a
// figure the run measures.
func Validate(s *results.Scenario) error {
	prof, err := fixtures.LoadProfile(s.Cluster)
	if err != nil {
		return err
	}
	shape, err := fixtures.Shape(prof.Nodes.Shape)
	if err != nil {
		return err
	}
	if len(s.Workloads) == 0 {
		return fmt.Errorf("no workloads")
	}
	for _, w := range s.Workloads {
		if w.Policy != results.PolicyGang && w.Policy != results.PolicyBasic {
			return fmt.Errorf("workload %s: policy %q, want gang or basic", w.Name, w.Policy)
		}
		if w.Mode != results.ModeSequential && w.Mode != results.ModeConcurrent {
			return fmt.Errorf("workload %s: mode %q, want sequential or concurrent", w.Name, w.Mode)
		}
		if len(w.Requests) == 0 {
			return fmt.Errorf("workload %s: no pod requests", w.Name)
		}
		if len(w.Sizes) == 0 {
			return fmt.Errorf("workload %s: no sizes", w.Name)
		}
		for _, t := range w.Thresholds {
			if err := validateThreshold(t, w); err != nil {
				return fmt.Errorf("workload %s: %w", w.Name, err)
			}
		}
		if w.Preemption != nil {
			if err := validatePreemption(s, w, shape.Capacity, prof.Nodes.Count); err != nil {
				return fmt.Errorf("workload %s: %w", w.Name, err)
			}
		}
		perNode := podsPerNode(shape.Capacity, w.Requests)
		capacity := perNode * prof.Nodes.Count
		for _, size := range w.Sizes {
			n := w.GangsOf(size)
			if size < 1 || n < 1 {
				return fmt.Errorf("workload %s: size %d runs %d gangs; both must be at least 1", w.Name, size, n)
			}
			need := size
			if w.Mode == results.ModeConcurrent {
				need = size * n
			}
			if need > capacity {
				return fmt.Errorf("workload %s: size %d needs %d pods at once, above the capacity of %s (%d pods of these requests)",
					w.Name, size, need, s.Cluster, capacity)
			}
		}
	}
	return nil
}

// podsPerNode is how many pods of the given requests fit on one node.
func podsPerNode(capacity, requests corev1.ResourceList) int {
	fit := int(capacity.Pods().Value())
	for r, q := range requests {
		c, ok := capacity[r]
		if !ok || q.MilliValue() == 0 {
			if ok {
				continue
			}
			return 0
		}
		fit = min(fit, int(c.MilliValue()/q.MilliValue()))
	}
	return fit
}
