package cluster

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	kwokconfig "sigs.k8s.io/kwok/pkg/apis/config/v1alpha1"
	kwokv1alpha1 "sigs.k8s.io/kwok/pkg/apis/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/gangconf/gangconf/suites/framework/proc"
)

// The configuration file is kwok's parallelism, then the Stages kwokctl
// gives a kwok controller whose nodes hold leases, each decoded strictly
// into kwok's own types.
func TestKwokControllerConfigIsKwokConfigurationAndStages(t *testing.T) {
	docs := strings.Split(kwokControllerConfig(), "---\n")
	if len(docs) != 6 {
		t.Fatalf("%d documents, want 6:\n%s", len(docs), kwokControllerConfig())
	}
	var c kwokconfig.KwokConfiguration
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &c); err != nil || c.Kind != "KwokConfiguration" {
		t.Fatalf("first document: %v, kind %q", err, c.Kind)
	}
	if c.Options.NodePlayStageParallelism != 128 || c.Options.PodPlayStageParallelism != 32 || c.Options.NodeLeaseParallelism != 128 {
		t.Errorf("parallelism = %+v, want kwokctl clusters' 128, 32, 128", c.Options)
	}
	var stages []string
	for _, d := range docs[1:] {
		var s kwokv1alpha1.Stage
		if err := yaml.UnmarshalStrict([]byte(d), &s); err != nil || s.Kind != "Stage" {
			t.Fatalf("%v, kind %q in:\n%s", err, s.Kind, d)
		}
		stages = append(stages, s.Spec.ResourceRef.Kind+"/"+s.Name)
	}
	want := []string{"Node/node-initialize", "Node/node-heartbeat-with-lease", "Pod/pod-ready", "Pod/pod-complete", "Pod/pod-delete"}
	if !slices.Equal(stages, want) {
		t.Errorf("stages = %v, want %v", stages, want)
	}
}

// The controller manages the run's nodes alone, keeps 40 s leases, and
// serves nothing.
func TestKwokControllerArgs(t *testing.T) {
	o := KwokControllerOptions{Kubeconfig: "/k/kubeconfig", RunID: "ab12cd34", Dir: "/run"}
	want := []string{
		"--kubeconfig=/k/kubeconfig",
		"--config=/run/kwok-controller.yaml",
		"--manage-all-nodes=false",
		"--manage-nodes-with-label-selector=gangconf.io/run=ab12cd34",
		"--node-lease-duration-seconds=40",
	}
	if got := o.args(); !slices.Equal(got, want) {
		t.Errorf("args =\n%v\nwant\n%v", got, want)
	}
}

func TestKwokControllerBadInput(t *testing.T) {
	dir := t.TempDir()
	o := KwokControllerOptions{Binary: filepath.Join(dir, "kwok"), Kubeconfig: "k", RunID: "r", Dir: dir, LogPath: filepath.Join(dir, "log")}
	if _, err := StartKwokController(o); err == nil || !strings.Contains(err.Error(), "kwok not found (run `make build` first)") {
		t.Errorf("no binary: %v", err)
	}
	o.RunID = "a,b"
	if _, err := StartKwokController(o); err == nil || !strings.Contains(err.Error(), `run ID "a,b" is no label value`) {
		t.Errorf("bad run ID: %v", err)
	}
}

// fakeKwok writes a script standing in for kwok and returns the options
// that start it.
func fakeKwok(t *testing.T, script string) KwokControllerOptions {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "kwok")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return KwokControllerOptions{Binary: bin, Kubeconfig: "k", RunID: "r", Dir: filepath.Join(dir, "run"), LogPath: filepath.Join(dir, "logs", "kwok-controller.log")}
}

// A kwok that exits at start ends the wait at once, with its log's end.
func TestKwokControllerThatExitsIsReportedWithItsLog(t *testing.T) {
	c, err := StartKwokController(fakeKwok(t, `echo "unable to load kubeconfig" >&2; exit 2`))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	start := time.Now()
	err = c.WaitUntil(context.Background(), func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if err == nil || !strings.Contains(err.Error(), "kwok controller exited (exit status 2); last lines of") ||
		!strings.Contains(err.Error(), "unable to load kubeconfig") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the wait took %s after kwok had exited", took)
	}
}

// Stop ends the controller and its group (proc.StopGroup kills one that
// ignores SIGTERM after the grace), and removes the configuration it wrote.
func TestKwokControllerStopEndsItsGroup(t *testing.T) {
	o := fakeKwok(t, `sleep 30 & wait`)
	c, err := StartKwokController(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(o.configPath()); err != nil {
		t.Fatalf("no configuration file: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(proc.Children(c.PID())) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	children := proc.Children(c.PID())
	if len(children) == 0 {
		t.Fatal("the fake kwok never started its sleep")
	}
	c.Stop()
	c.Stop() // twice is fine
	if proc.Alive(c.PID()) {
		t.Error("the controller still runs")
	}
	for _, pid := range children {
		for proc.Alive(pid) && time.Now().Before(deadline.Add(5*time.Second)) {
			time.Sleep(10 * time.Millisecond)
		}
		if proc.Alive(pid) {
			t.Errorf("its child %d still runs", pid)
		}
	}
	if _, err := os.Stat(o.configPath()); !os.IsNotExist(err) {
		t.Errorf("configuration left: %v", err)
	}
}

// A bare profile's control plane has no kwok controller.
func TestWithoutKwokControllerDisablesIt(t *testing.T) {
	o := KwokOptions{Name: "x", BinDir: "/b", WorkDir: "/w"}
	if slices.Contains(o.createArgs("/c"), "--disable=kwok-controller") {
		t.Error("kwok controller disabled by default")
	}
	o.WithoutKwokController = true
	args := o.createArgs("/c")
	if !slices.Contains(args, "--disable=kwok-controller") || !slices.Contains(args, "--disable=kube-scheduler") {
		t.Errorf("args = %v, want both the scheduler and the kwok controller disabled", args)
	}
}
