package mutants

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// StaleError is a rule whose match text no longer occurs exactly once in the
// pinned source: the mutant is reported as such, never run.
type StaleError struct {
	File, Match string
	Count       int
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("rule does not apply to %s: its match occurs %d times, want once: %q", e.File, e.Count, firstLine(e.Match))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// Overlay applies a source mutant's edits to the files under src (the copy
// of the pinned module), writes the edited files under dir, and returns the
// path of a `go build -overlay` file that puts them in place of the originals.
// src itself is never changed, so one copy serves every mutant.
func (m Mutant) Overlay(src, dir string) (string, error) {
	edited := map[string]string{}
	var order []string
	for _, e := range m.Edits {
		text, ok := edited[e.File]
		if !ok {
			data, err := os.ReadFile(filepath.Join(src, e.File))
			if err != nil {
				return "", fmt.Errorf("rule does not apply: %w", err)
			}
			text = string(data)
			order = append(order, e.File)
		}
		if n := strings.Count(text, e.Match); n != 1 {
			return "", &StaleError{File: e.File, Match: e.Match, Count: n}
		}
		edited[e.File] = strings.Replace(text, e.Match, e.Replace, 1)
	}
	replace := map[string]string{}
	for _, f := range order {
		out := filepath.Join(dir, "overlay", f)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(out, []byte(edited[f]), 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(src, f)] = out
	}
	data, err := json.MarshalIndent(map[string]any{"Replace": replace}, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, data, 0o644)
}

// Config is base, a KubeSchedulerConfiguration, with the profile mutant's
// plugins disabled at their points in every profile.
func (m Mutant) Config(base []byte) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, fmt.Errorf("scheduler configuration: %w", err)
	}
	profiles, _ := doc["profiles"].([]any)
	if len(profiles) == 0 {
		return nil, fmt.Errorf("scheduler configuration has no profiles to disable plugins in")
	}
	for _, p := range profiles {
		prof, _ := p.(map[string]any)
		if prof == nil {
			return nil, fmt.Errorf("scheduler configuration: a profile is not a mapping")
		}
		plugins := child(prof, "plugins")
		for _, d := range m.Disable {
			point := child(plugins, d.Point)
			disabled, _ := point["disabled"].([]any)
			point["disabled"] = append(disabled, map[string]any{"name": d.Plugin})
		}
	}
	return yaml.Marshal(doc)
}

// child returns m[key] as a mapping, making it when absent.
func child(m map[string]any, key string) map[string]any {
	c, _ := m[key].(map[string]any)
	if c == nil {
		c = map[string]any{}
		m[key] = c
	}
	return c
}
