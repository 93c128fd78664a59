package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeatwithlease "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"

	"github.com/gangconf/gangconf/suites/framework/proc"
)

// LabelRun marks every namespace and node a run creates, with the run's ID
// as its value, so that they can be found and removed, and nothing else
// touched; the harness's own kwok controller manages the nodes of its run
// by it.
const LabelRun = "gangconf.io/run"

// kwokNodeLeaseSeconds is the lease the harness's kwok controller keeps for
// each node. A real cluster's node lifecycle controller marks a node whose
// lease is not renewed within its grace period (40 s by default) NotReady
// and evicts its pods; kwokctl gives its kind clusters the same 40 s.
const kwokNodeLeaseSeconds = 40

// kwokStopGrace bounds how long the controller may take to exit on SIGTERM
// before it is killed.
const kwokStopGrace = 10 * time.Second

// KwokControllerOptions says how to run the harness's own kwok controller on
// a cluster it did not make.
type KwokControllerOptions struct {
	// Binary is the pinned kwok ($(BIN_DIR)/kwok).
	Binary string
	// Kubeconfig is the cluster's.
	Kubeconfig string
	// RunID selects the nodes the controller manages: those labelled
	// LabelRun=RunID, and so the pods bound to them; nothing else.
	RunID string
	// Dir receives the controller's configuration file.
	Dir string
	// LogPath receives its output.
	LogPath string
}

// KwokController is a kwok controller process the harness started; it makes
// the run's fake nodes Ready, keeps their leases, and runs the pods bound to
// them.
type KwokController struct {
	opts   KwokControllerOptions
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// kwokControllerConfig is the controller's --config file: kwok's parallelism
// (kwokConfiguration), then the Stages kwokctl gives a kwok controller whose
// nodes hold leases (node init, heartbeat with lease; pod ready, complete,
// delete), taken from kwok's own packages at the pinned version.
func kwokControllerConfig() string {
	docs := []string{
		kwokConfiguration,
		nodefast.DefaultNodeInit,
		nodeheartbeatwithlease.DefaultNodeHeartbeatWithLease,
		podfast.DefaultPodReady,
		podfast.DefaultPodComplete,
		podfast.DefaultPodDelete,
	}
	for i, d := range docs {
		docs[i] = strings.TrimSuffix(d, "\n") + "\n"
	}
	return strings.Join(docs, "---\n")
}

// configPath is where the controller's configuration file goes.
func (o KwokControllerOptions) configPath() string {
	return filepath.Join(o.Dir, "kwok-controller.yaml")
}

// args is the controller's command line. It serves nothing (no
// --server-address or --node-port): the suites never exec into, attach to
// or read logs of a fake pod.
func (o KwokControllerOptions) args() []string {
	return []string{
		"--kubeconfig=" + o.Kubeconfig,
		"--config=" + o.configPath(),
		"--manage-all-nodes=false",
		"--manage-nodes-with-label-selector=" + LabelRun + "=" + o.RunID,
		fmt.Sprintf("--node-lease-duration-seconds=%d", kwokNodeLeaseSeconds),
	}
}

func (o KwokControllerOptions) validate() error {
	if o.Kubeconfig == "" || o.RunID == "" || o.Dir == "" || o.LogPath == "" {
		return fmt.Errorf("kwok controller needs a kubeconfig, a run ID, a directory and a log path")
	}
	if strings.ContainsAny(o.RunID, ",=! ") {
		return fmt.Errorf("run ID %q is no label value", o.RunID)
	}
	return CheckBinaries(filepath.Dir(o.Binary), filepath.Base(o.Binary))
}

// StartKwokController writes the controller's configuration and starts it in
// a process group of its own; Stop ends it. It does not wait for the
// controller to do anything: see Exited and ExitError.
func StartKwokController(o KwokControllerOptions) (*KwokController, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(o.configPath(), []byte(kwokControllerConfig()), 0o644); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(o.LogPath), 0o755); err != nil {
		return nil, err
	}
	log, err := os.Create(o.LogPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	c := &KwokController{opts: o, exited: make(chan struct{})}
	c.cmd = exec.Command(o.Binary, o.args()...)
	c.cmd.Stdout, c.cmd.Stderr = log, log
	proc.OwnGroup(c.cmd)
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start kwok controller %s: %w", o.Binary, err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// PID is the controller's process ID.
func (c *KwokController) PID() int { return c.cmd.Process.Pid }

// LogPath is where the controller's output goes.
func (c *KwokController) LogPath() string { return c.opts.LogPath }

// Exited is closed once the controller has ended.
func (c *KwokController) Exited() <-chan struct{} { return c.exited }

// ExitError says that the controller ended, how, and what its log said last;
// nil while it runs.
func (c *KwokController) ExitError() error {
	select {
	case <-c.exited:
	default:
		return nil
	}
	return fmt.Errorf("kwok controller exited (%v); last lines of %s:\n%s", c.err, c.opts.LogPath, tail(c.opts.LogPath, 15))
}

// Stop ends the controller (SIGTERM, then SIGKILL after kwokStopGrace) and
// removes its configuration. It is safe to call more than once.
func (c *KwokController) Stop() {
	proc.StopGroup(c.PID(), c.exited, kwokStopGrace)
	_ = os.Remove(c.opts.configPath())
}

// WaitUntil runs wait with a context that ends early if the controller
// exits, and then reports the exit rather than wait's error.
func (c *KwokController) WaitUntil(ctx context.Context, wait func(context.Context) error) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.exited:
			cancel()
		case <-wctx.Done():
		}
	}()
	err := wait(wctx)
	if exit := c.ExitError(); exit != nil && err != nil {
		return exit
	}
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("stopped waiting for the kwok controller: %w", ctx.Err())
	}
	return err
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
