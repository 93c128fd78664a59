// Package framework is what the conformance suites and the benchmarks share:
// the run's settings and clients, and per-spec setup (a namespace and a
// private slice of nodes) that cleans up after itself.
package framework

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/versions"
)

// LabelRun marks every namespace and node the harness creates (see
// cluster.LabelRun).
const LabelRun = cluster.LabelRun

// Shared is what the first parallel process hands every other one.
type Shared struct {
	Kubeconfig    string `json:"kubeconfig"`
	SchedulerName string `json:"schedulerName"`
	// RunID labels every namespace and node this run creates.
	RunID string `json:"runID"`
	// NoSlices, when set, is why specs that need a private node slice are
	// skipped (the cluster cannot make fake nodes).
	NoSlices string `json:"noSlices,omitempty"`
	// AlphaGates is the preflight's finding per alpha gate: "" when the
	// API server has it on, else why specs that need it are skipped.
	AlphaGates map[string]string `json:"alphaGates,omitempty"`
	// Admission is the admission controller in front of the scheduler
	// (ADMISSION, package admission); "" when there is none.
	Admission string `json:"admission,omitempty"`
}

// NewRunID names a run.
func NewRunID() string { return randomID() }

// Encode and DecodeShared carry Shared between Ginkgo's parallel processes.
func (s Shared) Encode() []byte { b, _ := json.Marshal(s); return b }

// DecodeShared is the inverse of Encode.
func DecodeShared(b []byte) (Shared, error) {
	var s Shared
	return s, json.Unmarshal(b, &s)
}

// Framework is one parallel process's view of the run.
type Framework struct {
	Shared
	Client kubernetes.Interface
	// Contract is what the cluster's Kubernetes version promises where
	// versions differ (package versions).
	Contract versions.Contract
}

// New connects to the run's cluster.
func New(s Shared) (*Framework, error) {
	cfg, err := cluster.RESTConfig(s.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	info, err := cs.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("the API server's version: %w", err)
	}
	return &Framework{Shared: s, Client: cs, Contract: versions.For(info.GitVersion)}, nil
}

// Spec is one spec's private world: a namespace, and the node slices it asks for.
type Spec struct {
	f         *Framework
	ID        string
	Namespace string
	slices    []*cluster.Slice
}

// NewSpec makes a namespace for the current spec and registers its removal.
func (f *Framework) NewSpec(ctx context.Context) *Spec {
	ginkgo.GinkgoHelper()
	id := "gc-" + randomID()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: id, Labels: map[string]string{LabelRun: f.RunID}}}
	_, err := f.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create namespace %s", id)
	s := &Spec{f: f, ID: id, Namespace: id}
	ginkgo.DeferCleanup(s.cleanup)
	gomega.Expect(cluster.WaitServiceAccount(ctx, f.Client, id)).To(gomega.Succeed())
	return s
}

// Slice creates count nodes of shape (racks of perRack) for this spec alone.
func (s *Spec) Slice(ctx context.Context, shape string, count, perRack int) *cluster.Slice {
	ginkgo.GinkgoHelper()
	return s.CustomSlice(ctx, shape, count, perRack, nil)
}

// CustomSlice is Slice with mutate applied to each node i last (a node
// without a label the others have); nil changes nothing.
func (s *Spec) CustomSlice(ctx context.Context, shape string, count, perRack int, mutate func(int, *corev1.Node)) *cluster.Slice {
	ginkgo.GinkgoHelper()
	if s.f.NoSlices != "" {
		ginkgo.Skip(s.f.NoSlices)
	}
	sl, err := cluster.NewCustomSlice(ctx, s.f.Client, fmt.Sprintf("%s-s%d", s.ID, len(s.slices)), shape, count, perRack, map[string]string{LabelRun: s.f.RunID}, mutate)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create node slice %s", s.ID)
	s.slices = append(s.slices, sl)
	s.expectSchedulerSees(ctx, sl)
	return sl
}

// expectSchedulerSees waits until the scheduler under test knows every node
// of the slice: Ready in the API is not yet in the scheduler's cache, and a
// scheduler that sees only part of a slice places gangs, or picks victims,
// on the part it sees. One empty pod per node, selecting that node by name,
// is bound only by a scheduler that has the node; the pods are then removed.
func (s *Spec) expectSchedulerSees(ctx context.Context, sl *cluster.Slice) {
	ginkgo.GinkgoHelper()
	probe := &gang.Gang{Namespace: s.Namespace, Name: sl.ID + "-seen", Standalone: true, SchedulerName: s.f.SchedulerName, Pin: sl.Pin}
	for i := 0; i < sl.Nodes.Set.Count; i++ {
		p, err := probe.Pod(i)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		p.Spec.NodeSelector[corev1.LabelHostname] = sl.Nodes.Node(i).Name
		_, err = s.f.Client.CoreV1().Pods(s.Namespace).Create(ctx, p, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	}
	probe.Members = sl.Nodes.Set.Count
	s.f.ExpectBound(ctx, probe, probe.Members, "the scheduler binds a probe pod to every node of the slice")
	zero := int64(0)
	gomega.Expect(s.f.Client.CoreV1().Pods(s.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
		metav1.ListOptions{LabelSelector: probe.Selector()})).To(gomega.Succeed())
}

// cleanup removes the spec's pods first (at once: kwok pods have no kubelet
// to wait for), then its nodes, then its namespace.
func (s *Spec) cleanup(ctx context.Context) {
	// Held pods would keep the namespace Terminating for ever.
	_ = gang.Release(ctx, s.f.Client, s.Namespace)
	zero := int64(0)
	_ = s.f.Client.CoreV1().Pods(s.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	for _, sl := range s.slices {
		_ = sl.Delete(ctx, s.f.Client)
	}
	_ = s.f.Client.CoreV1().Namespaces().Delete(ctx, s.Namespace, metav1.DeleteOptions{})
}

// Gang returns a gang in this spec's namespace, pinned to the slice, with
// the scheduler under test's name.
func (s *Spec) Gang(name string, sl *cluster.Slice) *gang.Gang {
	g := &gang.Gang{Namespace: s.Namespace, Name: name, SchedulerName: s.f.SchedulerName}
	if sl != nil {
		g.Pin = sl.Pin
	}
	return g
}

// GPUGang is a gang of members pods of gpus GPUs each, with quorum minCount,
// pinned to the slice.
func (s *Spec) GPUGang(name string, sl *cluster.Slice, minCount int32, members int, gpus int64) *gang.Gang {
	g := s.Gang(name, sl)
	g.MinCount, g.Members, g.Requests = minCount, members, gang.GPUs(gpus)
	return g
}

// Create creates the gang (PodGroup, then pods) and fails the spec if the
// API server refuses.
func (f *Framework) Create(ctx context.Context, g *gang.Gang) {
	ginkgo.GinkgoHelper()
	gomega.Expect(g.Create(ctx, f.Client)).To(gomega.Succeed())
}

// RemoveRun deletes every namespace and node labelled with the run's ID:
// what specs left behind when the run was interrupted, and nothing else.
func RemoveRun(ctx context.Context, cs kubernetes.Interface, runID string) error {
	sel := metav1.ListOptions{LabelSelector: LabelRun + "=" + runID}
	nss, err := cs.CoreV1().Namespaces().List(ctx, sel)
	if err != nil {
		return err
	}
	var errs []error
	for _, ns := range nss.Items {
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if err := cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func randomID() string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}

// EnsurePriorityClasses creates the fixtures' priority classes that the
// cluster lacks, and returns a function that removes only those it created.
func EnsurePriorityClasses(ctx context.Context, cs kubernetes.Interface) (func(context.Context) error, error) {
	pcs, err := fixtures.PriorityClasses()
	if err != nil {
		return nil, err
	}
	var created []string
	undo := func(ctx context.Context) error {
		var errs []error
		for _, n := range created {
			if err := cs.SchedulingV1().PriorityClasses().Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	for i := range pcs {
		_, err := cs.SchedulingV1().PriorityClasses().Create(ctx, &pcs[i], metav1.CreateOptions{})
		switch {
		case err == nil:
			created = append(created, pcs[i].Name)
		case apierrors.IsAlreadyExists(err):
		case apierrors.IsForbidden(err):
			_ = undo(ctx)
			// Classes that exist already are used as they are, so an admin
			// can create them once for a kubeconfig with fewer rights.
			return nil, fmt.Errorf("the kubeconfig may not create PriorityClasses (%v); give it rights to create scheduling.k8s.io/v1 priorityclasses, "+
				"or have an admin create the suite's classes once from fixtures/templates/priorityclasses.yaml", err)
		default:
			_ = undo(ctx)
			return nil, fmt.Errorf("create PriorityClass %s: %w", pcs[i].Name, err)
		}
	}
	return undo, nil
}
