// Command gangreport writes report.html and report.md for a results
// directory: make report RESULTS=dir [BASELINE=dir].
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gangconf/gangconf/reports"
)

func main() {
	results := flag.String("results", os.Getenv("RESULTS"), "results directory to report on")
	baseline := flag.String("baseline", os.Getenv("BASELINE"), "results directory to compare the benchmarks with")
	flag.Parse()
	if *results == "" {
		fmt.Fprintln(os.Stderr, "gangreport: no results directory (set RESULTS or -results)")
		os.Exit(2)
	}
	if st, err := os.Stat(*results); err != nil || !st.IsDir() {
		fmt.Fprintf(os.Stderr, "gangreport: results directory %s does not exist (run make conformance or make bench first)\n", *results)
		os.Exit(1)
	}
	m := reports.Load(*results, *baseline)
	path, err := m.Write(*results)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gangreport: %v\n", err)
		os.Exit(1)
	}
	for _, p := range m.Problems {
		fmt.Fprintf(os.Stderr, "gangreport: note: %s\n", p)
	}
	fmt.Printf("report: %s (and report.md beside it)\n", path)
}
