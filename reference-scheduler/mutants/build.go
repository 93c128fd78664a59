package mutants

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Module is the pinned module a source mutant edits.
const Module = "k8s.io/kubernetes"

// Workspace builds mutated reference schedulers. `go build -overlay` does
// not replace files beneath the module cache, so the pinned module is
// copied out of it once, and builds use a copy of the project's go.mod that
// replaces the module with that copy; each mutant overlays its edited files
// on the copy.
type Workspace struct {
	// Root is the project's module root.
	Root string
	// Src is the copy of the pinned module.
	Src string
	// ModFile is the go.mod that points the module at Src.
	ModFile string
}

// Prepare makes the workspace under dir, copying the pinned module only
// when no complete copy of that version is there yet.
func Prepare(ctx context.Context, root, dir string) (*Workspace, error) {
	out, err := goList(ctx, root, "-m", "-f", "{{.Dir}} {{.Version}}", Module)
	if err != nil {
		return nil, fmt.Errorf("find the pinned %s: %w", Module, err)
	}
	fields := strings.Fields(out)
	if len(fields) != 2 {
		return nil, fmt.Errorf("find the pinned %s: go list printed %q", Module, out)
	}
	modDir, version := fields[0], fields[1]
	w := &Workspace{Root: root, Src: filepath.Join(dir, "src", "kubernetes@"+version), ModFile: filepath.Join(dir, "go.mod")}
	done := w.Src + ".complete"
	if _, err := os.Stat(done); err != nil {
		if err := os.RemoveAll(w.Src); err != nil {
			return nil, err
		}
		if err := copyTree(modDir, w.Src); err != nil {
			return nil, fmt.Errorf("copy %s out of the module cache: %w", Module, err)
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return nil, err
		}
	}
	return w, w.writeModFile()
}

// writeModFile writes the project's go.mod with the module replaced by the
// copy, and go.sum beside it (the go command reads the sum file next to
// -modfile).
func (w *Workspace) writeModFile() error {
	mod, err := os.ReadFile(filepath.Join(w.Root, "go.mod"))
	if err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(w.Root, "go.sum"))
	if err != nil {
		return err
	}
	mod = append(mod, fmt.Sprintf("\nreplace %s => %s\n", Module, w.Src)...)
	if err := os.WriteFile(w.ModFile, mod, 0o644); err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(w.ModFile, ".mod")+".sum", sum, 0o644)
}

// Build compiles the reference scheduler from the copy, with overlay's
// files in place of the originals, into out; the build's own output is the
// error when it fails.
func (w *Workspace) Build(ctx context.Context, overlay, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	flags := "-trimpath -modfile=" + w.ModFile + " -overlay=" + overlay
	cmd := exec.CommandContext(ctx, filepath.Join(w.Root, "hack", "build.sh"), filepath.Dir(out), filepath.Base(out)+"=./reference-scheduler")
	cmd.Dir = w.Root
	cmd.Env = append(os.Environ(), "GOFLAGS="+flags)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, tail(string(b), 20))
	}
	return nil
}

func goList(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// tail keeps the last n lines of s: a compiler's error is at the end.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// copyTree copies a read-only module cache tree into a writable one.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
