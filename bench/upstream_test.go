package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/results"
)

func upstreamWorkloads(t *testing.T, names string) []results.UpstreamWorkload {
	t.Helper()
	s, err := Load(results.UpstreamScenario)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := UpstreamWorkloads(s, names)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestUpstreamWorkloadsComeFromTheScenario(t *testing.T) {
	ws := upstreamWorkloads(t, "")
	if len(ws) != 6 {
		t.Fatalf("%d workloads, want the six of %s", len(ws), results.UpstreamScenario)
	}
	want := results.UpstreamWorkload{Name: "5000Nodes_3Groups_3000Pods_1000PerGroup", Policy: results.PolicyBasic, Package: "basicscheduling",
		TestCase: "BasicScheduling", Nodes: 5000, PodGroups: 3, PodsPerGroup: 1000}
	if ws[5] != want {
		t.Fatalf("last workload = %+v, want %+v", ws[5], want)
	}
	ws = upstreamWorkloads(t, "5000Nodes_2000Gangs_6000Pods, 5000Nodes_2000Gangs_6000Pods")
	if len(ws) != 1 || ws[0].TestCase != "GangScheduling" || ws[0].PodGroups != 2000 || ws[0].PodsPerGroup != 3 {
		t.Fatalf("selected = %+v", ws)
	}
	s, _ := Load(results.UpstreamScenario)
	if _, err := UpstreamWorkloads(s, "5000Nodes_1000Gangs_3000Pods,SchedulingBasic"); err == nil ||
		!strings.Contains(err.Error(), `unknown upstream workload "SchedulingBasic" (known: 5000Nodes_1000Gangs_3000Pods,`) {
		t.Fatalf("unknown workload: %v", err)
	}
	sweep, _ := Load("gang-size-sweep")
	if _, err := UpstreamWorkloads(sweep, ""); err == nil || !strings.Contains(err.Error(), "no upstream counterpart") {
		t.Fatalf("a sweep has no upstream counterpart: %v", err)
	}
}

const upstreamConfigYAML = `
- name: GangScheduling
  featureGates:
    GenericWorkload: true
  workloads:
  - name: 10Nodes_3Gangs
    labels: [integration-test, short]
    params: {initNodes: 10, initPodGroups: 3, podsPerGroup: 3}
  - name: 5000Nodes_2000Gangs_6000Pods
    labels: [performance]
    params: {initNodes: 5000, initPodGroups: 2000, podsPerGroup: 3}
`

func TestUpstreamConfigMustMatchGangconfsCopy(t *testing.T) {
	w := upstreamWorkloads(t, "5000Nodes_2000Gangs_6000Pods")[0]
	if err := CheckUpstreamConfig([]byte(upstreamConfigYAML), w); err != nil {
		t.Fatalf("matching workload: %v", err)
	}
	changed := strings.Replace(upstreamConfigYAML, "initPodGroups: 2000", "initPodGroups: 2500", 1)
	if err := CheckUpstreamConfig([]byte(changed), w); err == nil || !strings.Contains(err.Error(), "initPodGroups 2500, gangconf's copy 2000") {
		t.Fatalf("changed parameter: %v", err)
	}
	unlabelled := strings.Replace(upstreamConfigYAML, "labels: [performance]", "labels: [integration-test]", 1)
	if err := CheckUpstreamConfig([]byte(unlabelled), w); err == nil || !strings.Contains(err.Error(), "not labelled performance") {
		t.Fatalf("workload outside the performance label: %v", err)
	}
	w.Name = "5000Nodes_1000Gangs_3000Pods"
	if err := CheckUpstreamConfig([]byte(upstreamConfigYAML), w); err == nil || !strings.Contains(err.Error(), "no workload 5000Nodes_1000Gangs_3000Pods") {
		t.Fatalf("missing workload: %v", err)
	}
	w.TestCase = "BasicScheduling"
	if err := CheckUpstreamConfig([]byte(upstreamConfigYAML), w); err == nil || !strings.Contains(err.Error(), "no test case BasicScheduling") {
		t.Fatalf("missing test case: %v", err)
	}
}

// The bench regexp is matched level by level against the names of the
// benchmark, its test case and its workload, as go test does.
func TestUpstreamBenchRegexpSelectsOnlyTheWorkloads(t *testing.T) {
	ws := upstreamWorkloads(t, "5000Nodes_1000Gangs_3000Pods,5000Nodes_3Gangs_3000Pods_1000PerGroup")
	levels := strings.Split(UpstreamBenchRegexp("GangScheduling", ws), "/")
	if len(levels) != 3 {
		t.Fatalf("levels = %q", levels)
	}
	for _, c := range []struct {
		names []string
		want  bool
	}{
		{[]string{"BenchmarkPerfScheduling", "GangScheduling", "5000Nodes_1000Gangs_3000Pods"}, true},
		{[]string{"BenchmarkPerfScheduling", "GangScheduling", "5000Nodes_3Gangs_3000Pods_1000PerGroup"}, true},
		{[]string{"BenchmarkPerfScheduling", "GangScheduling", "5000Nodes_3000Gangs_9000Pods"}, false},
		{[]string{"BenchmarkPerfScheduling", "GangScheduling", "5000Nodes_1000Gangs_3000Pods_more"}, false},
		{[]string{"BenchmarkPerfScheduling", "BasicScheduling", "5000Nodes_1000Gangs_3000Pods"}, false},
	} {
		all := true
		for i, n := range c.names {
			all = all && regexp.MustCompile(levels[i]).MatchString(n)
		}
		if all != c.want {
			t.Errorf("%s: selected %v, want %v", strings.Join(c.names, "/"), all, c.want)
		}
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The pinned module's own configurations hold every workload of the scenario
// with gangconf's parameters (make bench-upstream checks the same at run time).
func TestPinnedUpstreamConfigsHaveEveryWorkload(t *testing.T) {
	for _, w := range upstreamWorkloads(t, "") {
		out, err := exec.Command("go", "list", "-f", "{{.Dir}}", UpstreamPackage+"/"+w.Package).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", w.Package, err)
		}
		cfg, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "performance-config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckUpstreamConfig(cfg, w); err != nil {
			t.Error(err)
		}
	}
}

// testdata/upstream-dataitems.json has the shape of a DataItems file that
// the upstream gang benchmark wrote here (labels, units, a throughput-less
// item, histograms by result, metrics gangconf has no counterpart of), cut
// down to one selected workload and one that was not selected.
func TestConvertUpstreamKeepsTheMetricsBothHave(t *testing.T) {
	ws := upstreamWorkloads(t, "5000Nodes_1000Gangs_3000Pods")
	items, err := ConvertUpstream(readTestdata(t, "upstream-dataitems.json"), results.UpstreamScenario, ws)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]results.DataItem{}
	for _, it := range items.DataItems {
		if it.Labels["Name"] != "upstream-gangs/5000Nodes_1000Gangs_3000Pods/size=3" {
			t.Errorf("item named %q: want gangconf's name of the workload", it.Labels["Name"])
		}
		if len(it.Labels) != len(labelKeys) || it.Labels["Mode"] != results.ModeConcurrent || it.Labels["Policy"] != results.PolicyGang || it.Labels["Size"] != "3" {
			t.Errorf("labels %v", it.Labels)
		}
		got[it.Labels["Metric"]] = it
	}
	if len(items.DataItems) != 3 || len(got) != 3 {
		t.Fatalf("converted %d items (%v): want throughput, attempt and algorithm only", len(items.DataItems), got)
	}
	if tp := got["SchedulingThroughput"]; tp.Unit != "pods/s" || tp.Data != (results.Summary{Perc50: 420, Perc90: 455, Perc95: 460, Perc99: 462, Average: 412.5}) {
		t.Errorf("throughput = %+v", tp)
	}
	if a := got["PodGroupSchedulingAttempt"]; a.Unit != "ms" || a.Data.Perc50 != 16 || a.Data.Average != 17.2882208 {
		t.Errorf("attempt = %+v: want the scheduled series, not the unschedulable one", a)
	}
	if a := got["PodGroupSchedulingAlgorithm"]; a.Data.Perc90 != 8 {
		t.Errorf("algorithm = %+v", a)
	}
}

func TestConvertUpstreamFailsOnWhatItCannotUse(t *testing.T) {
	fixture := readTestdata(t, "upstream-dataitems.json")
	ws := upstreamWorkloads(t, "5000Nodes_1000Gangs_3000Pods,5000Nodes_2000Gangs_6000Pods")
	if _, err := ConvertUpstream(fixture, results.UpstreamScenario, ws); err == nil ||
		!strings.Contains(err.Error(), "no SchedulingThroughput for GangScheduling/5000Nodes_2000Gangs_6000Pods") {
		t.Fatalf("a workload that did not run: %v", err)
	}
	ws = ws[:1]
	if _, err := ConvertUpstream([]byte(`{"dataItems": [`), results.UpstreamScenario, ws); err == nil {
		t.Fatal("truncated file accepted")
	}
	noP99 := strings.Replace(string(fixture), `"Perc99": 462`, `"Max": 462`, 1)
	if _, err := ConvertUpstream([]byte(noP99), results.UpstreamScenario, ws); err == nil || !strings.Contains(err.Error(), "no Perc99") {
		t.Fatalf("throughput without Perc99: %v", err)
	}
	inSeconds := strings.Replace(string(fixture), `"unit": "ms"`, `"unit": "s"`, 1)
	if _, err := ConvertUpstream([]byte(inSeconds), results.UpstreamScenario, ws); err == nil || !strings.Contains(err.Error(), `in "s", gangconf's in "ms"`) {
		t.Fatalf("a histogram in another unit: %v", err)
	}
	renamed := strings.ReplaceAll(string(fixture), "BenchmarkPerfScheduling/GangScheduling/", "BenchmarkPerfScheduling/SchedulingBasic/")
	if _, err := ConvertUpstream([]byte(renamed), results.UpstreamScenario, ws); err == nil || !strings.Contains(err.Error(), "no test case and workload") {
		t.Fatalf("a name without a known test case: %v", err)
	}
}
