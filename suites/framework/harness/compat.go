package harness

import (
	"github.com/gangconf/gangconf/suites/framework/preflight"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// The names the conformance suites and commands knew from before the
// harness was split by job; new code uses settings and preflight directly.
var (
	// FromEnv is settings.FromEnv.
	FromEnv = settings.FromEnv
	// RunPreflight is preflight.Run.
	RunPreflight = preflight.Run
	// SignalContext is settings.SignalContext.
	SignalContext = settings.SignalContext
)

// The alpha gates, as preflight names them.
const (
	GateTopology         = preflight.GateTopology
	GateComposite        = preflight.GateComposite
	GatePreemptionPolicy = preflight.GatePreemptionPolicy
	GateWorkloadWithJob  = preflight.GateWorkloadWithJob
)
