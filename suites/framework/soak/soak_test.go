package soak

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// fakeMake stands for make conformance: for the run in RESULTS=<dir>/<n>
// it copies fixtures/<n>'s Ginkgo report, if it has one, prints its output
// and exits with its status.
const fakeMake = `fixtures=$1 dir=${2#RESULTS=}
n=$(basename "$dir")
cp "$fixtures/$n/ginkgo-report.json" "$dir/" 2>/dev/null
cat "$fixtures/$n/output"
exit "$(cat "$fixtures/$n/status")"
`

// spec is a spec of a crafted run, and how it ended: passed, failed with
// failure, or skipped; a setup spec is the suite's setup, failed.
type spec struct {
	name, failure  string
	skipped, setup bool
}

// writeReport writes a run's Ginkgo report of specs to path, as the suite's
// ReportAfterSuite does.
func writeReport(t *testing.T, path string, specs ...spec) {
	t.Helper()
	r := types.Report{SuitePath: "suites/conformance", SuiteSucceeded: true}
	for _, s := range specs {
		sr := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: s.name,
			State: types.SpecStatePassed, Failure: types.Failure{Message: s.failure}}
		switch {
		case s.setup:
			sr.LeafNodeType, sr.LeafNodeText, sr.State = types.NodeTypeSynchronizedBeforeSuite, "", types.SpecStateFailed
		case s.skipped:
			sr.State = types.SpecStateSkipped
		case s.failure != "":
			sr.State = types.SpecStateFailed
		}
		r.SuiteSucceeded = r.SuiteSucceeded && sr.State != types.SpecStateFailed
		r.SpecReports = append(r.SpecReports, sr)
	}
	if err := reporters.GenerateJSONReport(r, path); err != nil {
		t.Fatal(err)
	}
}

// fakeRun is what fakeMake does for one run.
type fakeRun struct {
	specs  []spec // nil: no report
	output string
	status int
}

func writeFakeRuns(t *testing.T, dir string, runs map[int]fakeRun) {
	t.Helper()
	for n, r := range runs {
		d := filepath.Join(dir, strconv.Itoa(n))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if r.specs != nil {
			writeReport(t, filepath.Join(d, "ginkgo-report.json"), r.specs...)
		}
		write(t, filepath.Join(d, "output"), r.output)
		write(t, filepath.Join(d, "status"), strconv.Itoa(r.status))
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sitting is a Sitting whose runs are fakeMake's at commit.
func sitting(t *testing.T, results, fixtures, commit string) *Sitting {
	script := filepath.Join(fixtures, "make.sh")
	write(t, script, fakeMake)
	return &Sitting{Command: []string{"bash", script, fixtures}, Results: results,
		Commit: func() string { return commit }, Logf: t.Logf}
}

func TestTheTableAccumulatesAcrossSittings(t *testing.T) {
	dir, fixtures := t.TempDir(), t.TempDir()
	a, b, c := spec{name: "A passes"}, spec{name: "B flakes"}, spec{name: "C skipped", skipped: true}
	bFails := spec{name: b.name, failure: "timed out waiting\nfor the gang"}
	writeFakeRuns(t, fixtures, map[int]fakeRun{
		1: {specs: []spec{a, b, c}},
		2: {specs: []spec{a, bFails, c}, status: 1},
		3: {specs: []spec{a, b, c, {setup: true, failure: "kwokctl create cluster: exit status 1\nmore"}}, status: 1},
		4: {specs: []spec{a, bFails, c}, status: 1},
		5: {output: "hack/build.sh: go build failed\nmake: *** [Makefile:140: build] Error 1\n", status: 2},
		6: {specs: []spec{a, b, c}, output: "teardown: kwokctl delete cluster: exit status 1\n", status: 1},
	})
	first := "0123456789abcdef"
	table, failed, err := sitting(t, dir, fixtures, first).Run(context.Background(), 2)
	if err != nil || failed != 1 || len(table.Runs) != 2 {
		t.Fatalf("first sitting: %d runs, %d failed, %v; want 2 runs, 1 failed", len(table.Runs), failed, err)
	}
	table, failed, err = sitting(t, dir, fixtures, "fedcba9876543210-dirty").Run(context.Background(), 4)
	if err != nil || failed != 4 {
		t.Fatalf("second sitting: %d failed, %v; want 4 failed", failed, err)
	}
	read, err := results.ReadSoak(filepath.Join(dir, results.SoakDir, results.SoakFile))
	if err != nil || len(read.Runs) != 6 {
		t.Fatalf("the table on disk: %+v, %v; want 6 runs", read, err)
	}
	if got, want := read.Summary(), "2 runs at commit 0123456, 4 at fedcba9-dirty, 1 flaky spec, 3 harness failures"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	want := []results.SoakSpec{{Spec: a.name, Runs: 4}, {Spec: b.name, Runs: 4, Failures: 2,
		First: &results.SoakFailure{Run: 2, Commit: first, Message: bFails.failure, Log: "soak/2/e2e.log"}}}
	if !slices.EqualFunc(read.Specs, want, equalSpec) {
		t.Errorf("specs %+v, want A and B over the 4 runs that judged them, C nowhere", read.Specs)
	}
	checkHarnessFailures(t, read.HarnessFailures(), map[int]string{
		3: "the suite's setup failed (cluster or scheduler not started): kwokctl create cluster: exit status 1",
		5: "no Ginkgo report (open " + filepath.Join(dir, "soak/5/ginkgo-report.json") + ": no such file or directory), make: exit status 2: hack/build.sh: go build failed",
		6: "make: exit status 1 though no spec failed: teardown: kwokctl delete cluster: exit status 1",
	})
}

func equalSpec(a, b results.SoakSpec) bool {
	return a.Spec == b.Spec && a.Runs == b.Runs && a.Failures == b.Failures &&
		(a.First == nil) == (b.First == nil) && (a.First == nil || *a.First == *b.First)
}

func checkHarnessFailures(t *testing.T, runs []results.SoakRun, want map[int]string) {
	t.Helper()
	if len(runs) != len(want) {
		t.Errorf("harness failures %+v, want runs %v", runs, want)
	}
	for _, r := range runs {
		if r.Harness != want[r.N] || r.Log != "soak/"+strconv.Itoa(r.N)+"/"+MakeLog || r.Ran != 0 && r.N != 6 {
			t.Errorf("run %d: harness %q, log %s, %d specs judged; want %q, its make.log", r.N, r.Harness, r.Log, r.Ran, want[r.N])
		}
	}
}

// stoppableMake stands for a make conformance that a stop reaches through
// its process group: make and its suite (a foreground child, as a recipe
// is: a background one would ignore SIGINT) each note the SIGINT they get,
// and the suite takes a while over its teardown before it exits.
const stoppableMake = `dir=${1#RESULTS=}
echo $$ > "$dir/pgid"
trap 'echo make got SIGINT >> "$dir/signals"' INT
bash -c 'trap "sleep 0.5; echo suite got SIGINT, torn down >> $0/signals; exit 130" INT
touch $0/started
while :; do sleep 0.05; done' "$dir"
exit 130
`

func TestAStopReachesMakesProcessGroupOnceAndWaitsForItsTeardown(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(t.TempDir(), "make.sh")
	write(t, script, stoppableMake)
	s := &Sitting{Command: []string{"bash", script}, Results: dir, Commit: func() string { return "c" }, Logf: t.Logf}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error)
	go func() { _, _, err := s.Run(ctx, 3); done <- err }()
	run := filepath.Join(dir, results.SoakDir, "1")
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, time.Minute, true,
		func(context.Context) (bool, error) {
			_, err := os.Stat(filepath.Join(run, "started"))
			return err == nil, nil
		}); err != nil {
		t.Fatalf("the run did not start: %v", err)
	}
	stop()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the sitting did not return within a minute of the stop")
	}
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("error %v, want one that says the sitting stopped", err)
	}
	signals, _ := os.ReadFile(filepath.Join(run, "signals"))
	lines := strings.Split(strings.TrimSpace(string(signals)), "\n")
	slices.Sort(lines)
	if want := []string{"make got SIGINT", "suite got SIGINT, torn down"}; !slices.Equal(lines, want) {
		t.Errorf("what the run noted: %q, want %q: one SIGINT each, and the teardown done before the sitting returned", lines, want)
	}
	pgid, _ := os.ReadFile(filepath.Join(run, "pgid"))
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(pgid))); pid <= 0 || syscall.Kill(-pid, 0) != syscall.ESRCH {
		t.Errorf("make's process group %q is not gone", pgid)
	}
	if _, err := os.Stat(s.TablePath()); !os.IsNotExist(err) {
		t.Errorf("the stopped run was written to the table (%v)", err)
	}
}
