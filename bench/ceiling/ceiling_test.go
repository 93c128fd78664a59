package ceiling

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"

	"github.com/gangconf/gangconf/suites/framework/gang"
)

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
// the API; a group deleted and made again is held again. The objects are the
// ones the bench creates (gang.Gang's builders).
func TestBinderHoldsAGangUntilMinCountMembersArePending(t *testing.T) {
	ofGang := &gang.Gang{Namespace: "ns", Name: "gang", MinCount: 3}
	basic := &gang.Gang{Namespace: "ns", Name: "basic", Basic: true}
	unwatched := &gang.Gang{Namespace: "ns", Name: "unwatched", MinCount: 2}
	lone := &gang.Gang{Namespace: "ns", Name: "lone", Standalone: true}
	missing := &gang.Gang{Namespace: "ns", Name: "no-such-group", MinCount: 2}

	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, g := range []*gang.Gang{ofGang, basic} {
		pg, err := g.PodGroup()
		if err != nil {
			t.Fatal(err)
		}
		if err := indexer.Add(pg); err != nil {
			t.Fatal(err)
		}
	}
	unwatchedGroup, err := unwatched.PodGroup()
	if err != nil {
		t.Fatal(err)
	}
	b := &Binder{
		cs:     fake.NewClientset(unwatchedGroup),
		groups: schedulinglisters.NewPodGroupLister(indexer),
		held:   map[string][]*corev1.Pod{}, open: map[string]bool{},
	}
	ctx := context.Background()
	steps := []struct {
		g      *gang.Gang
		member int
		forget string
		want   string
	}{
		{g: ofGang, member: 0, want: "[]"},
		{g: basic, member: 0, want: "[basic-0]"},
		{g: ofGang, member: 1, want: "[]"},
		{g: lone, member: 0, want: "[lone-0]"},
		{g: missing, member: 0, want: "[no-such-group-0]"},
		{g: ofGang, member: 2, want: "[gang-0 gang-1 gang-2]"},
		{g: ofGang, member: 3, want: "[gang-3]"},
		{g: unwatched, member: 0, want: "[]"},
		{g: unwatched, member: 1, want: "[unwatched-0 unwatched-1]"},
		{forget: "ns/gang"},
		{g: ofGang, member: 4, want: "[]"},
	}
	for _, s := range steps {
		if s.forget != "" {
			b.forget(s.forget)
			continue
		}
		p, err := s.g.Pod(s.member)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmtNames(b.admit(ctx, p)); got != s.want {
			t.Fatalf("admit(%s) = %s, want %s", p.Name, got, s.want)
		}
	}
}
