package mutants

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestTheCatalogueLoads(t *testing.T) {
	c, err := Load("../mutants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	areas := map[string]int{}
	for _, m := range c.Mutants {
		areas[m.Area]++
	}
	for _, a := range Areas {
		if areas[a] == 0 {
			t.Errorf("no mutant in area %s", a)
		}
	}
}

func TestLoadRejectsBadEntries(t *testing.T) {
	for name, entry := range map[string]string{
		"unknown area":        "{name: a, area: typo, kind: source, bug: b, edits: [{file: f, match: x, replace: y}]}",
		"no bug":              "{name: a, area: quorum, kind: source, edits: [{file: f, match: x, replace: y}]}",
		"source without edit": "{name: a, area: quorum, kind: source, bug: b}",
		"no-op edit":          "{name: a, area: quorum, kind: source, bug: b, edits: [{file: f, match: x, replace: x}]}",
		"profile with edit":   "{name: a, area: quorum, kind: profile, bug: b, edits: [{file: f, match: x, replace: y}]}",
		"unknown kind":        "{name: a, area: quorum, kind: other, bug: b}",
		"unknown field":       "{name: a, area: quorum, kind: profile, bug: b, disable: [{point: permit, plugin: P}], typo: 1}",
	} {
		path := filepath.Join(t.TempDir(), "m.yaml")
		if err := os.WriteFile(path, []byte("mutants:\n- "+entry+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil {
			t.Errorf("%s: loaded, want an error", name)
		}
	}
}

func TestSelectNamesUnknownMutants(t *testing.T) {
	c := &Catalogue{Mutants: []Mutant{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
	got, err := c.Select("c, a")
	if err != nil || len(got) != 2 || got[0].Name != "a" || got[1].Name != "c" {
		t.Fatalf("Select(c, a) = %v, %v; want a and c in catalogue order", got, err)
	}
	if _, err := c.Select("a,nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Select(a,nope) error = %v, want one naming nope", err)
	}
}

// The overlay holds the edited file in place of the original, which stays
// as it was, so one copy of the source serves every mutant.
func TestOverlayReplacesTheEditedFileOnly(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	orig := "package p\n\nfunc ok(n, min int) bool {\n\treturn n >= min\n}\n"
	file := filepath.Join(src, "pkg", "p", "p.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	m := Mutant{Kind: KindSource, Edits: []Edit{
		{File: "pkg/p/p.go", Match: "n >= min", Replace: "n >= min-1"},
		{File: "pkg/p/p.go", Match: "func ok", Replace: "func okay"},
	}}
	path, err := m.Overlay(src, dir)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	if len(ov.Replace) != 1 {
		t.Fatalf("overlay replaces %d files, want 1: %v", len(ov.Replace), ov.Replace)
	}
	edited, _ := os.ReadFile(ov.Replace[file])
	if want := strings.NewReplacer("n >= min", "n >= min-1", "func ok", "func okay").Replace(orig); string(edited) != want {
		t.Errorf("edited file:\n%s\nwant:\n%s", edited, want)
	}
	if now, _ := os.ReadFile(file); string(now) != orig {
		t.Errorf("the source copy was changed")
	}
}

// A rule whose text is gone from the pinned source, or no longer unique,
// is stale: reported as such, never built.
func TestOverlayReportsARuleThatNoLongerMatches(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "p.go"), []byte("a a b"), 0o644); err != nil {
		t.Fatal(err)
	}
	for match, count := range map[string]int{"c": 0, "a": 2} {
		m := Mutant{Kind: KindSource, Edits: []Edit{{File: "p.go", Match: match, Replace: "x"}}}
		_, err := m.Overlay(src, t.TempDir())
		var stale *StaleError
		if !errors.As(err, &stale) || stale.Count != count || stale.File != "p.go" {
			t.Errorf("match %q: error %v, want a StaleError naming p.go with count %d", match, err, count)
		}
	}
}

func TestConfigDisablesThePluginAtItsPointInEveryProfile(t *testing.T) {
	base := []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  plugins:\n    permit:\n      disabled:\n      - name: Other\n- schedulerName: b\n")
	m := Mutant{Kind: KindProfile, Disable: []Disable{{Point: "permit", Plugin: "GangScheduling"}}}
	out, err := m.Config(base)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Profiles []struct {
			Plugins map[string]struct{ Disabled []struct{ Name string } }
		}
	}
	if err := yaml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Profiles) != 2 {
		t.Fatalf("profiles: %d, want 2", len(doc.Profiles))
	}
	for i, p := range doc.Profiles {
		d := p.Plugins["permit"].Disabled
		if len(d) == 0 || d[len(d)-1].Name != "GangScheduling" {
			t.Errorf("profile %d: permit disabled %v, want GangScheduling last", i, d)
		}
	}
	if d := doc.Profiles[0].Plugins["permit"].Disabled; len(d) != 2 || d[0].Name != "Other" {
		t.Errorf("profile 0 lost what it disabled before: %v", d)
	}
}
