package kinds

import (
	"strings"
	"testing"

	refconfig "github.com/gangconf/gangconf/reference-scheduler/config"
)

// Every reference scheduler profile is a kind of its own name, so that no
// profile is out of reach of SCHEDULER; names are unique.
func TestEveryProfileIsAKind(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range All() {
		if seen[k.Name] {
			t.Errorf("kind %s listed twice", k.Name)
		}
		seen[k.Name] = true
		if (k.Profile.Name != "") != (k.Class == Reference || k.Class == Control) {
			t.Errorf("kind %s of class %s has profile %q", k.Name, k.Class, k.Profile.Name)
		}
	}
	for _, name := range refconfig.Names() {
		k, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if k.Profile.Name != name || k.Cluster != nil {
			t.Errorf("SCHEDULER=%s runs profile %q with cluster change %v, want its own profile alone", name, k.Profile.Name, k.Cluster)
		}
	}
}

func TestControlsThatChangeTheCluster(t *testing.T) {
	api, err := Lookup("no-api")
	if err != nil {
		t.Fatal(err)
	}
	if api.Profile.Name != "no-gang" || api.Cluster == nil || api.Cluster.Component() != "API server" || !api.Started {
		t.Errorf("no-api = %+v, want the no-gang scheduler on a cluster whose API server lacks the API", api)
	}
	job, err := Lookup("no-job-workload")
	if err != nil {
		t.Fatal(err)
	}
	if job.Profile.Name != "reference" || job.Cluster == nil || job.Cluster.Component() != "controller manager" || !job.AlphaCluster {
		t.Errorf("no-job-workload = %+v, want the reference scheduler with a controller manager lacking a gate", job)
	}
}

func TestLookupListsTheKnownKinds(t *testing.T) {
	_, err := Lookup("volcano")
	if err == nil || !strings.Contains(err.Error(), `unknown SCHEDULER "volcano" (known: reference, no-gang, no-api,`) ||
		!strings.Contains(err.Error(), "external, ceiling (make bench only))") {
		t.Fatalf("err = %v", err)
	}
	for _, name := range []string{"external", "command"} {
		if k, _ := Lookup(name); !k.NeedsName || k.SchedulerName != "" {
			t.Errorf("%s must take its name from SCHEDULER_NAME: %+v", name, k)
		}
	}
	if k, _ := Lookup("ceiling"); !k.BenchOnly() || k.Started || k.SchedulerName != "default-scheduler" {
		t.Errorf("ceiling = %+v", k)
	}
}

func TestNamesOfAClass(t *testing.T) {
	if got := strings.Join(Names(Control), " "); got != "no-gang no-api no-preemption no-alpha no-job-workload" {
		t.Errorf("controls = %s", got)
	}
	if got := Names(External); len(got) != 1 || got[0] != string(External) {
		t.Errorf("external kinds = %v", got)
	}
}

func TestHelpNamesEveryKind(t *testing.T) {
	h := Help("  ")
	for _, k := range All() {
		if !strings.Contains(h, "  "+k.Name+" ") {
			t.Errorf("help lacks %s:\n%s", k.Name, h)
		}
	}
	if !strings.Contains(h, "(on CLUSTER=ci-alpha)") {
		t.Errorf("help does not say which controls need the alpha cluster:\n%s", h)
	}
}
