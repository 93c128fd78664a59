// Package bundle packs a results directory into what a vendor publishes: the
// results with a validated PRODUCT.yaml, a sha256sums file over every file,
// a tarball, and a done marker naming it, as sonobuoy-style tooling expects.
package bundle

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gangconf/gangconf/internal/yamlfile"
)

// Product is the vendor's description of what was tested (PRODUCT.yaml), as
// in the CNCF k8s-conformance submissions.
type Product struct {
	Vendor        string `json:"vendor"`
	Name          string `json:"name"`
	Version       string `json:"version"`
	Website       string `json:"website_url"`
	Repository    string `json:"repo_url,omitempty"`
	Documentation string `json:"documentation_url"`
	Contact       string `json:"contact_email_address"`
}

// LoadProduct reads and validates a PRODUCT.yaml.
func LoadProduct(path string) (*Product, error) {
	p, err := yamlfile.Read[Product](path)
	if err != nil {
		return nil, err
	}
	var problems []string
	for field, v := range map[string]string{"vendor": p.Vendor, "name": p.Name, "version": p.Version, "contact_email_address": p.Contact} {
		if strings.TrimSpace(v) == "" {
			problems = append(problems, field+" is required")
		}
	}
	for field, v := range map[string]string{"website_url": p.Website, "documentation_url": p.Documentation, "repo_url": p.Repository} {
		if v == "" && field == "repo_url" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("%s %q is not an http(s) URL", field, v))
		}
	}
	if p.Contact != "" && !strings.Contains(p.Contact, "@") {
		problems = append(problems, fmt.Sprintf("contact_email_address %q is not an e-mail address", p.Contact))
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("%s: %s", path, strings.Join(problems, "; "))
	}
	return p, nil
}

// excluded are files never published: they hold credentials or are the
// bundle's own outputs.
var excluded = map[string]bool{"kubeconfig": true, "sha256sums": true, "done": true}

// Make validates and copies the product file (if product is set, else uses
// dir/PRODUCT.yaml when present), writes dir/sha256sums, the tarball at
// tarball, and dir/done naming the tarball.
func Make(dir, product, tarball string) error {
	if product != "" {
		if _, err := LoadProduct(product); err != nil {
			return err
		}
		data, err := os.ReadFile(product)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "PRODUCT.yaml"), data, 0o644); err != nil {
			return err
		}
	} else if _, err := os.Stat(filepath.Join(dir, "PRODUCT.yaml")); err == nil {
		if _, err := LoadProduct(filepath.Join(dir, "PRODUCT.yaml")); err != nil {
			return err
		}
	}
	files, err := list(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s holds no results to bundle (run make conformance or make bench first)", dir)
	}
	var sums strings.Builder
	for _, f := range files {
		sum, err := sha256File(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, f)
	}
	if err := os.WriteFile(filepath.Join(dir, "sha256sums"), []byte(sums.String()), 0o644); err != nil {
		return err
	}
	if err := writeTar(dir, append(files, "sha256sums"), tarball); err != nil {
		return err
	}
	abs, err := filepath.Abs(tarball)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "done"), []byte(abs+"\n"), 0o644)
}

// list returns the files to publish, relative to dir, sorted.
func list(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() || !d.Type().IsRegular() || excluded[rel] {
			return nil
		}
		out = append(out, rel)
		return nil
	})
	sort.Strings(out)
	return out, err
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func writeTar(dir string, files []string, tarball string) error {
	out, err := os.Create(tarball)
	if err != nil {
		return err
	}
	gz := gzip.NewWriter(out)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := addFile(tw, dir, f); err != nil {
			out.Close()
			return err
		}
	}
	if err := tw.Close(); err != nil {
		out.Close()
		return err
	}
	if err := gz.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func addFile(tw *tar.Writer, dir, rel string) error {
	f, err := os.Open(filepath.Join(dir, rel))
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	hdr, err := tar.FileInfoHeader(st, "")
	if err != nil {
		return err
	}
	hdr.Name = filepath.ToSlash(filepath.Join("results", rel))
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}
