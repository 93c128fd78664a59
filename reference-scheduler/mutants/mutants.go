// Package mutants reads the catalogue of mutated reference schedulers
// (reference-scheduler/mutants.yaml) and turns one entry into something that
// runs: for a source mutant, the edited files of the pinned kube-scheduler
// source as a `go build -overlay`; for a profile mutant, the reference
// configuration with plugins disabled. The project keeps only the rules, never
// an upstream file.
package mutants

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gangconf/gangconf/internal/yamlfile"
)

// Kinds of mutant.
const (
	// KindSource edits the scheduler's code at build time.
	KindSource = "source"
	// KindProfile runs the reference binary with plugins disabled in its
	// KubeSchedulerConfiguration.
	KindProfile = "profile"
)

// Areas are the parts of the contract a mutant breaks, as the suite's
// `area:` labels and the report group them.
var Areas = []string{"quorum", "all-or-nothing", "deadlock", "placement", "status", "preemption", "alpha"}

// Edit replaces one exact piece of text in one file of the pinned
// k8s.io/kubernetes module.
type Edit struct {
	// File is relative to the module's root.
	File string `json:"file"`
	// Match must occur exactly once in File.
	Match   string `json:"match"`
	Replace string `json:"replace"`
}

// Disable turns one plugin off at one extension point of the profile.
type Disable struct {
	// Point is an extension point as KubeSchedulerConfiguration names it
	// under profiles[].plugins (permit, postFilter, filter, ...).
	Point  string `json:"point"`
	Plugin string `json:"plugin"`
}

// Mutant is one deliberately broken reference scheduler.
type Mutant struct {
	Name string `json:"name"`
	Area string `json:"area"`
	Kind string `json:"kind"`
	// Bug is the real bug the mutant stands for.
	Bug     string    `json:"bug"`
	Edits   []Edit    `json:"edits,omitempty"`
	Disable []Disable `json:"disable,omitempty"`
	// Expect names the specs expected to kill it, or why none would.
	Expect string `json:"expect,omitempty"`
	// Equivalent, when set, is why the mutant behaves as the reference does;
	// such a mutant is not run and not counted in the score.
	Equivalent string `json:"equivalent,omitempty"`
}

// Catalogue is the whole file.
type Catalogue struct {
	Mutants []Mutant `json:"mutants"`
}

// Load reads and checks a catalogue.
func Load(path string) (*Catalogue, error) {
	c, err := yamlfile.Read[Catalogue](path)
	if err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

func (c *Catalogue) validate() error {
	if len(c.Mutants) == 0 {
		return errors.New("no mutants")
	}
	seen := map[string]bool{}
	var errs []error
	for _, m := range c.Mutants {
		if seen[m.Name] {
			errs = append(errs, fmt.Errorf("mutant %q listed twice", m.Name))
		}
		seen[m.Name] = true
		if err := m.validate(); err != nil {
			errs = append(errs, fmt.Errorf("mutant %q: %w", m.Name, err))
		}
	}
	return errors.Join(errs...)
}

func (m Mutant) validate() error {
	switch {
	case m.Name == "" || strings.ContainsAny(m.Name, " /,"):
		return errors.New("needs a name without spaces, slashes or commas")
	case !slices.Contains(Areas, m.Area):
		return fmt.Errorf("area %q is not one of %s", m.Area, strings.Join(Areas, ", "))
	case m.Bug == "":
		return errors.New("needs the bug it stands for")
	}
	switch m.Kind {
	case KindSource:
		if len(m.Edits) == 0 || len(m.Disable) > 0 {
			return errors.New("a source mutant has edits and nothing to disable")
		}
		for _, e := range m.Edits {
			if e.File == "" || e.Match == "" || e.Match == e.Replace {
				return fmt.Errorf("edit of %q: needs a file, a match and a different replacement", e.File)
			}
		}
	case KindProfile:
		if len(m.Disable) == 0 || len(m.Edits) > 0 {
			return errors.New("a profile mutant disables plugins and edits nothing")
		}
		for _, d := range m.Disable {
			if d.Point == "" || d.Plugin == "" {
				return errors.New("each disable needs a point and a plugin")
			}
		}
	default:
		return fmt.Errorf("kind %q is not %s or %s", m.Kind, KindSource, KindProfile)
	}
	return nil
}

// Select returns the mutants named in a comma list, in the catalogue's
// order; an empty list selects all. An unknown name is an error.
func (c *Catalogue) Select(names string) ([]Mutant, error) {
	if strings.TrimSpace(names) == "" {
		return c.Mutants, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	var out []Mutant
	for _, m := range c.Mutants {
		if want[m.Name] {
			out = append(out, m)
			delete(want, m.Name)
		}
	}
	if len(want) > 0 {
		var unknown []string
		for n := range want {
			unknown = append(unknown, n)
		}
		slices.Sort(unknown)
		return nil, fmt.Errorf("unknown mutants %s (see reference-scheduler/mutants.yaml)", strings.Join(unknown, ", "))
	}
	return out, nil
}

// Alpha says whether the mutant breaks an alpha feature, so that the alpha
// profile's specs run against it too.
func (m Mutant) Alpha() bool { return m.Area == "alpha" }
