package results

// UpstreamScenario is the scenario whose workloads upstream scheduler_perf
// also runs, under the same names: `make bench-upstream` runs upstream's
// copies of them so that one machine gives both figures.
const UpstreamScenario = "upstream-gangs"

// UpstreamSittingsDir holds the sittings of `make bench-upstream
// REPEATS=n`, one results directory each (1, 2, ...), with both sides'
// figures: the report gives their medians.
const UpstreamSittingsDir = "bench-upstream-sittings"

// UpstreamWorkload is one upstream scheduler_perf workload and where it lives.
type UpstreamWorkload struct {
	// Name is the workload's name, the same in gangconf's scenario and upstream.
	Name   string `json:"name"`
	Policy string `json:"policy"`
	// Package is the Go package under bench.UpstreamPackage (gangscheduling or
	// basicscheduling) and TestCase the test case in its performance-config.yaml.
	Package  string `json:"package"`
	TestCase string `json:"testCase"`
	// Parameters as upstream calls them.
	Nodes        int `json:"initNodes"`
	PodGroups    int `json:"initPodGroups"`
	PodsPerGroup int `json:"podsPerGroup"`
}

// PackageRun is one run of one upstream test binary.
type PackageRun struct {
	Package   string   `json:"package"`
	Workloads []string `json:"workloads"`
	Args      []string `json:"args"`
	// DataItems is upstream's own file, as it wrote it, relative to the output.
	DataItems   string  `json:"dataItems"`
	TookSeconds float64 `json:"tookSeconds"`
}

// UpstreamResult is what bench-upstream/<UpstreamScenario>-result.json
// records beside the converted DataItems.
type UpstreamResult struct {
	Environment *Environment       `json:"environment"`
	Workloads   []UpstreamWorkload `json:"workloads"`
	Runs        []PackageRun       `json:"runs"`
}
