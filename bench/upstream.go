package bench

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// UpstreamPackage is the import path of scheduler_perf's PodGroup topics;
// the gang and basic policies are separate packages below it.
const UpstreamPackage = "k8s.io/kubernetes/test/integration/scheduler_perf/podgroup"

// upstreamTopics maps a gangconf policy to upstream's package and test case.
var upstreamTopics = map[string][2]string{
	results.PolicyGang:  {"gangscheduling", "GangScheduling"},
	results.PolicyBasic: {"basicscheduling", "BasicScheduling"},
}

// UpstreamWorkloads lists the workloads of the upstream scenario that names
// selects (a comma list; empty selects all), with upstream's parameters as
// gangconf's scenario implies them.
func UpstreamWorkloads(s *results.Scenario, names string) ([]results.UpstreamWorkload, error) {
	prof, err := fixtures.LoadProfile(s.Cluster)
	if err != nil {
		return nil, err
	}
	var all []results.UpstreamWorkload
	for _, w := range s.Workloads {
		topic, ok := upstreamTopics[w.Policy]
		if !ok || w.Mode != results.ModeConcurrent || len(w.Sizes) != 1 {
			return nil, fmt.Errorf("workload %s of %s has no upstream counterpart (want one size, concurrent, gang or basic)", w.Name, s.Name)
		}
		all = append(all, results.UpstreamWorkload{Name: w.Name, Policy: w.Policy, Package: topic[0], TestCase: topic[1],
			Nodes: prof.Nodes.Count, PodGroups: w.GangsOf(w.Sizes[0]), PodsPerGroup: w.Sizes[0]})
	}
	if strings.TrimSpace(names) == "" {
		return all, nil
	}
	var out []results.UpstreamWorkload
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		i := slices.IndexFunc(all, func(w results.UpstreamWorkload) bool { return w.Name == n })
		if i < 0 {
			var known []string
			for _, w := range all {
				known = append(known, w.Name)
			}
			return nil, fmt.Errorf("unknown upstream workload %q (known: %s)", n, strings.Join(known, ", "))
		}
		if !slices.ContainsFunc(out, func(w results.UpstreamWorkload) bool { return w.Name == n }) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// upstreamConfig is the part of a scheduler_perf performance-config.yaml
// that says which workloads exist and with which parameters.
type upstreamConfig []struct {
	Name      string   `json:"name"`
	Labels    []string `json:"labels"`
	Workloads []struct {
		Name   string         `json:"name"`
		Labels []string       `json:"labels"`
		Params map[string]any `json:"params"`
	} `json:"workloads"`
}

// CheckUpstreamConfig checks that upstream's performance-config.yaml has the
// workload, labelled performance, with the parameters gangconf's copy of it
// uses: if upstream changed it, the two figures would not be of one workload.
func CheckUpstreamConfig(configYAML []byte, w results.UpstreamWorkload) error {
	var cfg upstreamConfig
	if err := yaml.Unmarshal(configYAML, &cfg); err != nil {
		return fmt.Errorf("upstream performance-config.yaml: %w", err)
	}
	for _, tc := range cfg {
		if tc.Name != w.TestCase {
			continue
		}
		for _, uw := range tc.Workloads {
			if uw.Name != w.Name {
				continue
			}
			if !slices.Contains(append(tc.Labels, uw.Labels...), "performance") {
				return fmt.Errorf("upstream %s/%s is not labelled performance", w.TestCase, w.Name)
			}
			for k, want := range map[string]int{"initNodes": w.Nodes, "initPodGroups": w.PodGroups, "podsPerGroup": w.PodsPerGroup} {
				if got, ok := uw.Params[k].(float64); !ok || int(got) != want {
					return fmt.Errorf("upstream %s/%s has %s %v, gangconf's copy %d", w.TestCase, w.Name, k, uw.Params[k], want)
				}
			}
			return nil
		}
		return fmt.Errorf("upstream test case %s has no workload %s", w.TestCase, w.Name)
	}
	return fmt.Errorf("upstream performance-config.yaml has no test case %s", w.TestCase)
}

// UpstreamBenchRegexp selects the workloads, all of one test case, for the
// test binary's -test.bench flag.
func UpstreamBenchRegexp(testCase string, ws []results.UpstreamWorkload) string {
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
	}
	return fmt.Sprintf("^BenchmarkPerfScheduling$/^%s$/^(%s)$", testCase, strings.Join(names, "|"))
}

// upstreamItem is a DataItem as scheduler_perf writes it: data keyed by
// free-form names (Perc50..., or Duration), labels as they come.
type upstreamItem struct {
	Data   map[string]float64 `json:"data"`
	Unit   string             `json:"unit"`
	Labels map[string]string  `json:"labels"`
}

// Upstream metrics gangconf also measures, and the name it gives them; the
// attempt histogram only for gangs that were scheduled, as gangconf reads it.
var upstreamMetrics = map[string]struct {
	metric string
	match  map[string]string
}{
	results.ItemThroughput: {results.ItemThroughput, nil},
	MetricAttempt:          {results.ItemAttempt, map[string]string{"result": "scheduled"}},
	MetricAlgorithm:        {results.ItemAlgorithm, nil},
}

// upstreamWorkloadOf finds test case and workload in an upstream Name label,
// which reads BenchmarkPerfScheduling/<test case>/<workload>/<namespace>.
func upstreamWorkloadOf(name string) (testCase, workload string, ok bool) {
	parts := strings.Split(name, "/")
	for i := 0; i+1 < len(parts); i++ {
		for _, topic := range upstreamTopics {
			if parts[i] == topic[1] {
				return parts[i], parts[i+1], true
			}
		}
	}
	return "", "", false
}

// ConvertUpstream turns the DataItems file that upstream scheduler_perf wrote
// into gangconf's DataItems for the workloads given, named as gangconf names
// its own results (<scenario>/<workload>/size=<n>) so that the two join.
// Metrics gangconf has no counterpart of are left out. Every workload must
// have its throughput in the file: one without it did not run.
func ConvertUpstream(data []byte, scenario string, ws []results.UpstreamWorkload) (results.DataItems, error) {
	var in struct {
		Version   string         `json:"version"`
		DataItems []upstreamItem `json:"dataItems"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return results.DataItems{}, fmt.Errorf("upstream DataItems: %w", err)
	}
	byKey := map[string]results.UpstreamWorkload{}
	for _, w := range ws {
		byKey[w.TestCase+"/"+w.Name] = w
	}
	out := results.DataItems{Version: "v1"}
	found := map[string]bool{}
	for _, it := range in.DataItems {
		m, ok := upstreamMetrics[it.Labels["Metric"]]
		if !ok || !matches(it.Labels, m.match) {
			continue
		}
		tc, wl, ok := upstreamWorkloadOf(it.Labels["Name"])
		if !ok {
			return results.DataItems{}, fmt.Errorf("upstream DataItem named %q: no test case and workload in it", it.Labels["Name"])
		}
		w, ok := byKey[tc+"/"+wl]
		if !ok {
			continue
		}
		sum, err := upstreamSummary(it)
		if err != nil {
			return results.DataItems{}, fmt.Errorf("upstream %s %s: %w", it.Labels["Name"], it.Labels["Metric"], err)
		}
		if want := unitOf(m.metric); it.Unit != want {
			// A ratio of figures in two units would be no ratio.
			return results.DataItems{}, fmt.Errorf("upstream %s %s in %q, gangconf's in %q", it.Labels["Name"], it.Labels["Metric"], it.Unit, want)
		}
		sr := results.SizeResult{Workload: w.Name, Mode: results.ModeConcurrent, Policy: w.Policy, Size: w.PodsPerGroup}
		out.DataItems = append(out.DataItems, item(m.metric, itemName(scenario, sr), sr, sum, nil))
		if m.metric == results.ItemThroughput {
			found[w.Name] = true
		}
	}
	var missing []string
	for _, w := range ws {
		if !found[w.Name] {
			missing = append(missing, w.TestCase+"/"+w.Name)
		}
	}
	if len(missing) > 0 {
		return results.DataItems{}, fmt.Errorf("upstream DataItems have no SchedulingThroughput for %s", strings.Join(missing, ", "))
	}
	sort.SliceStable(out.DataItems, func(i, j int) bool {
		return out.DataItems[i].Labels["Name"] < out.DataItems[j].Labels["Name"]
	})
	return out, nil
}

func matches(labels, match map[string]string) bool {
	for k, v := range match {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// upstreamSummary reads the percentiles gangconf's Summary has; upstream
// writes all five for throughput and histograms.
func upstreamSummary(it upstreamItem) (results.Summary, error) {
	var s results.Summary
	for key, dst := range map[string]*float64{"Perc50": &s.Perc50, "Perc90": &s.Perc90, "Perc95": &s.Perc95, "Perc99": &s.Perc99, "Average": &s.Average} {
		v, ok := it.Data[key]
		if !ok {
			return s, fmt.Errorf("no %s in data %v", key, it.Data)
		}
		*dst = v
	}
	return s, nil
}
