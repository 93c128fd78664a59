// Package resultsdir is what the commands that work on a finished results
// directory (gangreport, gangbundle) share: where the directory comes from,
// and how they exit.
package resultsdir

import (
	"flag"
	"fmt"
	"os"
)

// Main parses the command line and calls run with the results directory:
// -results, by default RESULTS, as make passes it. Without one it exits 2;
// when run fails, 1, with the error after name. A command declares its own
// flags before it calls Main.
func Main(name, usage string, run func(results string) error) {
	results := flag.String("results", os.Getenv("RESULTS"), usage)
	flag.Parse()
	if *results == "" {
		fmt.Fprintf(os.Stderr, "%s: no results directory (set RESULTS or -results)\n", name)
		os.Exit(2)
	}
	if err := run(*results); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
