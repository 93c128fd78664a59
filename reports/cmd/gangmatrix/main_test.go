package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// writeVersion makes dir/<version> a results directory: its environment.
func writeVersion(t *testing.T, dir, version string) {
	t.Helper()
	env := results.Environment{KubernetesVersion: version, Machine: results.DescribeMachine()}
	if err := results.WriteJSON(filepath.Join(dir, version, "environment.json"), env); err != nil {
		t.Fatal(err)
	}
}

func TestFewerThanTwoVersionsIsOneClearError(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := write(filepath.Join(dir, "absent"), nil, ""); err == nil || !strings.Contains(err.Error(), "no results of any Kubernetes version") {
		t.Errorf("a missing matrix directory: %v", err)
	}
	writeVersion(t, dir, "v1.37.2")
	_, _, err := write(dir, []string{"v1.37.2", "v1.38.0-beta.0"}, "")
	if err == nil || !strings.Contains(err.Error(), "the results of v1.37.2 alone: a matrix needs two versions or more") || strings.Contains(err.Error(), "\n") {
		t.Errorf("one version: %v", err)
	}
}

func TestTwoVersionsWriteBothReports(t *testing.T) {
	dir := t.TempDir()
	writeVersion(t, dir, "v1.37.2")
	writeVersion(t, dir, "v1.38.0-beta.0")
	path, problems, err := write(dir, []string{"v1.37.2", "v1.38.0-beta.0"}, "")
	if err != nil || path != filepath.Join(dir, "matrix.html") {
		t.Fatalf("write = %q, %v", path, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "matrix.md")); err != nil {
		t.Error(err)
	}
	// Neither version ran a suite: each says so, as a problem, not a failure.
	if !strings.Contains(strings.Join(problems, "\n"), "v1.38.0-beta.0: ginkgo-report.json: missing") {
		t.Errorf("problems = %v", problems)
	}
}
