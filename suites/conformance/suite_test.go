// Package conformance checks a scheduler against the PodGroup contract of
// KEP-4671, black-box: it creates PodGroups and pods and asserts only what any
// user of any scheduler can observe through the API.
package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/harness"
	"github.com/gangconf/gangconf/suites/framework/monitor"
	"github.com/gangconf/gangconf/suites/framework/preflight"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

var (
	f   *framework.Framework
	env *harness.Env
	// invariants watches the whole run; it lives on the first process,
	// which also runs the serial spec that reads it.
	invariants *monitor.Monitor
	// removePriorityClasses undoes what the suite added to the cluster.
	removePriorityClasses func(context.Context) error
	runID, noSlices       string
)

func TestConformance(t *testing.T) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "gangconf conformance")
}

// A LABEL_FILTER that selects no spec fails the run before any cluster
// starts: Ginkgo would run nothing and pass.
var _ = ginkgo.ReportBeforeSuite(func(r ginkgo.Report) {
	if err := settings.CheckLabelFilter(r.SuiteConfig.LabelFilter, r.PreRunStats.SpecsThatWillRun, r.PreRunStats.TotalSpecs); err != nil {
		ginkgo.Fail(err.Error())
	}
})

// The first parallel process brings the cluster and the scheduler under test
// up; every process then connects to it.
var _ = ginkgo.SynchronizedBeforeSuite(func(ctx context.Context) []byte {
	s := settings.FromEnv()
	var err error
	// The run's ID comes first: on a cluster the harness did not make, its
	// fake nodes carry it, and the harness's own kwok manages them by it.
	runID = framework.NewRunID()
	env, err = harness.UpRun(ctx, s, runID, func(format string, args ...any) {
		ginkgo.GinkgoWriter.Printf(format+"\n", args...)
	})
	failOn(err)
	gomega.Expect(env.WriteEnvironment(ctx)).To(gomega.Succeed())
	cs, err := env.Clientset()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	// Fake nodes work on kwok clusters the harness made, and wherever it
	// has seen its probe node turn Ready (ManageFakeNodes).
	pre, err := preflight.Run(ctx, cs, s.Provider == "kwok" || env.ProbeNode != nil)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.GinkgoWriter.Println(pre.String())
	// The plan shows in the suite's output whatever follows: a report entry
	// always shown, as GinkgoWriter is only on a failure.
	pre.SetPlan(env.FaultPlan()...)
	ginkgo.AddReportEntry("preflight plan", pre.PlanText(), ginkgo.ReportEntryVisibilityAlways)
	gomega.Expect(pre.Write(s.Results)).To(gomega.Succeed())
	// On a cluster it was handed, or made from a node image the user chose
	// (kind), the harness runs nothing the cluster cannot serve; kwok
	// clusters it made itself (the no-api control among them) go on, so
	// that every spec reports what it finds.
	if s.Provider != "kwok" {
		failOn(pre.Err())
	}
	// A scheduler the harness does not start must answer its name before
	// any spec, or every spec would fail as if it broke the contract.
	failOn(env.CheckSchedulerAnswers(ctx))
	noSlices = pre.NoSlices
	removePriorityClasses, err = framework.EnsurePriorityClasses(ctx, cs)
	failOn(err)
	invariants, err = monitor.Start(ctx, cs, framework.QuietWindow)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return framework.Shared{Kubeconfig: env.Kubeconfig, SchedulerName: env.SchedulerName, RunID: runID, NoSlices: noSlices, AlphaGates: pre.AlphaGates,
		Admission: s.Admission}.Encode()
}, func(ctx context.Context, data []byte) {
	shared, err := framework.DecodeShared(data)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	f, err = framework.New(shared)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
}, ginkgo.NodeTimeout(5*time.Minute))

// failOn fails the suite with err's own message, which says what to fix,
// where gomega would add a dump of the error value around it.
func failOn(err error) {
	if err != nil {
		ginkgo.Fail(err.Error(), 1)
	}
}

// The first process tears down what it brought up, after every other process
// is done; Ginkgo runs this on Ctrl-C too.
var _ = ginkgo.SynchronizedAfterSuite(func() {}, func(ctx context.Context) {
	if invariants != nil {
		invariants.Stop()
	}
	// Every step runs whatever the ones before it returned: with the API
	// server gone, the cleanup calls fail, and the processes must stop anyway.
	var errs []error
	if f != nil && env != nil && env.Provider != "kwok" {
		// After an interrupt, specs may not have cleaned up: remove what this
		// run labelled, and only that.
		errs = append(errs, framework.RemoveRun(ctx, f.Client, f.RunID))
	}
	if removePriorityClasses != nil {
		errs = append(errs, removePriorityClasses(ctx))
	}
	if env != nil {
		errs = append(errs, env.Down())
	}
	gomega.Expect(errors.Join(errs...)).To(gomega.Succeed())
})

// The results bundle: JUnit for CI, the JSON report for the controls check
// and the report generator.
var _ = ginkgo.ReportAfterSuite("results bundle", func(r ginkgo.Report) {
	dir := settings.FromEnv().Results
	gomega.Expect(os.MkdirAll(dir, 0o755)).To(gomega.Succeed())
	gomega.Expect(reporters.GenerateJUnitReportWithConfig(r, filepath.Join(dir, "junit_01.xml"),
		reporters.JunitReportConfig{OmitTimelinesForSpecState: types.SpecStatePassed})).To(gomega.Succeed())
	gomega.Expect(reporters.GenerateJSONReport(r, filepath.Join(dir, "ginkgo-report.json"))).To(gomega.Succeed())
})

// gatedSpecs sets *s, before each spec of the container it is called in, to
// a new Spec, and skips the spec unless the cluster has gates on: the setup
// of every alpha feature's specs.
func gatedSpecs(s **framework.Spec, gates ...string) {
	ginkgo.BeforeEach(func(ctx context.Context) {
		f.RequireGates(gates...)
		*s = f.NewSpec(ctx)
	})
}

// recordedSpecs sets *s, before each spec of the container it is called in,
// to a new Spec, and *rec to a recorder of its pods: the setup of the specs
// that ask what happened to pods that may be gone (preemption, faults).
func recordedSpecs(s **framework.Spec, rec **framework.PodRecorder) {
	ginkgo.BeforeEach(func(ctx context.Context) {
		*s = f.NewSpec(ctx)
		*rec = (*s).RecordPods(ctx)
	})
}

// expectUnschedulable waits until the gang's PodGroup reports
// PodGroupInitiallyScheduled=False, reason Unschedulable, and returns that
// condition.
func expectUnschedulable(ctx context.Context, g *gang.Gang, why string) *metav1.Condition {
	ginkgo.GinkgoHelper()
	return f.ExpectGroupCondition(ctx, g, schedulingv1beta1.PodGroupInitiallyScheduled,
		framework.HaveCondition(metav1.ConditionFalse, schedulingv1beta1.PodGroupReasonUnschedulable), why)
}
