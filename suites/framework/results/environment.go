package results

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Environment is what a reader of a result needs to judge it: what ran, on
// what, with which gates. It is written as environment.json.
type Environment struct {
	Date              time.Time `json:"date"`
	GangconfCommit    string    `json:"gangconfCommit"`
	KubernetesVersion string    `json:"kubernetesVersion"`
	Provider          string    `json:"provider"`
	ClusterProfile    string    `json:"clusterProfile,omitempty"`
	// ClusterMode is how the kwok cluster the harness made behaved:
	// "realistic" (pods turn Running, nodes hold leases, the controller
	// manager's controllers run) or "upstream" (as upstream scheduler_perf:
	// none of that); empty on any other cluster.
	ClusterMode   string `json:"clusterMode,omitempty"`
	NodeImage     string `json:"nodeImage,omitempty"`
	FeatureGates  string `json:"featureGates,omitempty"`
	RuntimeConfig string `json:"runtimeConfig,omitempty"`
	// APIServerEnv and APIServerArgs are the extra environment and flags of
	// a kwok cluster's API server.
	APIServerEnv  map[string]string `json:"apiServerEnv,omitempty"`
	APIServerArgs map[string]string `json:"apiServerArgs,omitempty"`
	Scheduler     Scheduler         `json:"scheduler"`
	// Admission is the admission controller in front of the scheduler
	// (ADMISSION=kueue); nil when there was none.
	Admission *Admission `json:"admission,omitempty"`
	Machine   Machine    `json:"machine"`
	// Nodes is how the harness's fake nodes came up; nil where it made
	// none in this process (a cluster from make cluster-up, PROVIDER=existing).
	Nodes *NodeCreation `json:"nodes,omitempty"`
}

// Admission is the admission controller of a stack run: its kind (kueue,
// or the crafted broken stack kueue-partial), what it is, and its version.
type Admission struct {
	Name string `json:"name"`
	// Product is what Name runs, as its makers write it ("Kueue").
	Product string `json:"product,omitempty"`
	Version string `json:"version"`
	About   string `json:"about,omitempty"`
	// Broken says that it is a crafted broken stack, not a product.
	Broken bool `json:"broken,omitempty"`
}

// NodeCreation is how long the harness took to create a cluster's nodes and
// to see them all Ready, both from the first create; Ready also waits, where
// nodes hold leases, until kwok holds every node's (it runs a node's pods
// only then). With each process's memory per 1000 nodes
// (Cost.MiBPer1000Nodes), how a cluster's cost grows with its size.
type NodeCreation struct {
	Count   int           `json:"count"`
	Created time.Duration `json:"createdNs"`
	Ready   time.Duration `json:"readyNs"`
}

// CreatedPerSecond is how many nodes were created a second; 0 without a time.
func (n NodeCreation) CreatedPerSecond() float64 { return perSecond(n.Count, n.Created) }

// ReadyPerSecond is how many nodes turned Ready a second, from the first
// create to the last Ready; 0 without a time.
func (n NodeCreation) ReadyPerSecond() float64 { return perSecond(n.Count, n.Ready) }

func perSecond(count int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(count) / d.Seconds()
}

// Scheduler is the scheduler under test.
type Scheduler struct {
	Name          string `json:"name"`
	SchedulerName string `json:"schedulerName"`
	Version       string `json:"version,omitempty"`
	FeatureGates  string `json:"featureGates,omitempty"`
}

// Machine is where the run happened.
type Machine struct {
	CPUModel string `json:"cpuModel"`
	Cores    int    `json:"cores"`
	MemoryKB int64  `json:"memoryKiB"`
	OS       string `json:"os"`
	Kernel   string `json:"kernel"`
	Go       string `json:"go"`
}

// Local is the part of the environment that needs no cluster: when, at
// which gangconf commit, on what machine. Runs without a harness cluster
// (upstream's in-process benchmark) record it and fill in the rest.
func Local() Environment {
	return Environment{
		Date:           time.Now().UTC().Truncate(time.Second),
		GangconfCommit: gitCommit(),
		Machine:        DescribeMachine(),
	}
}

func gitCommit() string {
	c := commandOutput(context.Background(), "git", "rev-parse", "HEAD")
	if c == "" {
		return "unknown"
	}
	if commandOutput(context.Background(), "git", "status", "--porcelain", "--untracked-files=no") != "" {
		c += "-dirty"
	}
	return c
}

// VersionOf is what binary --version prints, "" when it fails.
func VersionOf(ctx context.Context, binary string) string {
	return commandOutput(ctx, binary, "--version")
}

func commandOutput(ctx context.Context, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// DescribeMachine says what this machine is: CPU, cores, memory, OS, Go.
func DescribeMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	if f := strings.Fields(procField("/proc/meminfo", "MemTotal")); len(f) > 0 {
		m.MemoryKB, _ = strconv.ParseInt(f[0], 10, 64)
	}
	m.OS = strings.Trim(procField("/etc/os-release", "PRETTY_NAME="), `"`)
	m.Kernel = commandOutput(context.Background(), "uname", "-sr")
	return m
}

// procField returns the value after key (and a colon or =) in a file of
// "key: value" or key=value lines.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, key) {
			continue
		}
		if strings.HasSuffix(key, "=") {
			return strings.TrimPrefix(line, key)
		}
		if _, v, ok := strings.Cut(line, ":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// WriteJSON writes v as indented JSON to path, making its directory.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
