package controls

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

func TestCompareNamesWhatARunDidDifferently(t *testing.T) {
	ref := []Outcome{
		{Spec: "quorum holds", State: types.SpecStatePassed},
		{Spec: "api server restart", State: types.SpecStatePassed},
		{Spec: "crash | restart", State: types.SpecStatePassed},
		{Spec: "topology", State: types.SpecStateSkipped},
		{Spec: "preempts", State: types.SpecStatePassed},
	}
	run := []Outcome{
		{Spec: "quorum holds", State: types.SpecStatePassed},
		{Spec: "api server restart", State: types.SpecStateSkipped, Reason: "the harness did not make the cluster"},
		{Spec: "crash | restart", State: types.SpecStateSkipped, Reason: "no restart command"},
		{Spec: "topology", State: types.SpecStatePassed},
	}
	c := Compare(ref, run, func(r string) bool { return strings.Contains(r, "did not make") })
	if c.Same != 2 || len(c.Excused) != 1 || len(c.Differences) != 2 {
		t.Fatalf("got same %d, excused %v, differences %v", c.Same, c.Excused, c.Differences)
	}
	if c.Differences[0].Spec != "crash | restart" || c.Differences[1].Reason != "not in the run's report" {
		t.Errorf("differences: %+v", c.Differences)
	}
	if c.Err() == nil {
		t.Error("differences, no error")
	}
	var b strings.Builder
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 specs as on the reference, 2 differ, 1 skipped", `| crash \| restart | passed | skipped | no restart command |`, "excused: the harness did not make"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestCompareRefusesAFailingReference(t *testing.T) {
	ref := []Outcome{{Spec: "quorum holds", State: types.SpecStateFailed, Reason: "timed out"}}
	c := Compare(ref, []Outcome{{Spec: "quorum holds", State: types.SpecStatePassed}}, func(string) bool { return true })
	if len(c.Differences) != 1 || !strings.Contains(c.Differences[0].Reason, "the reference failed it: timed out") {
		t.Fatalf("got %+v", c)
	}
}
