package framework

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gangconf/gangconf/suites/framework/gang"
)

// ProtectAll gives the gang's pods a PodDisruptionBudget that allows no
// disruption (minAvailable: every member), and waits until the disruption
// controller has computed that: a scheduler reads the budget's status, not
// its spec, and a budget without status protects nothing.
func (s *Spec) ProtectAll(ctx context.Context, g *gang.Gang) *policyv1.PodDisruptionBudget {
	ginkgo.GinkgoHelper()
	minAvailable := intstr.FromInt32(int32(g.Members))
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: g.Name},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &minAvailable,
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{gang.LabelGang: g.Name}},
		},
	}
	pdb, err := s.f.Client.PolicyV1().PodDisruptionBudgets(s.Namespace).Create(ctx, pdb, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create PodDisruptionBudget %s", g.Name)
	gomega.Eventually(ctx, func(ctx context.Context) (string, error) {
		got, err := s.f.Client.PolicyV1().PodDisruptionBudgets(s.Namespace).Get(ctx, pdb.Name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		st := got.Status
		return fmt.Sprintf("observed %v, healthy %d, disruptions allowed %d", st.ObservedGeneration >= got.Generation, st.CurrentHealthy, st.DisruptionsAllowed), nil
	}).WithTimeout(Patience).Should(gomega.Equal(fmt.Sprintf("observed true, healthy %d, disruptions allowed 0", g.Members)),
		"the disruption controller counts every member healthy and allows no disruption")
	return pdb
}
