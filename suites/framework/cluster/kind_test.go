package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	kubeadmv1beta4 "k8s.io/kubernetes/cmd/kubeadm/app/apis/kubeadm/v1beta4"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"
)

const testImage = "example.test/kind-node:v1.37.2"

func kindOpts(t *testing.T) KindOptions {
	return KindOptions{Name: "gangconf-test", NodeImage: testImage, WorkDir: t.TempDir()}
}

// The gates reach kube-apiserver, kube-controller-manager and kube-scheduler
// through kubeadm, and nothing reaches the kubelet: kind's own featureGates
// and runtimeConfig (which kind also gives the kubelet and kube-proxy) stay
// empty, and no patch names a kubelet or node-registration document.
func TestKindConfigGatesTheControlPlaneOnly(t *testing.T) {
	cfg, err := KindConfig(kindOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Kind != "Cluster" || cfg.APIVersion != "kind.x-k8s.io/v1alpha4" || cfg.Name != "gangconf-test" {
		t.Errorf("type or name: %+v %q", cfg.TypeMeta, cfg.Name)
	}
	if cfg.Networking.APIServerAddress != "127.0.0.1" {
		t.Errorf("API server address %q, want loopback", cfg.Networking.APIServerAddress)
	}
	if len(cfg.Nodes) != 1 || cfg.Nodes[0].Role != v1alpha4.ControlPlaneRole || cfg.Nodes[0].Image != testImage {
		t.Errorf("nodes = %+v, want one control-plane node of the user's image", cfg.Nodes)
	}
	if len(cfg.FeatureGates) != 0 || len(cfg.RuntimeConfig) != 0 {
		t.Errorf("kind-level gates %v / runtime config %v would reach the kubelet too", cfg.FeatureGates, cfg.RuntimeConfig)
	}
	if len(cfg.KubeadmConfigPatchesJSON6902) != 0 || len(cfg.ContainerdConfigPatches) != 0 || len(cfg.Nodes[0].KubeadmConfigPatches) != 0 {
		t.Errorf("unexpected patches: %+v", cfg)
	}
	if len(cfg.KubeadmConfigPatches) != 1 {
		t.Fatalf("%d kubeadm patches, want 1", len(cfg.KubeadmConfigPatches))
	}
	// Decoded strictly with kubeadm's own v1beta4 types: a misspelt field
	// (controller-manager, extra_args) fails here, not in a Docker run.
	var cc kubeadmv1beta4.ClusterConfiguration
	if err := yaml.UnmarshalStrict([]byte(cfg.KubeadmConfigPatches[0]), &cc); err != nil {
		t.Fatalf("patch is not a kubeadm v1beta4 document: %v\n%s", err, cfg.KubeadmConfigPatches[0])
	}
	if cc.APIVersion != "kubeadm.k8s.io/v1beta4" || cc.Kind != "ClusterConfiguration" {
		t.Errorf("patch targets %s %s, want the ClusterConfiguration", cc.APIVersion, cc.Kind)
	}
	args := func(a []kubeadmv1beta4.Arg) map[string]string {
		m := map[string]string{}
		for _, x := range a {
			m[x.Name] = x.Value
		}
		return m
	}
	want := map[string]map[string]string{
		"kube-apiserver":          {"feature-gates": "GenericWorkload=true", "runtime-config": "scheduling.k8s.io/v1beta1=true"},
		"kube-controller-manager": {"feature-gates": "GenericWorkload=true"},
		"kube-scheduler":          {"feature-gates": "GenericWorkload=true"},
	}
	got := map[string]map[string]string{
		"kube-apiserver":          args(cc.APIServer.ExtraArgs),
		"kube-controller-manager": args(cc.ControllerManager.ExtraArgs),
		"kube-scheduler":          args(cc.Scheduler.ExtraArgs),
	}
	for comp, w := range want {
		if len(got[comp]) != len(w) {
			t.Errorf("%s args %v, want %v", comp, got[comp], w)
		}
		for k, v := range w {
			if got[comp][k] != v {
				t.Errorf("%s --%s=%q, want %q", comp, k, got[comp][k], v)
			}
		}
	}
	for _, kind := range []string{"KubeletConfiguration", "InitConfiguration", "JoinConfiguration", "KubeProxyConfiguration"} {
		if strings.Contains(cfg.KubeadmConfigPatches[0], kind) {
			t.Errorf("the patch touches %s", kind)
		}
	}
}

// fakeDocker puts a docker command on PATH that prints msg and exits with
// code; with no msg, PATH holds no docker at all.
func fakeDocker(t *testing.T, msg string, code int) {
	t.Helper()
	dir := t.TempDir()
	if msg != "" {
		script := "#!/bin/sh\necho '" + msg + "' >&2\nexit " + strconv.Itoa(code) + "\n"
		if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}

func TestKindBadInputCreatesNothing(t *testing.T) {
	cases := []struct {
		name   string
		change func(*KindOptions)
		docker string
		code   int
		want   string
	}{
		{"no image", func(o *KindOptions) { o.NodeImage = "" }, "", 0, "needs KIND_NODE_IMAGE"},
		{"bad name", func(o *KindOptions) { o.Name = "Conformance_X" }, "", 0, `kind cluster name "Conformance_X"`},
		{"no docker command", func(*KindOptions) {}, "", 0, "no docker command on PATH"},
		{"docker daemon down", func(*KindOptions) {}, "Cannot connect to the Docker daemon at unix:///var/run/docker.sock.", 1,
			"needs a running Docker daemon, and `docker info` failed (exit status 1): Cannot connect to the Docker daemon"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fakeDocker(t, c.docker, c.code)
			o := kindOpts(t)
			c.change(&o)
			_, err := UpKind(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
			if entries, _ := os.ReadDir(o.WorkDir); len(entries) != 0 {
				t.Errorf("files left in the work directory: %v", entries)
			}
		})
	}
}

func TestKindSecondClusterIsRefused(t *testing.T) {
	// A docker that answers: only the existing cluster stops this one.
	fakeDocker(t, "29.0.0", 0)
	o := kindOpts(t)
	if err := os.MkdirAll(filepath.Join(o.WorkDir, "kind", o.Name), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := UpKind(context.Background(), o)
	if !errors.Is(err, ErrClusterExists) || !strings.Contains(err.Error(), "make cluster-down PROVIDER=kind") {
		t.Fatalf("err = %v", err)
	}
	k, err := AttachKind(o)
	if err != nil || k.Kubeconfig != filepath.Join(o.WorkDir, "kind", o.Name, "kubeconfig") {
		t.Fatalf("attach: %+v, %v", k, err)
	}
	o.Name = "other"
	if _, err := AttachKind(o); err == nil || !strings.Contains(err.Error(), `no kind cluster "other"`) {
		t.Fatalf("attach to a cluster never made: %v", err)
	}
}
