// Package cluster brings up and tears down the virtual clusters gangconf runs
// on: the pinned v1.37.2 control plane under kwokctl's binary runtime, with
// kwok fake nodes made from a fixtures profile.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/e2e-framework/support/kwok"
	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"

	"github.com/gangconf/gangconf/suites/framework/proc"
)

// Gates and runtime config every gangconf cluster serves: the PodGroup API of
// KEP-4671 on the API server and in the controller manager (which runs the
// PodGroup protection controller).
const (
	FeatureGates  = "GenericWorkload=true"
	RuntimeConfig = "scheduling.k8s.io/v1beta1=true"
)

// Binaries the kwok provider needs from the build directory.
var Binaries = []string{"kube-apiserver", "kube-controller-manager", "etcd", "kwok", "kwokctl"}

// KwokOptions says how to make a kwok cluster.
type KwokOptions struct {
	// Name is the kwokctl cluster name.
	Name string
	// BinDir holds the pinned binaries (make build writes them).
	BinDir string
	// WorkDir is kwokctl's KWOK_WORKDIR: every file of the cluster lives
	// under it, so runs do not collide and removing it removes everything.
	WorkDir string
	// FeatureGates and RuntimeConfig go to the API server and controller
	// manager; empty means the package defaults.
	FeatureGates  string
	RuntimeConfig string
	// ControllerManagerFeatureGates, when set, replaces FeatureGates for
	// the controller manager alone (a control that lacks one of its
	// controllers' features while the API serves it).
	ControllerManagerFeatureGates string
	// APIServerEnv is extra environment for the API server (the benchmark
	// sets its Go garbage collector; see bench.APIServerEnv).
	APIServerEnv map[string]string
	// APIServerArgs are extra flags of the API server, by name without
	// dashes (the benchmark's; see bench.APIServerArgs).
	APIServerArgs map[string]string
	// Wait bounds how long kwokctl waits for the control plane.
	Wait time.Duration
	// WithoutKwokController leaves kwokctl's kwok controller out: nothing
	// manages nodes, as on a real cluster made without kwok.
	WithoutKwokController bool
	// Mode is ModeRealistic (also "") or ModeUpstream.
	Mode string
}

// Cluster modes: how much of a real cluster's background work a kwok
// cluster does while a scheduler binds pods.
const (
	// ModeRealistic: kwok makes every bound pod Running (a status write per
	// pod), nodes hold leases, the controller manager runs its controllers.
	ModeRealistic = "realistic"
	// ModeUpstream matches upstream scheduler_perf's conditions, for
	// benchmarks only: nodes are Ready from their create, never written (no
	// lease, no heartbeat), bound pods get no status (they stay Pending with
	// a node, as there), the controller manager runs only the service account
	// and namespace controllers (nothing else watches pods), and the API
	// server's admission skips what upstream's test server skips.
	ModeUpstream = "upstream"
)

// Modes lists the cluster modes, the default first.
var Modes = []string{ModeRealistic, ModeUpstream}

// upstream says whether the cluster runs in ModeUpstream.
func (o KwokOptions) upstream() bool { return o.Mode == ModeUpstream }

// Kwok is a running kwok cluster.
type Kwok struct {
	opts       KwokOptions
	provider   *kwok.Cluster
	Kubeconfig string
}

// kwokConfig binds every component to loopback, and raises kwok's stage
// parallelism from its defaults so that thousands of nodes turn Ready in
// seconds rather than minutes, and bound pods turn Running without a queue.
//
// heartbeatFactor scales kwokctl's node lease duration (40 s), node status
// interval and the controller manager's node monitor period and grace
// period alike (kwokctl's default factor is 5). At 5, all 5000 leases of a
// gpu-5k cluster renew together every 50 s, which kept one of two cores
// busy for about 35 s of every 50 and made two runs of one benchmark up to
// 1.5x apart. At 360 leases renew hourly and node status every 50 min, so
// no renewal falls into a run, and nodes never go NotReady in between.
// The %s takes componentsPatches.
const kwokConfig = `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  bindAddress: 127.0.0.1
  heartbeatFactor: 360
%s---
` + kwokConfiguration

// kwokConfiguration is the kwok controller's own part of kwokConfig, which
// the harness's controller on a cluster it did not make (KwokController)
// takes too.
const kwokConfiguration = `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  nodePlayStageParallelism: 128
  podPlayStageParallelism: 32
  nodeLeaseParallelism: 128
`

// upstreamStages are the only kwok Stages of a ModeUpstream cluster: a
// node's initialisation (Ready, once). Stages in kwokctl's configuration
// replace its defaults, so no heartbeat and no pod stage runs.
var upstreamStages = []string{nodefast.DefaultNodeInit}

// config is the kwokctl configuration file of the cluster.
func (o KwokOptions) config() string {
	c := fmt.Sprintf(kwokConfig, o.componentsPatches())
	if o.upstream() {
		for _, st := range upstreamStages {
			c += "---\n" + strings.TrimSuffix(st, "\n") + "\n"
		}
	}
	return c
}

// componentsPatches is the part of kwokConfig's KwokctlConfiguration that
// patches the components' flags and environment: clusterArgs, then the
// options'. The API server's flags carry no override: with one, kwokctl only
// replaces a flag it sets itself, and drops any other.
func (o KwokOptions) componentsPatches() string {
	var b strings.Builder
	// items writes m's entries, sorted, as items of the list field above.
	items := func(key string, m map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(&b, "  - %s: %s\n    value: %q\n", key, k, m[k])
		}
	}
	list := func(field, key string, m map[string]string) {
		if len(m) > 0 {
			fmt.Fprintf(&b, "  %s:\n", field)
			items(key, m)
		}
	}
	// The controller manager always has clusterArgs, so its extraArgs list
	// is always there for the feature gates (which need the override).
	base := clusterArgs
	if o.upstream() {
		base = upstreamArgs
	}
	b.WriteString("componentsPatches:\n- name: kube-controller-manager\n  extraArgs:\n")
	items("key", base["kube-controller-manager"])
	if o.ControllerManagerFeatureGates != "" {
		fmt.Fprintf(&b, "  - key: feature-gates\n    value: %s\n    override: true\n", o.ControllerManagerFeatureGates)
	}
	b.WriteString("- name: kube-apiserver\n")
	args := maps.Clone(base["kube-apiserver"])
	maps.Copy(args, o.APIServerArgs)
	list("extraArgs", "key", args)
	list("extraEnvs", "name", o.APIServerEnv)
	return b.String()
}

// clusterArgs are flags of every kwok cluster's components, by component.
// Each spares the cluster a write to every node that nothing here reads.
// While a gpu-5k cluster came up, the controller manager's TTL controller
// (ttl) annotated each node with how long a kubelet may cache secrets, and
// all of them again as the cluster grew past 100, 500, 1000 and 2000 nodes;
// and the controller manager removed from each node, once kwok had made it
// Ready, the not-ready taint the API server's TaintNodesByCondition
// admission gives every new node (and added the beta labels NodeSpec.Node
// now sets). Together these kept the controller manager, API server and
// etcd near two cores for 45-56 s after the last node was Ready. Without
// the admission a new node has no taint until the controller manager sees
// it not Ready; the harness waits for its nodes to be Ready before using
// them anyway.
//
// The EndpointSlice controller (endpointslice-controller) goes too: it
// writes no node, but on every node added or turned Ready it walks all nodes
// to weigh zones for topology-aware routing, so a cluster's coming up costs
// it the square of its nodes. While gpu-15k came up that walk was 71% of the
// controller manager's samples, some 43 of its 61 CPU s. Its only other work
// is the EndpointSlices of Services, and no suite or benchmark makes a
// Service.
var clusterArgs = map[string]map[string]string{
	"kube-controller-manager": {"controllers": "*,-ttl,-endpointslice-controller"},
	"kube-apiserver":          {"disable-admission-plugins": "TaintNodesByCondition"},
}

// upstreamArgs replace clusterArgs in ModeUpstream. The controller manager
// runs what the harness needs (the default service account of a run's
// namespace, and namespace deletion): upstream's benchmark runs no
// controller manager, and here its other controllers watched every pod,
// the node lifecycle controller would taint nodes without leases. The API
// server's admission skips the plugins upstream's test server disables
// (ServiceAccount, TaintNodesByCondition, Priority), and PodGroupProtection,
// whose finalizer only the controller left out here removes.
var upstreamArgs = map[string]map[string]string{
	"kube-controller-manager": {"controllers": "serviceaccount-controller,namespace-controller"},
	"kube-apiserver":          {"disable-admission-plugins": "ServiceAccount,TaintNodesByCondition,Priority,PodGroupProtection"},
}

// ErrClusterExists is returned when a cluster of that name is already up.
var ErrClusterExists = errors.New("cluster already exists")

// CheckBinaries reports the first binary missing from dir, with what to do.
func CheckBinaries(dir string, names ...string) error {
	for _, n := range names {
		p := filepath.Join(dir, n)
		if !proc.IsExecutable(p) {
			return fmt.Errorf("binary %s not found (run `make build` first)", p)
		}
	}
	return nil
}

// CheckMode says whether mode is a cluster mode ("" is ModeRealistic).
func CheckMode(mode string) error {
	if mode != "" && !slices.Contains(Modes, mode) {
		return fmt.Errorf("unknown cluster mode %q (known: %s)", mode, strings.Join(Modes, ", "))
	}
	return nil
}

// clusterDir is where kwokctl keeps the cluster's files.
func (o KwokOptions) clusterDir() string { return filepath.Join(o.WorkDir, "clusters", o.Name) }

// Exists says whether kwokctl already has a cluster of this name.
func (o KwokOptions) Exists() bool {
	_, err := os.Stat(o.clusterDir())
	return err == nil
}

func (o KwokOptions) validate() error {
	if o.Name == "" || o.BinDir == "" || o.WorkDir == "" {
		return fmt.Errorf("kwok cluster needs a name, a binary directory and a work directory")
	}
	if err := CheckMode(o.Mode); err != nil {
		return err
	}
	// e2e-framework hands kwokctl one command line split on spaces.
	for _, p := range []string{o.BinDir, o.WorkDir} {
		if strings.ContainsAny(p, " \t'\"") {
			return fmt.Errorf("path %q contains a space or quote, which kwokctl's command line cannot carry", p)
		}
	}
	return CheckBinaries(o.BinDir, Binaries...)
}

// UpKwok creates a kwok cluster with the pinned binaries and returns once its
// API server answers. On any failure it removes what it made.
func UpKwok(ctx context.Context, o KwokOptions) (*Kwok, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.FeatureGates == "" {
		o.FeatureGates = FeatureGates
	}
	if o.RuntimeConfig == "" {
		o.RuntimeConfig = RuntimeConfig
	}
	if o.Wait == 0 {
		o.Wait = 2 * time.Minute
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return nil, err
	}
	o.WorkDir, _ = filepath.Abs(o.WorkDir)
	o.BinDir, _ = filepath.Abs(o.BinDir)
	if o.Exists() {
		return nil, fmt.Errorf("%w: kwok cluster %q is already up (files in %s); run `make cluster-down` first", ErrClusterExists, o.Name, o.clusterDir())
	}
	// kwokctl finds its work directory through the environment only.
	if err := os.Setenv("KWOK_WORKDIR", o.WorkDir); err != nil {
		return nil, err
	}
	configPath := filepath.Join(o.WorkDir, o.Name+"-kwok.yaml")
	if err := os.WriteFile(configPath, []byte(o.config()), 0o644); err != nil {
		return nil, err
	}
	provider := kwok.NewCluster(o.Name)
	provider.WithPath(filepath.Join(o.BinDir, "kwokctl"))
	provider.WithOpts(kwok.WithWaitDuration(o.Wait))
	k := &Kwok{opts: o, provider: provider}

	if _, err := provider.Create(ctx, o.createArgs(configPath)...); err != nil {
		k.cleanupAfterFailure()
		if cerr := ctx.Err(); errors.Is(cerr, context.Canceled) {
			// Ctrl-C killed kwokctl: the run was stopped, the cluster not broken.
			return nil, fmt.Errorf("kwok cluster %q: stopped while coming up: %w", o.Name, cerr)
		}
		return nil, fmt.Errorf("kwok cluster %q did not come up: %w", o.Name, err)
	}
	k.Kubeconfig = filepath.Join(o.clusterDir(), "kubeconfig.yaml")
	if _, err := os.Stat(k.Kubeconfig); err != nil {
		k.cleanupAfterFailure()
		return nil, fmt.Errorf("kwok cluster %q has no kubeconfig at %s: %w", o.Name, k.Kubeconfig, err)
	}
	// e2e-framework wrote its own copy into the temp directory; ours is the
	// one in the work directory, so the temp copy goes.
	_ = os.Remove(provider.GetKubeconfig())
	return k, nil
}

// createArgs is kwokctl's `create cluster` command line for the cluster,
// with its configuration file at configPath.
func (o KwokOptions) createArgs(configPath string) []string {
	bin := func(n string) string { return filepath.Join(o.BinDir, n) }
	args := []string{
		"--config=" + configPath,
		"--runtime=binary",
		"--kube-apiserver-binary=" + bin("kube-apiserver"),
		"--kube-controller-manager-binary=" + bin("kube-controller-manager"),
		"--kwok-controller-binary=" + bin("kwok"),
		"--etcd-binary=" + bin("etcd"),
		"--kube-feature-gates=" + o.FeatureGates,
		"--kube-runtime-config=" + o.RuntimeConfig,
		// The harness runs the scheduler under test itself.
		"--disable=kube-scheduler",
		"--disable-qps-limits",
		// Keep the user's own kubeconfig untouched.
		"--kubeconfig=" + filepath.Join(o.WorkDir, o.Name+"-unused.kubeconfig"),
	}
	if o.WithoutKwokController {
		args = append(args, "--disable=kwok-controller")
	}
	if o.upstream() {
		// No lease at all (the flag wins over the configuration file).
		args = append(args, "--node-lease-duration-seconds=0")
	}
	return args
}

// AttachKwok returns a handle on a kwok cluster made earlier (by another
// process), so it can be torn down.
func AttachKwok(o KwokOptions) (*Kwok, error) {
	o.WorkDir, _ = filepath.Abs(o.WorkDir)
	o.BinDir, _ = filepath.Abs(o.BinDir)
	if !o.Exists() {
		return nil, fmt.Errorf("no kwok cluster %q in %s", o.Name, o.WorkDir)
	}
	if err := os.Setenv("KWOK_WORKDIR", o.WorkDir); err != nil {
		return nil, err
	}
	provider := kwok.NewCluster(o.Name)
	provider.WithPath(filepath.Join(o.BinDir, "kwokctl"))
	return &Kwok{opts: o, provider: provider, Kubeconfig: filepath.Join(o.clusterDir(), "kubeconfig.yaml")}, nil
}

// ExportLogs copies the control plane's logs into dir.
func (k *Kwok) ExportLogs(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := filepath.Join(k.opts.clusterDir(), "logs")
	entries, err := os.ReadDir(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Down stops every process of the cluster (kwokctl stops them by the PIDs it
// recorded) and removes its files. It uses its own deadline, so that it also
// runs after the caller's context was cancelled by Ctrl-C.
func (k *Kwok) Down() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := k.provider.Destroy(ctx)
	_ = os.Remove(filepath.Join(k.opts.WorkDir, k.opts.Name+"-kwok.yaml"))
	_ = os.Remove(filepath.Join(k.opts.WorkDir, k.opts.Name+"-unused.kubeconfig"))
	return err
}

// Restart stops every process of the cluster and starts them again on the
// same files (etcd's data survives), as `kwokctl stop cluster` and `kwokctl
// start cluster` do; kwokctl has no command for one component alone.
//
// kwokctl's stop signals the components and returns before they have exited:
// a start right after it once found the old API server still on its port
// ("bind: address already in use") and the cluster never came back. So the
// start waits until every PID the stop signalled is gone.
func (k *Kwok) Restart(ctx context.Context) error {
	pids, err := k.pids()
	if err != nil {
		return err
	}
	if out, err := k.kwokctl(ctx, "stop", "cluster", "--name", k.opts.Name); err != nil {
		return fmt.Errorf("kwokctl stop cluster %s: %w\n%s", k.opts.Name, err, out)
	}
	if err := waitExited(ctx, pids, stopTimeout); err != nil {
		return fmt.Errorf("kwokctl stop cluster %s: %w", k.opts.Name, err)
	}
	if out, err := k.kwokctl(ctx, "start", "cluster", "--name", k.opts.Name); err != nil {
		return fmt.Errorf("kwokctl start cluster %s: %w\n%s", k.opts.Name, err, out)
	}
	return nil
}

// stopTimeout bounds the wait for stopped components to exit.
const stopTimeout = time.Minute

// pids reads every component's PID file, by component name.
func (k *Kwok) pids() (map[string]int, error) {
	entries, err := os.ReadDir(filepath.Join(k.opts.clusterDir(), "pids"))
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, e := range entries {
		component, ok := strings.CutSuffix(e.Name(), ".pid")
		if !ok {
			continue
		}
		pid, err := k.PID(component)
		if err != nil {
			return nil, fmt.Errorf("PID file of %s: %w", component, err)
		}
		out[component] = pid
	}
	return out, nil
}

// waitExited waits until none of the processes runs any more (a zombie,
// exited and not yet reaped, does not).
func waitExited(ctx context.Context, pids map[string]int, timeout time.Duration) error {
	running := func() []string {
		var left []string
		for component, pid := range pids {
			if proc.Alive(pid) {
				left = append(left, fmt.Sprintf("%s (PID %d)", component, pid))
			}
		}
		slices.Sort(left)
		return left
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return len(running()) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("still running after %s: %s", timeout, strings.Join(running(), ", "))
	}
	return nil
}

// kwokctl runs the pinned kwokctl on this cluster's work directory.
func (k *Kwok) kwokctl(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(k.opts.BinDir, "kwokctl"), args...)
	cmd.Env = append(os.Environ(), "KWOK_WORKDIR="+k.opts.WorkDir)
	return cmd.CombinedOutput()
}

// cleanupAfterFailure removes a half-made cluster. kwokctl may have started
// some components before failing; its delete stops whatever has a PID file.
func (k *Kwok) cleanupAfterFailure() {
	if !k.opts.Exists() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = k.kwokctl(ctx, "delete", "cluster", "--name", k.opts.Name)
}

// PID returns the process ID of a control plane component (kube-apiserver,
// etcd, ...) from the PID file kwokctl keeps.
func (k *Kwok) PID(component string) (int, error) {
	data, err := os.ReadFile(filepath.Join(k.opts.clusterDir(), "pids", component+".pid"))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}
