package settings

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext is cancelled by the signals that end a run from outside:
// Ctrl-C, SIGTERM, SIGHUP (the terminal went away) and SIGPIPE (the reader
// of stdout went away, as `make bench | head` does). Left to Go's defaults,
// SIGHUP and a write to a broken stdout end the process at once, skipping
// the deferred teardown, and the cluster it started stays running. Handled
// here, a write to a broken stdout returns an error instead, and the run
// winds down and stops what it started.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
}

// NoArguments ends a command that takes its settings from the environment,
// as make passes them, when it is given arguments: run anyway, it would
// ignore them and start the default run. -h and --help print usage and exit 0;
// anything else exits 2.
func NoArguments(name, usage string) {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case "-h", "--help", "help":
		fmt.Print(usage)
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "%s: unexpected argument %q\n%s", name, os.Args[1], usage)
	os.Exit(2)
}

// Stopped is what a command stopped by a signal says last, once it has
// stopped what it started: "stopped (terminated signal received)"; "" when
// no signal came. ctx is SignalContext's, before its stop is called.
func Stopped(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	return fmt.Sprintf("stopped (%v)", context.Cause(ctx))
}

// Main is the main function of a command that takes its settings from the
// environment: it refuses arguments (NoArguments), runs run until it
// returns or a signal ends it (SignalContext), and exits with status 1 and
// the error, after name, when run fails. A run a signal ended exits with
// status 1 too, whatever run returned, and says so (Stopped).
func Main(name, usage string, run func(context.Context) error) {
	NoArguments(name, usage)
	ctx, stop := SignalContext()
	err := run(ctx)
	stopped := Stopped(ctx)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	}
	if stopped != "" {
		fmt.Fprintf(os.Stderr, "%s: %s\n", name, stopped)
	}
	if err != nil || stopped != "" {
		os.Exit(1)
	}
}
