package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestProcessesLeftNamesWhatHoldsTheResultsDirectory(t *testing.T) {
	exitWait = time.Second
	out := filepath.Join(t.TempDir(), "vendor")
	cmd := exec.Command("sleep", "600")
	cmd.Env = append(os.Environ(), "RESULTS="+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if left := processesLeft(out); len(left) != 1 {
		t.Fatalf("left = %v, want the sleep alone (this test and its ancestors are not the run's)", left)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if left := processesLeft(out); len(left) != 0 {
		t.Fatalf("left = %v after the process ended", left)
	}
}
