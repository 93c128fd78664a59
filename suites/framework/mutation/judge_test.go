package mutation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

func TestJudgeKillsOnlyOnSpecsThatPassedOnTheReference(t *testing.T) {
	reference := map[string]bool{"flaky": true}
	results := []Result{
		{Spec: "passes", State: types.SpecStatePassed},
		{Spec: "fails", State: types.SpecStateFailed},
		{Spec: "times out", State: types.SpecStateTimedout},
		{Spec: "flaky", State: types.SpecStateFailed},
		// Stopped because another spec failed first: no verdict of its own.
		{Spec: "interrupted", State: types.SpecStateInterrupted},
		{Spec: "skipped", State: types.SpecStateSkipped},
	}
	killers, both := Judge(reference, results)
	if want := []string{"fails", "times out"}; !reflect.DeepEqual(killers, want) {
		t.Errorf("killers %v, want %v", killers, want)
	}
	if want := []string{"flaky"}; !reflect.DeepEqual(both, want) {
		t.Errorf("failed on both %v, want %v", both, want)
	}
}

// A scheduler that never turns ready fails the suite's setup: that is a
// kill, named by the setup node, and the specs it skipped are not.
func TestReadReportKeepsAFailedSetup(t *testing.T) {
	rep := []types.Report{{SpecReports: types.SpecReports{
		{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStateFailed,
			Failure: types.Failure{Message: "scheduler not ready\nmore"}},
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "a spec", State: types.SpecStateSkipped},
		{LeafNodeType: types.NodeTypeAfterSuite, State: types.SpecStateFailed},
	}}}
	data, _ := json.Marshal(rep)
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Spec != "[SynchronizedBeforeSuite]" || got[0].Message != "scheduler not ready" || !got[0].Killed() || got[1].Killed() {
		t.Errorf("ReadReport = %+v", got)
	}
}
