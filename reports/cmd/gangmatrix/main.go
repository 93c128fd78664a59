// Command gangmatrix writes matrix.html and matrix.md from the results make
// matrix leaves in RESULTS/matrix/<version>/, one results directory per
// Kubernetes version: make matrix-report.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gangconf/gangconf/reports"
	"github.com/gangconf/gangconf/reports/cmd/internal/resultsdir"
)

func main() {
	versions := flag.String("versions", "", "Kubernetes versions the matrix should hold, space- or comma-separated: the report names each one missing")
	record := flag.String("record", "suites/conformance/controls.yaml", "controls record each control's kills are held against")
	resultsdir.Main("gangmatrix", "results directory whose matrix/<version>/ directories to report on", func(results string) error {
		expected := strings.FieldsFunc(*versions, func(r rune) bool { return r == ',' || r == ' ' })
		path, problems, err := write(filepath.Join(results, "matrix"), expected, *record)
		if err != nil {
			return err
		}
		for _, p := range problems {
			fmt.Fprintf(os.Stderr, "gangmatrix: note: %s\n", p)
		}
		fmt.Printf("matrix report: %s (and matrix.md beside it)\n", path)
		return nil
	})
}

// write reads the matrix directory dir and writes its report into it; it
// returns the HTML report's path and what the report found missing. A
// matrix of fewer than two versions is an error: it compares nothing.
func write(dir string, expected []string, record string) (string, []string, error) {
	x := reports.LoadMatrix(dir, expected, record)
	if len(x.Versions) < 2 {
		held := "no results of any Kubernetes version"
		if len(x.Versions) == 1 {
			held = "the results of " + x.Versions[0].Name + " alone"
		}
		return "", nil, fmt.Errorf("%s holds %s: a matrix needs two versions or more (make matrix runs each into matrix/<version>/)", dir, held)
	}
	path, err := x.Write(dir)
	return path, x.Problems, err
}
