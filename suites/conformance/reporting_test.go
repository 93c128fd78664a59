package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// Semantics item 7: a gang short of its quorum waits for its members; it
// is not a gang that failed to fit, and is not reported as one.
var _ = ginkgo.Describe("Waiting for quorum", ginkgo.Label("profile:extended", "area:quorum", "item:7"), func() {
	ginkgo.It("a gang short of its minCount is not attempted: no member is bound or marked PodScheduled=False and its PodGroup reports no failure (watched for 5s); complete, it is bound", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("short", s.Slice(ctx, "gpu-8x", 3, 3), 3, 3, 8)
		gomega.Expect(g.CreateFirst(ctx, f.Client, 2)).To(gomega.Succeed())
		expectWaitingQuietly(ctx, g, "two members of a gang of three")
		gomega.Expect(g.CreatePods(ctx, f.Client, 2, 3)).To(gomega.Succeed())
		f.ExpectBound(ctx, g, 3, "the gang is bound once its third member exists")
	})
})

// expectWaitingQuietly checks, for the quiet window, that no member of a
// waiting gang is bound or marked PodScheduled=False and that its PodGroup
// reports no failure: a gang waiting for members is not one that failed.
func expectWaitingQuietly(ctx context.Context, g *gang.Gang, who string) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(ctx, func(ctx context.Context) ([]string, error) {
		var reported []string
		pods, err := g.Pods(ctx, f.Client)
		if err != nil {
			return nil, err
		}
		for _, p := range pods {
			switch {
			case p.Spec.NodeName != "":
				reported = append(reported, p.Name+" bound")
			case framework.PodUnschedulable(&p):
				reported = append(reported, p.Name+" PodScheduled=False")
			}
		}
		c, err := g.Condition(ctx, f.Client, schedulingv1beta1.PodGroupInitiallyScheduled)
		if c != nil && c.Status == metav1.ConditionFalse {
			reported = append(reported, "PodGroup "+c.Reason)
		}
		return reported, err
	}).WithTimeout(framework.QuietWindow).Should(gomega.BeEmpty(),
		"%s wait, unbound, without being reported unschedulable (watched for %s)", who, framework.QuietWindow)
}
