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
	"github.com/gangconf/gangconf/reports/cmd/internal/resultsdir"
)

func main() {
	product := flag.String("product", os.Getenv("PRODUCT"), "PRODUCT.yaml to validate and include")
	resultsdir.Main("gangbundle", "results directory to bundle", func(results string) error {
		dir := strings.TrimRight(results, "/")
		tarball := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".tar.gz")
		if err := bundle.Make(dir, *product, tarball); err != nil {
			return err
		}
		fmt.Printf("bundle: %s (sha256sums and done in %s)\n", tarball, dir)
		return nil
	})
}
