package proc

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestAZombieIsNotAliveAndAnotherBinaryDoesNotRun(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	entry := fmt.Sprintf("/proc/%d", pid)
	sleep, err := os.Readlink(entry + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	if !Alive(pid) || !Runs(pid, sleep) {
		t.Fatalf("a running sleep: alive %v, runs %s %v", Alive(pid), sleep, Runs(pid, sleep))
	}
	if Runs(pid, "/bin/true") {
		t.Fatal("runs a binary it does not execute")
	}
	// Killed and not reaped: a zombie, whose /proc entry stays.
	_ = cmd.Process.Kill()
	for deadline := time.Now().Add(5 * time.Second); Alive(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no zombie to look at: %v", err)
	}
	if Alive(pid) || Runs(pid, sleep) {
		t.Fatal("a zombie counts as alive")
	}
	_ = cmd.Wait()
	if Alive(pid) {
		t.Fatal("a reaped process counts as alive")
	}
}
