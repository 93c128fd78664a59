// Command gangreport writes report.html and report.md for a results
// directory: make report RESULTS=dir [BASELINE=dir].
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gangconf/gangconf/reports"
	"github.com/gangconf/gangconf/reports/cmd/internal/resultsdir"
)

func main() {
	baseline := flag.String("baseline", os.Getenv("BASELINE"), "results directory to compare the benchmarks with")
	resultsdir.Main("gangreport", "results directory to report on", func(results string) error {
		if st, err := os.Stat(results); err != nil || !st.IsDir() {
			return fmt.Errorf("results directory %s does not exist (run make conformance or make bench first)", results)
		}
		m := reports.Load(results, *baseline)
		path, err := m.Write(results)
		if err != nil {
			return err
		}
		for _, p := range m.Problems {
			fmt.Fprintf(os.Stderr, "gangreport: note: %s\n", p)
		}
		fmt.Printf("report: %s (and report.md beside it)\n", path)
		return nil
	})
}
