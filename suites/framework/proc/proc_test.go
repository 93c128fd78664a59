package proc

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// mainThreadExits, set in the environment, makes the test binary a process
// whose main thread exits alone (exit, not exit_group) while its other
// threads (the Go runtime's) run on, as a multi-threaded program's main
// thread may be done before the rest of it during its exit.
const mainThreadExits = "PROC_TEST_MAIN_THREAD_EXITS"

func init() {
	if os.Getenv(mainThreadExits) != "" {
		// Locked in init, main (and TestMain) run on the main thread.
		runtime.LockOSThread()
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(mainThreadExits) != "" {
		go func() { time.Sleep(time.Hour) }()
		_, _, _ = syscall.RawSyscall(syscall.SYS_EXIT, 0, 0, 0)
	}
	os.Exit(m.Run())
}

func TestAProcessWhoseMainThreadExitedFirstIsAliveUntilAllHave(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mainThreadExits+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	mainThreadState := func() string {
		f, err := StatFields(pid)
		if err != nil || len(f) == 0 {
			return ""
		}
		return f[0]
	}
	for deadline := time.Now().Add(10 * time.Second); mainThreadState() != "Z"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the main thread did not exit alone within 10s (state %q)", mainThreadState())
		}
	}
	if !Alive(pid) {
		t.Fatal("a process whose main thread is a zombie and whose other threads run counts as gone")
	}
	_ = cmd.Process.Kill()
	for deadline := time.Now().Add(5 * time.Second); Alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("killed, still alive after 5s")
		}
	}
}

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
