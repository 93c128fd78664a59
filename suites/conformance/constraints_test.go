package conformance

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// editPods applies edit to every pod of the gang, after its pin if it has
// one.
func editPods(g *gang.Gang, edit func(*corev1.Pod)) {
	pin := g.Pin
	g.Pin = func(p *corev1.Pod) {
		if pin != nil {
			pin(p)
		}
		edit(p)
	}
}

// apart makes the gang's members repel each other: no two on one node.
func apart(g *gang.Gang) {
	editPods(g, func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{gang.LabelGang: g.Name}},
				TopologyKey:   corev1.LabelHostname,
			}},
		}}
	})
}

// hostPort makes every member ask for the same port on its node.
func hostPort(g *gang.Gang, port int32) {
	editPods(g, func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP}}
	})
}

// boundNodes lists the nodes the gang's bound members are on.
func boundNodes(ctx context.Context, g *gang.Gang) []string {
	ginkgo.GinkgoHelper()
	pods, err := g.Pods(ctx, f.Client)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var out []string
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			out = append(out, p.Spec.NodeName)
		}
	}
	return out
}

// nodeNames lists the slice's nodes.
func nodeNames(sl *cluster.Slice) []string {
	out := make([]string, sl.Nodes.Set.Count)
	for i := range out {
		out[i] = sl.Nodes.Node(i).Name
	}
	return out
}

// oneEachGang creates, in a spec of its own, a gang of three 1-GPU members
// that constrain allows one member a node, on a slice of that many 8-GPU
// nodes: room enough on every node, so only the constraint decides.
func oneEachGang(ctx context.Context, name string, nodes int, constrain func(*gang.Gang)) (*gang.Gang, *cluster.Slice) {
	ginkgo.GinkgoHelper()
	s := f.NewSpec(ctx)
	sl := s.Slice(ctx, "gpu-8x", nodes, nodes)
	g := s.GPUGang(name, sl, 3, 3, 1)
	constrain(g)
	f.Create(ctx, g)
	return g, sl
}

// Semantics items 8 and 9, with constraints between the members of a gang:
// what one member takes (its node, its port) rules out places for the
// others, so the gang fits only if the scheduler counts its own members.
var _ = ginkgo.Describe("Constraints between members", ginkgo.Label("profile:core", "area:all-or-nothing"), func() {
	// Two constraints that allow a gang one member a node, each with too few
	// nodes (item 8) and with enough (item 9).
	for _, c := range []struct {
		name      string
		constrain func(*gang.Gang)
		// tooFew and enough are the two specs' texts; unbound says why no
		// member is bound on too few nodes.
		tooFew, unbound, enough string
	}{{
		name:      "apart",
		constrain: apart,
		tooFew:    "a gang of three whose members repel each other by hostname, on two nodes with room for all three, binds no member (watched for 5s after every member was tried)",
		unbound:   "no member is bound when only two of three can be kept apart",
		enough:    "a gang of three whose members repel each other by hostname is bound on three nodes, one member on each",
	}, {
		name:      "port",
		constrain: func(g *gang.Gang) { hostPort(g, 7777) },
		tooFew:    "a gang of three asking for the same host port, on two nodes with room for all three, binds no member (watched for 5s after every member was tried)",
		unbound:   "no member is bound when only two of three can have the port",
		enough:    "a gang of three asking for the same host port is bound on three nodes, one member on each",
	}} {
		ginkgo.It(c.tooFew, ginkgo.Label("item:8"), func(ctx context.Context) {
			g, _ := oneEachGang(ctx, c.name, 2, c.constrain)
			f.ExpectTried(ctx, g)
			f.ExpectStaysBound(ctx, g, 0, c.unbound)
		})

		ginkgo.It(c.enough, ginkgo.Label("item:9"), func(ctx context.Context) {
			g, sl := oneEachGang(ctx, c.name, 3, c.constrain)
			f.ExpectBound(ctx, g, 3, "the three members are bound")
			gomega.Expect(boundNodes(ctx, g)).To(gomega.ConsistOf(nodeNames(sl)), "one member on each node")
		})
	}
})

// claim makes a ReadWriteOncePod claim in the spec's namespace, bound to a
// volume made for it alone (a static binding: the claim names the volume,
// the volume the claim), and waits until the controller manager has bound
// them. The volume is removed with the spec.
func claim(ctx context.Context, s *framework.Spec, name string) {
	ginkgo.GinkgoHelper()
	size := resource.MustParse("1Gi")
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: s.Namespace + "-" + name, Labels: map[string]string{framework.LabelRun: f.RunID}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/gangconf/" + name}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: s.Namespace, Name: name},
		},
	}
	_, err := f.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create PersistentVolume %s", pv.Name)
	ginkgo.DeferCleanup(func(ctx context.Context) error {
		err := f.Client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	none := ""
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod},
			StorageClassName: &none,
			VolumeName:       pv.Name,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}
	_, err = f.Client.CoreV1().PersistentVolumeClaims(s.Namespace).Create(ctx, pvc, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create PersistentVolumeClaim %s", name)
	gomega.Eventually(ctx, func(ctx context.Context) (corev1.PersistentVolumeClaimPhase, error) {
		got, err := f.Client.CoreV1().PersistentVolumeClaims(s.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		return got.Status.Phase, nil
	}).WithTimeout(framework.Patience).Should(gomega.Equal(corev1.ClaimBound), "the controller manager binds claim %s to its volume", name)
}

// useClaims mounts a claim in every member: claimOf gives member i's claim.
func useClaims(g *gang.Gang, claimOf func(i int) string) {
	byPod := map[string]string{}
	for i, n := range g.PodNames() {
		byPod[n] = claimOf(i)
	}
	editPods(g, func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: byPod[p.Name]},
		}})
		p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/data"})
	})
}

// Semantics items 8 and 9, with a volume only one pod may use.
var _ = ginkgo.Describe("Shared volumes", ginkgo.Label("profile:core", "area:all-or-nothing"), func() {
	ginkgo.It("a gang of two sharing one ReadWriteOncePod claim binds no member (watched for 5s after every member was tried)", ginkgo.Label("item:8"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("shared", s.Slice(ctx, "gpu-8x", 2, 2), 2, 2, 1)
		claim(ctx, s, "data")
		useClaims(g, func(int) string { return "data" })
		f.Create(ctx, g)
		f.ExpectTried(ctx, g)
		f.ExpectStaysBound(ctx, g, 0, "no member is bound when only one of two may use the claim")
	})

	ginkgo.It("a gang of two with a ReadWriteOncePod claim each is bound", ginkgo.Label("item:9"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("own", s.Slice(ctx, "gpu-8x", 2, 2), 2, 2, 1)
		claimOf := func(i int) string { return fmt.Sprintf("data-%d", i) }
		for i := 0; i < g.Members; i++ {
			claim(ctx, s, claimOf(i))
		}
		useClaims(g, claimOf)
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 2, "both members, each with its own claim, are bound")
	})
})

// nobody is a schedulerName no scheduler serves.
const nobody = "gangconf-nobody"

// Semantics item 13, for schedulerName. v1.37.2 checks a group's
// consistency over the members it schedules and the members already bound:
// a pending pod naming another scheduler is not this scheduler's to see.
var _ = ginkgo.Describe("Group consistency", ginkgo.Label("profile:core", "area:status", "item:13"), func() {
	ginkgo.Context("a gang one of whose members another scheduler has bound", func() {
		var g *gang.Gang
		ginkgo.BeforeEach(func(ctx context.Context) {
			s := f.NewSpec(ctx)
			sl := s.Slice(ctx, "gpu-8x", 3, 3)
			// minCount 1: the member bound elsewhere meets the quorum on
			// its own, so only the inconsistency keeps the others Pending.
			g = s.GPUGang("two-schedulers", sl, 1, 3, 8)
			_, err := g.CreatePodGroup(ctx, f.Client)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			// Member 0 names a scheduler nobody runs; the spec binds it as
			// that scheduler would, then creates the scheduler under test's two.
			p, err := g.Pod(0)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			p.Spec.SchedulerName = nobody
			_, err = f.Client.CoreV1().Pods(g.Namespace).Create(ctx, p, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(f.Client.CoreV1().Pods(g.Namespace).Bind(ctx, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Name: p.Name},
				Target:     corev1.ObjectReference{Kind: "Node", Name: sl.Nodes.Node(0).Name},
			}, metav1.CreateOptions{})).To(gomega.Succeed())
			f.ExpectBound(ctx, g, 1, "the member of the other scheduler is bound")
			gomega.Expect(g.CreatePods(ctx, f.Client, 1, 3)).To(gomega.Succeed())
		})

		ginkgo.It("is rejected as a group: PodGroupInitiallyScheduled=False, reason SchedulerError (PodGroupError from v1.38), none of the other members bound (watched for 5s)", func(ctx context.Context) {
			expectRejectedAsGroup(ctx, g, 1, "only the member the other scheduler bound is bound")
		})

		ginkgo.It("gives each of the other members a FailedScheduling event", func(ctx context.Context) {
			for i := 1; i < g.Members; i++ {
				f.ExpectEvent(ctx, g.Namespace, g.PodNames()[i], "FailedScheduling", corev1.EventTypeWarning)
			}
		})
	})

	ginkgo.It("a gang whose pending members name two schedulers binds no member (watched for 5s)", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("two-names", s.Slice(ctx, "gpu-8x", 3, 3), 3, 3, 8)
		gomega.Expect(g.CreateFirst(ctx, f.Client, 2)).To(gomega.Succeed())
		p, err := g.Pod(2)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		p.Spec.SchedulerName = nobody
		_, err = f.Client.CoreV1().Pods(g.Namespace).Create(ctx, p, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		f.ExpectStaysBound(ctx, g, 0, "no member of a gang split between two schedulers is bound")
	})
})
