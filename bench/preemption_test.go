package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangconf/gangconf/suites/framework/fakeapi"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// The preemption scenario is opt-in, runs both disruption modes at the
// same victim sizes on gpu-5k, and bounds its figures.
func TestPreemptionScenarioIsOptInAndValidates(t *testing.T) {
	s, err := Load("workload-preemption")
	if err != nil {
		t.Fatal(err)
	}
	if s.Cluster != "gpu-5k" || slices.Contains(s.Labels, labelStandardSet) {
		t.Fatalf("cluster %s, labels %v: want gpu-5k and not standard", s.Cluster, s.Labels)
	}
	modes := map[string][]int{}
	for _, w := range s.Workloads {
		if w.Preemption == nil {
			t.Fatalf("workload %s is no preemption", w.Name)
		}
		modes[w.Preemption.DisruptionMode] = w.Sizes
		if len(w.Thresholds) == 0 {
			t.Errorf("workload %s has no thresholds", w.Name)
		}
	}
	if len(modes) != 2 || !slices.Equal(modes["all"], modes["single"]) || !slices.Contains(modes["all"], 256) {
		t.Errorf("modes and sizes %v: want all and single at the same sizes, up to 256", modes)
	}
}

func TestBadPreemptionWorkloadsAreRejectedBeforeAnyClusterStarts(t *testing.T) {
	workload := func(name string, sizes ...int) results.Workload {
		return results.Workload{Name: name, Policy: results.PolicyGang, Mode: results.ModeSequential, Sizes: sizes,
			Gangs: []results.GangCount{{Count: 1}}, Requests: gang.GPUs(8),
			Preemption: &results.Preemption{DisruptionMode: results.DisruptionAll, PreemptorPercent: 50}}
	}
	for _, c := range []struct {
		name string
		edit func(s *results.Scenario)
		want string
	}{
		{"mode", func(s *results.Scenario) { s.Workloads[0].Preemption.DisruptionMode = "some" }, `disruptionMode "some", want all or single`},
		{"no preemptor", func(s *results.Scenario) { s.Workloads[0].Preemption.PreemptorPercent = 0 }, "preemptorPercent 0, want 1 to 100"},
		{"preemptor above victims", func(s *results.Scenario) { s.Workloads[0].Preemption.PreemptorPercent = 101 }, "preemptorPercent 101"},
		{"basic", func(s *results.Scenario) { s.Workloads[0].Policy = results.PolicyBasic }, "want gang and sequential"},
		{"concurrent", func(s *results.Scenario) { s.Workloads[0].Mode = results.ModeConcurrent }, "want gang and sequential"},
		// Two 4-GPU pods fill a node: a victim gang of 3 leaves room.
		{"room left", func(s *results.Scenario) { s.Workloads[0].Requests = gang.GPUs(4); s.Workloads[0].Sizes = []int{3} }, "a victim gang of 3 leaves room on its nodes"},
		// ci-small has 32 nodes: slices of 8, 16 and 32 need 56.
		{"slices", func(s *results.Scenario) { s.Workloads[0].Sizes = []int{8, 16, 32} }, "slices of 56 nodes in all, above the 32 of ci-small"},
		{"shared slice", func(s *results.Scenario) {
			w := workload("half", 8)
			w.Requests = gang.GPUs(4)
			s.Workloads = append(s.Workloads, w)
		}, "victim gangs of 8 fill 8 nodes in one workload and 4 in another"},
	} {
		s := &results.Scenario{Name: "demo", Cluster: "ci-small", Workloads: []results.Workload{workload("w", 8)}}
		if err := Validate(s); err != nil {
			t.Fatalf("%s: the unedited scenario: %v", c.name, err)
		}
		c.edit(s)
		if err := Validate(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// fakePreemptingScheduler binds every pod as it is created; a preemptor's
// pod (priority class gangconf-high) first evicts victims of the victim gang
// of its name: all of them in namespaces of mode all, one in mode single.
func fakePreemptingScheduler(t *testing.T, cs interface {
	PrependReactor(verb, resource string, fn k8stesting.ReactionFunc)
	Tracker() k8stesting.ObjectTracker
}) {
	var mu sync.Mutex
	podsGVR := corev1.SchemeGroupVersion.WithResource("pods")
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if p.Spec.PriorityClassName == preemptorPriority {
			victim := strings.Replace(p.Labels[gang.LabelGang], "preemptor-", "victim-", 1)
			l, err := cs.Tracker().List(podsGVR, corev1.SchemeGroupVersion.WithKind("Pod"), p.Namespace)
			if err != nil {
				return true, nil, err
			}
			for _, v := range l.(*corev1.PodList).Items {
				if v.Labels[gang.LabelGang] != victim {
					continue
				}
				if err := cs.Tracker().Delete(podsGVR, v.Namespace, v.Name); err != nil {
					t.Errorf("evict %s: %v", v.Name, err)
				}
				if strings.HasSuffix(p.Namespace, "-single") {
					break
				}
			}
		}
		p.Spec.NodeName = "node"
		return false, nil, nil
	})
}

func TestPreemptionRunTimesTheVictimsAndThePreemptor(t *testing.T) {
	var nodes []runtime.Object
	for i := 0; i < 10; i++ {
		nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%02d", i)}})
	}
	cs := fakeapi.New(nodes...)
	fakePreemptingScheduler(t, cs)
	var mu sync.Mutex
	var selectors []string
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		selectors = append(selectors, a.(k8stesting.CreateAction).GetObject().(*corev1.Pod).Spec.NodeSelector[labelSlice])
		return false, nil, nil
	})
	w := func(mode string) results.Workload {
		return results.Workload{Name: mode, Policy: results.PolicyGang, Mode: results.ModeSequential, Sizes: []int{2, 4},
			Gangs: []results.GangCount{{Count: 2}}, Requests: gang.GPUs(8),
			Preemption: &results.Preemption{DisruptionMode: mode, PreemptorPercent: 50}}
	}
	s := &results.Scenario{Name: "demo", Cluster: "ci-small", Workloads: []results.Workload{w(results.DisruptionAll), w(results.DisruptionSingle)}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Target{Client: cs, SchedulerName: "sched"}, s, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sr := range res.Sizes {
		for _, g := range sr.Gangs {
			got = append(got, fmt.Sprintf("%s/%d:%d", sr.Workload, sr.Size, g.Victims))
			// The fake evicts while the preemptor's pods are being created,
			// so a part may come before it is complete; each must be seen.
			if g.VictimsGone == 0 || g.PreemptorBound == 0 || g.FirstEviction > g.VictimsGone || g.Latency != max(g.VictimsGone, g.PreemptorBound) {
				t.Errorf("%s size %d gang %d: first eviction %s, victims gone %s, preemptor bound %s, latency %s",
					sr.Workload, sr.Size, g.Index, g.FirstEviction, g.VictimsGone, g.PreemptorBound, g.Latency)
			}
		}
	}
	// Mode all loses the whole victim gang, single one pod per preemptor
	// member (half the victims').
	if want := "[all/2:2 all/2:2 all/4:4 all/4:4 single/2:1 single/2:1 single/4:2 single/4:2]"; fmt.Sprint(got) != want {
		t.Errorf("victims gone per gang %v, want %s", got, want)
	}
	if slices.Contains(selectors, "") || !slices.Contains(selectors, "s2") || !slices.Contains(selectors, "s4") {
		t.Errorf("pods' slices %v: want every pod pinned to s2 or s4", slices.Compact(slices.Sorted(slices.Values(selectors))))
	}
	items := DataItemsOf(res)
	metrics := map[string]bool{}
	for _, it := range items.DataItems {
		metrics[it.Labels["Metric"]] = true
	}
	for _, m := range []string{results.ItemGangLatency, results.ItemVictimsGone, results.ItemPreemptorBound, results.ItemFirstEviction} {
		if !metrics[m] {
			t.Errorf("no %s DataItem", m)
		}
	}
	// The run leaves no slice label and no priority class it made.
	l, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range l.Items {
		if v, ok := n.Labels[labelSlice]; ok {
			t.Errorf("node %s keeps %s=%s", n.Name, labelSlice, v)
		}
	}
	if pcs, err := cs.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{}); err != nil || len(pcs.Items) != 0 {
		t.Errorf("priority classes left: %v, %v", pcs, err)
	}
	fig := map[string]int{}
	for _, f := range figures(res) {
		fig[f.file] = len(f.series)
	}
	// Three lines a workload (total, victims gone, preemptor bound), and no
	// gang latency figure beside it.
	if fig["demo-preemption"] != 6 || fig["demo-latency"] != 0 {
		t.Errorf("figures %v: want demo-preemption with 6 lines and no demo-latency", fig)
	}
}
