// Command gangbundle packs a results directory for publication:
// make bundle RESULTS=dir [PRODUCT=PRODUCT.yaml].
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gangconf/gangconf/reports/bundle"
)

func main() {
	results := flag.String("results", os.Getenv("RESULTS"), "results directory to bundle")
	product := flag.String("product", os.Getenv("PRODUCT"), "PRODUCT.yaml to validate and include")
	flag.Parse()
	if *results == "" {
		fmt.Fprintln(os.Stderr, "gangbundle: no results directory (set RESULTS or -results)")
		os.Exit(2)
	}
	dir := strings.TrimRight(*results, "/")
	tarball := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".tar.gz")
	if err := bundle.Make(dir, *product, tarball); err != nil {
		fmt.Fprintf(os.Stderr, "gangbundle: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("bundle: %s (sha256sums and done in %s)\n", tarball, dir)
}
