package ceiling

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"
)

func podGroup(name string, gangMin int32) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	if gangMin > 0 {
		pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: gangMin}
	} else {
		pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	return pg
}

func member(name, group string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	if group != "" {
		p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &group}
	}
	return p
}

func fmtNames(pods []*corev1.Pod) string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return fmt.Sprint(out)
}

// A gang's members wait until minCount of them are pending and go together;
// members after that, pods of basic groups, of no group or of a group that
// does not exist go at once; a group the watch has not seen yet is read from
// the API; a group deleted and made again is held again.
func TestBinderHoldsAGangUntilMinCountMembersArePending(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, pg := range []*schedulingv1beta1.PodGroup{podGroup("gang", 3), podGroup("basic", 0)} {
		if err := indexer.Add(pg); err != nil {
			t.Fatal(err)
		}
	}
	b := &Binder{
		cs:     fake.NewClientset(podGroup("unwatched", 2)),
		groups: schedulinglisters.NewPodGroupLister(indexer),
		held:   map[string][]*corev1.Pod{}, open: map[string]bool{},
	}
	ctx := context.Background()
	steps := []struct {
		pod    *corev1.Pod
		forget string
		want   string
	}{
		{pod: member("g1", "gang"), want: "[]"},
		{pod: member("b1", "basic"), want: "[b1]"},
		{pod: member("g2", "gang"), want: "[]"},
		{pod: member("lone", ""), want: "[lone]"},
		{pod: member("missing", "no-such-group"), want: "[missing]"},
		{pod: member("g3", "gang"), want: "[g1 g2 g3]"},
		{pod: member("g4", "gang"), want: "[g4]"},
		{pod: member("u1", "unwatched"), want: "[]"},
		{pod: member("u2", "unwatched"), want: "[u1 u2]"},
		{forget: "ns/gang"},
		{pod: member("g5", "gang"), want: "[]"},
	}
	for _, s := range steps {
		if s.forget != "" {
			b.forget(s.forget)
			continue
		}
		if got := fmtNames(b.admit(ctx, s.pod)); got != s.want {
			t.Fatalf("admit(%s) = %s, want %s", s.pod.Name, got, s.want)
		}
	}
}
