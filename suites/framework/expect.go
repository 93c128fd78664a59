package framework

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/gangconf/gangconf/suites/framework/gang"
)

// Timeouts of the suites' waits. Something that should happen gets
// Patience; something that must not happen is watched for QuietWindow.
const (
	Patience    = 30 * time.Second
	QuietWindow = 5 * time.Second
)

// ExpectBound waits until exactly n members of the gang are bound.
func (f *Framework) ExpectBound(ctx context.Context, g *gang.Gang, n int, why string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func(ctx context.Context) (int, error) {
		return g.Bound(ctx, f.Client)
	}).WithTimeout(Patience).Should(gomega.Equal(n), why)
}

// ExpectStaysBound checks that exactly n members stay bound for QuietWindow.
func (f *Framework) ExpectStaysBound(ctx context.Context, g *gang.Gang, n int, why string) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(ctx, func(ctx context.Context) (int, error) {
		return g.Bound(ctx, f.Client)
	}).WithTimeout(QuietWindow).Should(gomega.Equal(n), why+fmt.Sprintf(" (watched for %s)", QuietWindow))
}

// ExpectTried waits until the scheduler has looked at every member of the
// gang: each is either bound or marked PodScheduled=False. Only then does a
// "nothing is bound" window mean anything.
func (f *Framework) ExpectTried(ctx context.Context, g *gang.Gang) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
		pods, err := g.Pods(ctx, f.Client)
		if err != nil {
			return nil, err
		}
		var untried []string
		for _, p := range pods {
			if p.Spec.NodeName == "" && !PodUnschedulable(&p) {
				untried = append(untried, p.Name)
			}
		}
		if len(pods) < g.Members {
			untried = append(untried, fmt.Sprintf("(%d of %d pods exist)", len(pods), g.Members))
		}
		return untried, nil
	}).WithTimeout(Patience).Should(gomega.BeEmpty(), "every member is bound or marked PodScheduled=False by the scheduler")
}

// ExpectEvent waits until the pod has an event of the reason, and of the
// type when eventType is set.
func (f *Framework) ExpectEvent(ctx context.Context, namespace, pod, reason, eventType string) {
	ginkgo.GinkgoHelper()
	set := fields.Set{"involvedObject.name": pod, "reason": reason}
	if eventType != "" {
		set["type"] = eventType
	}
	gomega.Eventually(ctx, func(ctx context.Context) ([]corev1.Event, error) {
		l, err := f.Client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: set.AsSelector().String()})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	}).WithTimeout(Patience).ShouldNot(gomega.BeEmpty(), "pod %s gets a %s event", pod, reason)
}

// PodUnschedulable says whether the scheduler marked the pod PodScheduled=False.
func PodUnschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}

// HaveCondition matches a *metav1.Condition of the given status and reason.
func HaveCondition(status metav1.ConditionStatus, reason string) types.GomegaMatcher {
	return gomega.And(
		gomega.Not(gomega.BeNil()),
		gomega.HaveField("Status", status),
		gomega.HaveField("Reason", reason),
	)
}

// ExpectGroupCondition waits until the gang's PodGroup has condition t
// matching m, and returns it.
func (f *Framework) ExpectGroupCondition(ctx context.Context, g *gang.Gang, t string, m types.GomegaMatcher, why string) *metav1.Condition {
	ginkgo.GinkgoHelper()
	var cond *metav1.Condition
	gomega.Eventually(ctx, func(ctx context.Context) (*metav1.Condition, error) {
		var err error
		cond, err = g.Condition(ctx, f.Client, t)
		return cond, err
	}).WithTimeout(Patience).Should(m, why)
	return cond
}

// ExpectInvalid checks that err is the API server's rejection of an invalid
// object (422) naming field. Any other error, a 404 from a server that does
// not serve the API among them, does not count as the rule being enforced.
func ExpectInvalid(err error, field string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(err).To(gomega.HaveOccurred(), "the API server accepted an object that breaks the rule on %s", field)
	gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "want a validation error (422) on %s, got: %v", field, err)
	gomega.Expect(describeInvalid(err)).To(gomega.ContainSubstring(field), "the rejection names %s", field)
}

// describeInvalid is the rejection's causes' fields and its message.
func describeInvalid(err error) string {
	var b strings.Builder
	if st, ok := err.(apierrors.APIStatus); ok && st.Status().Details != nil {
		for _, c := range st.Status().Details.Causes {
			b.WriteString(c.Field + "; ")
		}
	}
	return b.String() + err.Error()
}
