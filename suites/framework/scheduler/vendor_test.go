package scheduler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCommandTemplateIsFilled(t *testing.T) {
	o := CommandOptions{Template: "volcano-scheduler --kubeconfig={{.Kubeconfig}} --scheduler-name={{.SchedulerName}}", Kubeconfig: "/k", SchedulerName: "volcano"}
	line, err := o.CommandLine()
	if err != nil || line != "volcano-scheduler --kubeconfig=/k --scheduler-name=volcano" {
		t.Fatalf("line = %q, %v", line, err)
	}
	for tmpl, want := range map[string]string{
		"":                       "SCHEDULER_CMD is empty",
		"x {{.Kubeconfg}}":       "the fields are {{.Kubeconfig}} and {{.SchedulerName}}",
		"x {{.Kubeconfig":        "not a valid template",
		"   {{/* nothing */}}  ": "SCHEDULER_CMD is empty",
	} {
		if _, err := (CommandOptions{Template: tmpl}).CommandLine(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("template %q: err = %v, want %q", tmpl, err, want)
		}
	}
}

// startCommand starts a command scheduler named vendor, with a kubeconfig of
// its own in dir, and returns it and that kubeconfig's path.
func startCommand(t *testing.T, dir, template string) (*Process, string) {
	t.Helper()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Command(CommandOptions{Template: template, Kubeconfig: kc, SchedulerName: "vendor", RunDir: dir, LogDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	return p, kc
}

func TestCommandSchedulerRunsUnderAShellAndStopsWithItsChildren(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	// A child that outlives its shell unless the whole group is stopped.
	p, kc := startCommand(t, dir, "echo {{.SchedulerName}} {{.Kubeconfig}} > "+marker+"; sleep 600 & wait")
	err := p.WaitUntil(context.Background(), 10*time.Second, "writing its marker", func(context.Context) bool {
		_, err := os.Stat(marker)
		return err == nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(marker)
	if strings.TrimSpace(string(got)) != "vendor "+kc {
		t.Fatalf("the command saw %q", got)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitUntil(context.Background(), 10*time.Second, "", func(context.Context) bool { return false }); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("process still running after Stop: %v", err)
	}
}

func TestKubeSchedulerTakesTheNameFromTheConfiguration(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	_ = os.WriteFile(kc, []byte("x"), 0o600)
	bin := filepath.Join(dir, "kube-scheduler")
	_ = os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	cfg := []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: yunikorn\n")
	p, name, err := KubeScheduler(KubeSchedulerOptions{Name: "binary", Binary: bin, Config: cfg, ExtraArgs: []string{"--v=4"}, Kubeconfig: kc, RunDir: dir, LogDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if name != "yunikorn" {
		t.Errorf("schedulerName = %q", name)
	}
	if p.Args[len(p.Args)-1] != "--v=4" || !strings.HasPrefix(p.ReadyURL, "https://127.0.0.1:") {
		t.Errorf("process = %+v", p)
	}
	written, _ := os.ReadFile(filepath.Join(dir, "scheduler-binary.yaml"))
	if !strings.Contains(string(written), "kubeconfig: "+kc) {
		t.Errorf("the copied configuration lacks the kubeconfig:\n%s", written)
	}
	if _, _, err := KubeScheduler(KubeSchedulerOptions{Name: "binary", Binary: filepath.Join(dir, "nope"), Config: cfg, Kubeconfig: kc, RunDir: dir, LogDir: dir}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing binary: %v", err)
	}
	if name := ConfigSchedulerName([]byte("kind: KubeSchedulerConfiguration\n")); name != "default-scheduler" {
		t.Errorf("default name = %q", name)
	}
}

// A wait the run's own cancellation ends (Ctrl-C, SIGTERM) says so, and
// does not blame the scheduler for being slow; a timeout still does.
func TestWaitUntilTellsAStoppedRunFromASlowScheduler(t *testing.T) {
	p, _ := startCommand(t, t.TempDir(), "sleep 600")
	defer func() { _ = p.Stop() }()
	never := func(context.Context) bool { return false }
	if err := p.WaitUntil(context.Background(), 300*time.Millisecond, "ready", never); err == nil || !strings.Contains(err.Error(), "not ready after 300ms") {
		t.Fatalf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.WaitUntil(ctx, time.Minute, "ready", never); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "after") {
		t.Fatalf("cancelled run: %v", err)
	}
}
