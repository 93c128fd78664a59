package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	kindlog "sigs.k8s.io/kind/pkg/log"
	"sigs.k8s.io/yaml"
)

// KindOptions says how to make a kind cluster: real kubelets in Docker
// containers, from a node image the user chooses.
type KindOptions struct {
	// Name is the kind cluster name (its containers are Name-control-plane...).
	Name string
	// NodeImage is the kind node image, e.g. one built with
	// `kind build node-image` from Kubernetes v1.37.2. There is no default:
	// kind v0.33.0's own default is a v1.37.0 image.
	NodeImage string
	// WorkDir receives the cluster's kubeconfig, under kind/<Name>/.
	WorkDir string
	// Wait bounds how long kind waits for the nodes to be Ready.
	Wait time.Duration
	// Logf receives kind's progress lines; nil drops them.
	Logf func(string, ...any)
}

// Kind is a running kind cluster.
type Kind struct {
	opts       KindOptions
	provider   *kindcluster.Provider
	Kubeconfig string
}

// kindName is what kind accepts as a cluster name (it names containers and
// a Docker network after it).
var kindName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// kubeadmPatchVersion is the kubeadm API kind v0.33.0 writes for
// Kubernetes v1.36 and later; a patch naming it applies to that config only.
const kubeadmPatchVersion = "kubeadm.k8s.io/v1beta4"

func (o KindOptions) dir() string { return filepath.Join(o.WorkDir, "kind", o.Name) }

func (o KindOptions) kubeconfig() string { return filepath.Join(o.dir(), "kubeconfig") }

// Exists says whether this work directory holds a kind cluster of this name.
func (o KindOptions) Exists() bool {
	_, err := os.Stat(o.dir())
	return err == nil
}

func (o KindOptions) validate() error {
	if o.NodeImage == "" {
		return errors.New("PROVIDER=kind needs KIND_NODE_IMAGE=<a kind node image of Kubernetes v1.37.2>: gangconf names none, " +
			"since kind v0.33.0's default image is v1.37.0 and no v1.37.2 image is vouched for here; build one with " +
			"`kind build node-image`, or name a published kind node image of v1.37.x")
	}
	if !kindName.MatchString(o.Name) {
		return fmt.Errorf("kind cluster name %q: want lower-case letters, digits, '.' and '-' (set CLUSTER_NAME)", o.Name)
	}
	if o.WorkDir == "" {
		return errors.New("kind cluster needs a work directory for its kubeconfig")
	}
	return nil
}

// KindConfig is the kind cluster configuration: one control-plane node of
// the user's image, the API server on loopback, and the PodGroup API's gates
// and runtime config on kube-apiserver, kube-controller-manager and
// kube-scheduler through a kubeadm ClusterConfiguration patch. Kind's own
// featureGates and runtimeConfig fields are left empty: kind hands those to
// the kubelet and kube-proxy as well, and the nodes must stay as the image
// made them.
func KindConfig(o KindOptions) (*v1alpha4.Cluster, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	patch, err := controlPlanePatch()
	if err != nil {
		return nil, err
	}
	return &v1alpha4.Cluster{
		TypeMeta: v1alpha4.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		Name:     o.Name,
		// One node: the suite's nodes are its own (fake nodes, when kwok
		// runs in the cluster), and kind removes the control-plane taint
		// from a cluster without workers.
		Nodes:                []v1alpha4.Node{{Role: v1alpha4.ControlPlaneRole, Image: o.NodeImage}},
		Networking:           v1alpha4.Networking{APIServerAddress: "127.0.0.1"},
		KubeadmConfigPatches: []string{patch},
	}, nil
}

// kubeadmArg is one v1beta4 extraArgs entry. Kind v0.33.0 merges such
// entries into its own by name, so its other arguments stay.
type kubeadmArg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func controlPlanePatch() (string, error) {
	gates := kubeadmArg{Name: "feature-gates", Value: FeatureGates}
	component := func(args ...kubeadmArg) map[string]any { return map[string]any{"extraArgs": args} }
	out, err := yaml.Marshal(map[string]any{
		"apiVersion":        kubeadmPatchVersion,
		"kind":              "ClusterConfiguration",
		"apiServer":         component(gates, kubeadmArg{Name: "runtime-config", Value: RuntimeConfig}),
		"controllerManager": component(gates),
		"scheduler":         component(gates),
	})
	return string(out), err
}

// CheckDocker fails, saying what to do, unless a Docker daemon answers:
// kind needs one, and finding out before anything is created leaves
// nothing to clean up.
func CheckDocker(ctx context.Context) error {
	docker, err := exec.LookPath("docker")
	if err != nil {
		return errors.New("PROVIDER=kind needs Docker, and there is no docker command on PATH; install Docker, or use PROVIDER=kwok, which needs none")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, docker, "info", "--format", "{{.ServerVersion}}").CombinedOutput()
	if err != nil {
		return fmt.Errorf("PROVIDER=kind needs a running Docker daemon, and `docker info` failed (%v): %s; start Docker or give this user access to it, or use PROVIDER=kwok, which needs none",
			err, strings.TrimSpace(string(out)))
	}
	return nil
}

// UpKind creates a kind cluster and returns once its nodes are Ready, with
// its kubeconfig in the work directory (the user's own is not touched). On
// failure kind removes what it made.
func UpKind(ctx context.Context, o KindOptions) (*Kind, error) {
	cfg, err := KindConfig(o)
	if err != nil {
		return nil, err
	}
	if o.Wait == 0 {
		o.Wait = 5 * time.Minute
	}
	o.WorkDir, _ = filepath.Abs(o.WorkDir)
	if o.Exists() {
		return nil, fmt.Errorf("%w: kind cluster %q is already up (kubeconfig in %s); run `make cluster-down PROVIDER=kind` first", ErrClusterExists, o.Name, o.dir())
	}
	if err := CheckDocker(ctx); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.dir(), 0o755); err != nil {
		return nil, err
	}
	k := &Kind{opts: o, provider: newKindProvider(o.Logf), Kubeconfig: o.kubeconfig()}
	// kind's create takes no context; it deletes what it made when it fails.
	err = k.provider.Create(o.Name,
		kindcluster.CreateWithV1Alpha4Config(cfg),
		kindcluster.CreateWithKubeconfigPath(k.Kubeconfig),
		kindcluster.CreateWithWaitForReady(o.Wait),
		kindcluster.CreateWithDisplayUsage(false),
		kindcluster.CreateWithDisplaySalutation(false))
	if err != nil {
		_ = os.RemoveAll(o.dir())
		return nil, fmt.Errorf("kind cluster %q (image %s) did not come up: %w", o.Name, o.NodeImage, err)
	}
	return k, nil
}

// AttachKind returns a handle on a kind cluster made earlier (by another
// process), so it can be removed.
func AttachKind(o KindOptions) (*Kind, error) {
	o.WorkDir, _ = filepath.Abs(o.WorkDir)
	if !o.Exists() {
		return nil, fmt.Errorf("no kind cluster %q in %s", o.Name, o.WorkDir)
	}
	return &Kind{opts: o, provider: newKindProvider(o.Logf), Kubeconfig: o.kubeconfig()}, nil
}

// ExportLogs copies the nodes' logs (control plane containers, kubelet,
// containerd) into dir.
func (k *Kind) ExportLogs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return k.provider.CollectLogs(k.opts.Name, dir)
}

// Down deletes the cluster's containers and its kubeconfig. The work
// directory entry stays when the delete fails, so that cluster-down can
// try again.
func (k *Kind) Down() error {
	if err := k.provider.Delete(k.opts.Name, k.Kubeconfig); err != nil {
		return fmt.Errorf("delete kind cluster %q: %w (or remove it with `kind delete cluster --name %s`)", k.opts.Name, err, k.opts.Name)
	}
	return os.RemoveAll(k.opts.dir())
}

func newKindProvider(logf func(string, ...any)) *kindcluster.Provider {
	return kindcluster.NewProvider(kindcluster.ProviderWithLogger(kindLogger{logf}), kindcluster.ProviderWithDocker())
}

// kindLogger hands kind's messages of level 0 and its warnings and errors
// to logf.
type kindLogger struct{ logf func(string, ...any) }

func (l kindLogger) print(format string, args ...any) {
	if l.logf != nil {
		l.logf("kind: "+strings.TrimRight(format, "\n"), args...)
	}
}

func (l kindLogger) Warn(m string)             { l.print("%s", m) }
func (l kindLogger) Warnf(f string, a ...any)  { l.print(f, a...) }
func (l kindLogger) Error(m string)            { l.print("%s", m) }
func (l kindLogger) Errorf(f string, a ...any) { l.print(f, a...) }
func (l kindLogger) V(v kindlog.Level) kindlog.InfoLogger {
	return kindInfo{l: l, on: v == 0}
}

type kindInfo struct {
	l  kindLogger
	on bool
}

func (i kindInfo) Info(m string) {
	if i.on {
		i.l.print("%s", m)
	}
}

func (i kindInfo) Infof(f string, a ...any) {
	if i.on {
		i.l.print(f, a...)
	}
}

func (i kindInfo) Enabled() bool { return i.on }
