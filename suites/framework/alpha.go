package framework

import (
	"context"
	"fmt"
	"sort"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// RequireGates skips the spec, with the preflight's reason, unless the API
// server has every one of the alpha gates on. The scheduler under test is
// not asked: what it does with the gated fields is what the spec checks.
func (f *Framework) RequireGates(gates ...string) {
	ginkgo.GinkgoHelper()
	for _, g := range gates {
		why, probed := f.AlphaGates[g]
		if !probed {
			ginkgo.Skip(fmt.Sprintf("the preflight did not probe the alpha gate %s", g))
		}
		if why != "" {
			ginkgo.Skip(why)
		}
	}
}

// Occupy binds a standalone pod with the requests to the named node of the
// slice, through the scheduler under test, so that its cache holds the pod
// before the spec goes on. It shapes what the free capacity looks like.
func (s *Spec) Occupy(ctx context.Context, sl *cluster.Slice, node, name string, requests corev1.ResourceList) {
	ginkgo.GinkgoHelper()
	g := s.Gang(name, sl)
	g.Standalone, g.Members, g.Requests = true, 1, requests
	s.bindOnNode(ctx, g, node)
}

// Fence returns once the scheduler under test has handled every pod and
// every PodGroup created before it was called: it binds a one-member gang
// created after them, PodGroup then pod, to the named node, and removes its
// pod. A scheduler handles the events of one kind in the order they
// happened, and the fence's pod is bound only once both its PodGroup and
// itself have been handled.
func (s *Spec) Fence(ctx context.Context, sl *cluster.Slice, node, name string) {
	ginkgo.GinkgoHelper()
	g := s.Gang(name, sl)
	g.MinCount, g.Members = 1, 1
	s.bindOnNode(ctx, g, node)
	zero := int64(0)
	gomega.Expect(s.f.Client.CoreV1().Pods(s.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
		metav1.ListOptions{LabelSelector: g.Selector()})).To(gomega.Succeed())
}

// bindOnNode creates the gang, pinned to the named node of its slice, and
// waits until the scheduler under test has bound its first member.
func (s *Spec) bindOnNode(ctx context.Context, g *gang.Gang, node string) {
	ginkgo.GinkgoHelper()
	pin := g.Pin
	g.Pin = func(p *corev1.Pod) {
		pin(p)
		p.Spec.NodeSelector[corev1.LabelHostname] = node
	}
	s.f.Create(ctx, g)
	s.f.ExpectBound(ctx, g, 1, fmt.Sprintf("the pod of %s is bound to %s", g.Name, node))
}

// CPUs is a request for n CPUs (and nothing else).
func CPUs(n int64) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(n, resource.DecimalSI)}
}

// Placement is where a gang's bound members are.
type Placement struct {
	// Nodes of the bound members, sorted, one entry per member.
	Nodes []string
	// Domains are the distinct values of the topology label on those nodes,
	// sorted; a node without the label counts as "".
	Domains []string
}

// Place finds the nodes of the gang's bound members and their values of
// the topology label key.
func (f *Framework) Place(ctx context.Context, g *gang.Gang, key string) (Placement, error) {
	pods, err := g.Pods(ctx, f.Client)
	if err != nil {
		return Placement{}, err
	}
	var out Placement
	seen := map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			continue
		}
		n, err := f.Client.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			return Placement{}, err
		}
		out.Nodes = append(out.Nodes, n.Name)
		if d := n.Labels[key]; !seen[d] {
			seen[d] = true
			out.Domains = append(out.Domains, d)
		}
	}
	sort.Strings(out.Nodes)
	sort.Strings(out.Domains)
	return out, nil
}

// ExpectOneDomain waits until all members of the gang are bound and checks
// that they share one value of the topology label key, which it returns.
func (f *Framework) ExpectOneDomain(ctx context.Context, g *gang.Gang, key string) Placement {
	ginkgo.GinkgoHelper()
	f.ExpectBound(ctx, g, g.Members, "every member of the gang is bound")
	pl, err := f.Place(ctx, g, key)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(pl.Domains).To(gomega.HaveLen(1), "all members share one %s, but they are on %v", key, pl.Nodes)
	gomega.Expect(pl.Domains[0]).NotTo(gomega.BeEmpty(), "the members' nodes carry %s", key)
	return pl
}
