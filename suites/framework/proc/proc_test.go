package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
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

// eventually polls cond every 10 ms until it holds or timeout has passed,
// and says whether it held.
func eventually(timeout time.Duration, cond func() bool) bool {
	return wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, timeout, true,
		func(context.Context) (bool, error) { return cond(), nil }) == nil
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
	if !eventually(10*time.Second, func() bool { return mainThreadState() == "Z" }) {
		t.Fatalf("the main thread did not exit alone within 10s (state %q)", mainThreadState())
	}
	if !Alive(pid) {
		t.Fatal("a process whose main thread is a zombie and whose other threads run counts as gone")
	}
	_ = cmd.Process.Kill()
	if !eventually(5*time.Second, func() bool { return !Alive(pid) }) {
		t.Fatal("killed, still alive after 5s")
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
	eventually(5*time.Second, func() bool { return !Alive(pid) })
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

// A signal for Ginkgo and its processes reaches the process and its
// children, and not their children in turn (the helpers they stop).
func TestSignalWithChildrenStopsAtGrandchildren(t *testing.T) {
	// "; :" keeps each shell from replacing itself with its last command.
	cmd := exec.Command("bash", "-c", `bash -c "sleep 60; :" & wait; :`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var child, grandchild int
	if !eventually(10*time.Second, func() bool {
		if c := Children(cmd.Process.Pid); len(c) == 1 {
			child = c[0]
			if g := Children(child); len(g) == 1 {
				grandchild = g[0]
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no child with a child of its own under %d", cmd.Process.Pid)
	}
	t.Cleanup(func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) })
	if err := SignalWithChildren(cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !eventually(10*time.Second, func() bool { return !Alive(child) }) {
		t.Fatalf("child %d still alive", child)
	}
	if !Alive(grandchild) {
		t.Fatalf("grandchild %d was signalled too", grandchild)
	}
}

// A process that ignores SIGTERM, and its child in the same group, are
// killed once the grace is over.
func TestStopGroupKillsWhatIgnoresSIGTERM(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap "" TERM; sleep 30 & wait`)
	OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	pid := cmd.Process.Pid
	if !eventually(5*time.Second, func() bool { return len(Children(pid)) == 1 }) {
		t.Fatal("the shell never started its sleep")
	}
	child := Children(pid)[0]
	start := time.Now()
	StopGroup(pid, exited, 200*time.Millisecond)
	if took := time.Since(start); took < 200*time.Millisecond || took > 5*time.Second {
		t.Errorf("StopGroup took %s, want the 200ms grace and a little", took)
	}
	if !eventually(5*time.Second, func() bool { return !Alive(child) }) {
		t.Errorf("the group's other process (PID %d) still runs", child)
	}
}
