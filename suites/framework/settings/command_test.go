package settings

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// commandChild, when set, makes the test binary a child of the tests below:
// "args" calls NoArguments; "main" runs Main until a signal; "pipe" and
// "hup" write to stdout until SignalContext's context ends, then exit with
// status 3.
const commandChild = "GANGCONF_COMMAND_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(commandChild) {
	case "":
		os.Exit(m.Run())
	case "args":
		NoArguments("child", "usage: child\n")
		os.Exit(5)
	case "main":
		os.Args = os.Args[:1]
		Main("child", "usage: child\n", func(ctx context.Context) error {
			fmt.Println("running")
			<-ctx.Done()
			return nil
		})
		os.Exit(0)
	default:
		os.Exit(signalChild(os.Getenv(commandChild) == "hup"))
	}
}

func signalChild(hangUp bool) int {
	ctx, stop := SignalContext()
	defer stop()
	if hangUp {
		_ = syscall.Kill(os.Getpid(), syscall.SIGHUP)
	}
	deadline := time.After(time.Minute)
	for ctx.Err() == nil {
		fmt.Println("still running")
		select {
		case <-deadline:
			return 4
		case <-time.After(10 * time.Millisecond):
		}
	}
	return 3
}

// A process whose stdout reader went away, or whose terminal hung up, gets to
// its teardown (here: exit status 3) rather than being killed by the signal.
func TestSignalContextOutlivesABrokenStdoutAndAHangup(t *testing.T) {
	for _, mode := range []string{"pipe", "hup"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), commandChild+"="+mode)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if mode == "pipe" {
				// Read one line so the child is past SignalContext, then
				// go away as `| head -1` does.
				if _, err := out.Read(make([]byte, 1)); err != nil {
					t.Fatal(err)
				}
				_ = out.Close()
			} else {
				go func() { _, _ = io.Copy(io.Discard, out) }()
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Fatalf("child ended with %v, want exit status 3 after its context was cancelled", err)
			}
		})
	}
}

func TestNoArgumentsStopsACommandGivenArguments(t *testing.T) {
	for _, c := range []struct {
		arg    string
		status int
		stdout string
	}{
		{"-h", 0, "usage: child\n"},
		{"SCENARIO=smoke", 2, ""},
	} {
		cmd := exec.Command(os.Args[0], c.arg)
		cmd.Env = append(os.Environ(), commandChild+"=args")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		if got := cmd.ProcessState.ExitCode(); got != c.status || stdout.String() != c.stdout {
			t.Errorf("child %s: status %d, stdout %q; want %d, %q", c.arg, got, stdout.String(), c.status, c.stdout)
		}
		if c.status != 0 && !strings.Contains(stderr.String(), `unexpected argument "`+c.arg+`"`) {
			t.Errorf("child %s: stderr %q does not name the argument", c.arg, stderr.String())
		}
	}
}

// A command a signal stopped says so last, and exits non-zero even though
// its run returned no error.
func TestMainSaysItWasStopped(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), commandChild+"=main")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once it prints, its run is under way and the signal is handled.
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child ended with %v, want exit status 1", err)
	}
	if want := "child: stopped (terminated signal received)\n"; stderr.String() != want {
		t.Fatalf("stderr %q, want %q", stderr.String(), want)
	}
}
