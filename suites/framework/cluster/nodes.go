package cluster

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	kubeletapis "k8s.io/kubelet/pkg/apis"

	"github.com/gangconf/gangconf/fixtures"
)

// Labels and annotations on every node the harness makes.
const (
	// LabelNodeSet names the node set a node belongs to (a profile, or a
	// spec's private slice), so a set can be counted and removed as one.
	LabelNodeSet = "gangconf.io/node-set"
	// annotationKwokNode marks a node as kwok's to manage (kwokctl's other
	// runtimes select nodes by it; the binary runtime manages all nodes).
	annotationKwokNode = "kwok.x-k8s.io/node"
	// nodeWorkers is how many node creates run at once. More outpace the
	// kwok controller, which takes each node event in turn: the API server
	// then closes its watch as unresponsive, it starts again from the full
	// state, and patches many nodes Ready twice. gpu-15k on 2 cores with 32:
	// 121 node watchers closed, 444,000 initial node events sent, 23,973
	// status patches, all Ready after 137 s; with 8: 12, 35,700 and 15,108,
	// created at 168 a second and all Ready after 91 s, on 179 CPU s of the
	// control plane and harness rather than 276.
	nodeWorkers = 8
)

// NodeSpec says which nodes to make: Count nodes of Shape, named
// Prefix-00000..., laid out over Topology.
type NodeSpec struct {
	Set    fixtures.NodeSet
	Shape  *fixtures.NodeShape
	Prefix string
	// SetName goes to the LabelNodeSet label.
	SetName string
	// Labels and Taints are added to every node (a spec's slice uses them to
	// keep other specs' pods off its nodes).
	Labels map[string]string
	Taints []corev1.Taint
	// OwnTopology gives the nodes zone, block and rack values of their own,
	// Prefix before each: a spec's racks are then nobody else's. kube-scheduler
	// v1.38 evaluates a sample of a group's feasible placements when there
	// are many (like percentageOfNodesToScore for nodes); racks shared with
	// other specs' slices would count towards it, and could leave the one
	// rack the spec is about out of the sample.
	OwnTopology bool
	// Mutate, if set, changes node i last: a spec that needs some nodes
	// unlike the rest (without a topology label) says so here.
	Mutate func(i int, n *corev1.Node)
	// Registered creates each node with the status kwok's node-initialize
	// stage would write (Ready and kwok's other conditions, its hostname
	// address), as a kubelet whose runtime is up registers its node: the
	// stage then has nothing to patch, a write and a watch event fewer a
	// node. Only where kwok manages every node (the harness's own kwok
	// cluster): elsewhere a node turning Ready is how the harness tells
	// whether anything manages it (Env.ManageFakeNodes).
	Registered bool
}

// ProfileNodes is the NodeSpec of a cluster profile.
func ProfileNodes(p *fixtures.Profile) (NodeSpec, error) {
	shape, err := fixtures.Shape(p.Nodes.Shape)
	if err != nil {
		return NodeSpec{}, err
	}
	return NodeSpec{Set: p.Nodes, Shape: shape, Prefix: p.Nodes.Shape, SetName: p.Name}, nil
}

// Node builds node i of the spec. It carries the deprecated beta os and arch
// labels, which the controller manager would otherwise write into each node
// (see clusterArgs).
func (s NodeSpec) Node(i int) *corev1.Node {
	zone, block, rack := s.Set.Place(i)
	if s.OwnTopology {
		zone, block, rack = s.Prefix+"-"+zone, s.Prefix+"-"+block, s.Prefix+"-"+rack
	}
	lbl := map[string]string{
		"type":                          "kwok",
		LabelNodeSet:                    s.SetName,
		fixtures.LabelZone:              zone,
		fixtures.LabelBlock:             block,
		fixtures.LabelRack:              rack,
		corev1.LabelOSStable:            "linux",
		corev1.LabelArchStable:          "amd64",
		kubeletapis.LabelOS:             "linux",
		kubeletapis.LabelArch:           "amd64",
		corev1.LabelHostname:            s.name(i),
		"kubernetes.io/role":            "agent",
		"node-role.kubernetes.io/agent": "",
	}
	for k, v := range s.Shape.Labels {
		lbl[k] = v
	}
	for k, v := range s.Labels {
		lbl[k] = v
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        s.name(i),
			Labels:      lbl,
			Annotations: map[string]string{annotationKwokNode: "fake"},
		},
		Spec: corev1.NodeSpec{Taints: s.Taints},
		Status: corev1.NodeStatus{
			Capacity:    s.Shape.Capacity.DeepCopy(),
			Allocatable: s.Shape.Capacity.DeepCopy(),
			Phase:       corev1.NodeRunning,
		},
	}
	if s.Registered {
		register(n)
	}
	if s.Mutate != nil {
		s.Mutate(i, n)
	}
	return n
}

// registeredConditions are the conditions kwok's node-initialize stage
// writes (kwok's NodeConditions at the pinned version).
var registeredConditions = []corev1.NodeCondition{
	{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
	{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
	{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
	{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Reason: "RouteCreated", Message: "RouteController created a route"},
}

// register gives n the status a kubelet registers with (NodeSpec.Registered).
func register(n *corev1.Node) {
	now := metav1.Now()
	n.Status.Conditions = make([]corev1.NodeCondition, len(registeredConditions))
	for i, c := range registeredConditions {
		c.LastHeartbeatTime, c.LastTransitionTime = now, now
		n.Status.Conditions[i] = c
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: n.Name}}
	n.Status.NodeInfo = corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux"}
}

func (s NodeSpec) name(i int) string { return fmt.Sprintf("%s-%05d", s.Prefix, i) }

// Selector selects the nodes of the spec.
func (s NodeSpec) Selector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{LabelNodeSet: s.SetName})
}

// CreateNodes creates the spec's nodes in parallel, and stops at the first
// error. Nodes that already exist are left as they are.
func CreateNodes(ctx context.Context, cs kubernetes.Interface, s NodeSpec) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(nodeWorkers)
	for i := 0; i < s.Set.Count && gctx.Err() == nil; i++ {
		g.Go(func() error {
			_, err := cs.CoreV1().Nodes().Create(gctx, s.Node(i), metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("create node %s: %w", s.name(i), err)
			}
			return nil
		})
	}
	return g.Wait()
}

// WaitNodesReady blocks until n nodes matching sel report Ready, watching
// nodes through an informer rather than polling the API server.
func WaitNodesReady(ctx context.Context, cs kubernetes.Interface, sel labels.Selector, n int) error {
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel.String() }))
	return waitCount(ctx, factory, factory.Core().V1().Nodes().Informer(), n, "nodes Ready", func(o any) bool {
		return NodeReady(o.(*corev1.Node))
	})
}

// WaitNodesLeased blocks until every node of the spec has its lease: kwok
// holds a node's lease once it manages the node, and runs the pods bound to
// it from then on.
func WaitNodesLeased(ctx context.Context, cs kubernetes.Interface, s NodeSpec) error {
	names := make(map[string]bool, s.Set.Count)
	for i := 0; i < s.Set.Count; i++ {
		names[s.name(i)] = true
	}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(corev1.NamespaceNodeLease))
	return waitCount(ctx, factory, factory.Coordination().V1().Leases().Informer(), len(names), "nodes with a lease", func(o any) bool {
		return names[o.(*coordinationv1.Lease).Name]
	})
}

// waitCount blocks until n objects in inf's store pass counts, looking again
// at each event; what names them in the error.
func waitCount(ctx context.Context, factory informers.SharedInformerFactory, inf cache.SharedIndexInformer, n int, what string, counts func(any) bool) error {
	changed := make(chan struct{}, 1)
	poke := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    poke,
		UpdateFunc: func(_, o any) { poke(o) },
		DeleteFunc: poke,
	}); err != nil {
		return err
	}
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("0 of %d %s (the watch never synced): %w", n, what, ctx.Err())
	}
	for {
		got := 0
		for _, o := range inf.GetStore().List() {
			if counts(o) {
				got++
			}
		}
		if got >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d %s: %w", got, n, what, ctx.Err())
		case <-changed:
		}
	}
}

// NodeReady says whether the node's Ready condition is True.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// DeleteNodes removes the spec's nodes and waits until they are gone.
func DeleteNodes(ctx context.Context, cs kubernetes.Interface, s NodeSpec) error {
	sel := s.Selector().String()
	if err := cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sel}); err != nil {
		return fmt.Errorf("delete nodes %s: %w", sel, err)
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel, Limit: 1})
		return err == nil && len(l.Items) == 0, nil
	})
}

// WaitServiceAccount waits until the namespace's default service account
// exists: pods are admitted only then, and the controller manager makes it
// a moment after the namespace.
func WaitServiceAccount(ctx context.Context, cs kubernetes.Interface, namespace string) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("namespace %s has no default service account yet: %w", namespace, err)
	}
	return nil
}
