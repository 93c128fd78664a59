package bundle

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const product = `vendor: Example Corp
name: example-scheduler
version: v1.2.3
website_url: https://example.com/scheduler
repo_url: https://example.com/scheduler/src
documentation_url: https://example.com/scheduler/docs
contact_email_address: sched@example.com
`

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBundleHasSumsDoneAndNoCredentials(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	write(t, filepath.Join(dir, "junit_01.xml"), "<testsuites/>")
	write(t, filepath.Join(dir, "bench", "smoke.json"), "{}")
	write(t, filepath.Join(dir, "kubeconfig"), "token: secret")
	prod := filepath.Join(t.TempDir(), "PRODUCT.yaml")
	write(t, prod, product)
	tarball := dir + ".tar.gz"
	if err := Make(dir, prod, tarball); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(dir, "sha256sums"))
	for _, want := range []string{"  PRODUCT.yaml\n", "  bench/smoke.json\n", "  junit_01.xml\n"} {
		if !strings.Contains(string(sums), want) {
			t.Errorf("sha256sums lacks %q:\n%s", want, sums)
		}
	}
	if strings.Contains(string(sums), "kubeconfig") {
		t.Error("the kubeconfig is listed")
	}
	done, _ := os.ReadFile(filepath.Join(dir, "done"))
	if strings.TrimSpace(string(done)) != tarball {
		t.Errorf("done = %q, want %q", done, tarball)
	}
	names := tarNames(t, tarball)
	if strings.Join(names, ",") != "results/PRODUCT.yaml,results/bench/smoke.json,results/junit_01.xml,results/sha256sums" {
		t.Errorf("tarball holds %v", names)
	}
}

func TestProductIsValidated(t *testing.T) {
	prod := filepath.Join(t.TempDir(), "PRODUCT.yaml")
	write(t, prod, strings.Replace(strings.Replace(product, "https://example.com/scheduler/docs", "docs", 1), "sched@example.com", "", 1))
	_, err := LoadProduct(prod)
	if err == nil || !strings.Contains(err.Error(), "documentation_url \"docs\" is not an http(s) URL") || !strings.Contains(err.Error(), "contact_email_address is required") {
		t.Fatalf("err = %v", err)
	}
	write(t, prod, product+"colour: blue\n")
	if _, err := LoadProduct(prod); err == nil {
		t.Fatal("an unknown field was accepted")
	}
	if err := Make(t.TempDir(), prod, filepath.Join(t.TempDir(), "x.tar.gz")); err == nil {
		t.Fatal("Make accepted an invalid product file")
	}
}

func TestEmptyResultsAreRefused(t *testing.T) {
	if err := Make(t.TempDir(), "", filepath.Join(t.TempDir(), "x.tar.gz")); err == nil || !strings.Contains(err.Error(), "holds no results") {
		t.Fatalf("err = %v", err)
	}
}

func tarNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		} else if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}
