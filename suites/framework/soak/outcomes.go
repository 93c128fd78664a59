// Package soak runs the conformance suite against the reference again and
// again, each run a make conformance on a fresh cluster, and keeps the flake
// table: how often each spec ran and failed, over every sitting.
package soak

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/gangconf/gangconf/suites/framework/mutation"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// MakeLog is each run's make output, beside its results: the suite's
// output too, and what came before it (the build) and after.
const MakeLog = "make.log"

// Outcomes reads what each spec of the run in dir did, and says why the
// run is a harness failure, if it is one: its suite's setup failed (the
// cluster or the scheduler did not start), it left no Ginkgo report, or
// make exited in error (exit) though no spec failed. Specs that were
// skipped or interrupted are not counted.
func Outcomes(dir string, exit error) ([]results.SoakOutcome, string) {
	rs, err := mutation.ReadReport(filepath.Join(dir, "ginkgo-report.json"))
	if err != nil {
		return nil, fmt.Sprintf("no Ginkgo report (%v), %s: %s", err, exitWords(exit), lastWords(filepath.Join(dir, MakeLog)))
	}
	var out []results.SoakOutcome
	failed := false
	for _, r := range rs {
		switch {
		case r.Setup:
			return nil, "the suite's setup failed (cluster or scheduler not started): " + r.Message
		case r.Killed():
			failed = true
			out = append(out, results.SoakOutcome{Spec: r.Spec, Failed: true, Message: r.Failure})
		case r.State == types.SpecStatePassed:
			out = append(out, results.SoakOutcome{Spec: r.Spec})
		}
	}
	if exit != nil && !failed {
		return out, fmt.Sprintf("%s though no spec failed: %s", exitWords(exit), lastWords(filepath.Join(dir, MakeLog)))
	}
	return out, ""
}

// exitWords says how make exited.
func exitWords(exit error) string {
	if exit == nil {
		return "make exited 0"
	}
	return "make: " + exit.Error()
}

// makeError is make's own closing line, "make[1]: *** [Makefile:9: x]
// Error 1", which names no cause.
var makeError = regexp.MustCompile(`^make(\[\d+\])?: \*\*\*`)

// lastWords is the last line of the log at path that says something: not
// empty, not make's closing error.
func lastWords(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no %s: %v)", filepath.Base(path), err)
	}
	defer f.Close()
	last := "(" + filepath.Base(path) + " says nothing)"
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !makeError.MatchString(line) {
			last = line
		}
	}
	return last
}
