package versions

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGatesDropsWhatAVersionNoLongerHas(t *testing.T) {
	const gates = "GenericWorkload=true,PodGroupPreemptionPolicy=true,WorkloadWithJob=false"
	for _, tc := range []struct{ version, want string }{
		{"", gates},
		{"v1.37.2", gates},
		{"v1.38.0-beta.0", "GenericWorkload=true,WorkloadWithJob=false"},
		{"v1.38.0", "GenericWorkload=true,WorkloadWithJob=false"},
		{"v2.0.0", "GenericWorkload=true,WorkloadWithJob=false"},
	} {
		if got := Gates(tc.version, gates); got != tc.want {
			t.Errorf("Gates(%q) = %q, want %q", tc.version, got, tc.want)
		}
	}
	if got := Gates("v1.38.0", "PodGroupPreemptionPolicy=false"); got != "" {
		t.Errorf("a list of only removed gates = %q, want empty", got)
	}
}

func TestEveryChangeIsComplete(t *testing.T) {
	for _, c := range Changes {
		if !c.Applies(c.Since) || c.What == "" || c.Upstream == "" || c.apply == nil {
			t.Errorf("change %q: needs a parsable Since, What, Upstream and what it changes", c.What)
		}
	}
}

func TestForAppliesTheChangesUpToAVersion(t *testing.T) {
	if got := For("v1.37.2"); got.GroupErrorReason != "SchedulerError" || len(got.RemovedGates) != 0 {
		t.Errorf("v1.37.2: %+v, want the base contract", got)
	}
	if got := For("v1.38.0-beta.0"); got.GroupErrorReason != "PodGroupError" {
		t.Errorf("v1.38.0-beta.0: reason %q, want PodGroupError", got.GroupErrorReason)
	}
	// A later version's changes never leak into the base.
	if For("v1.38.0"); base.GroupErrorReason != "SchedulerError" || base.RemovedGates != nil {
		t.Errorf("For changed the base contract: %+v", base)
	}
}

func TestOfBinary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, script string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if v, err := OfBinary(write("good", "echo Kubernetes v1.38.0-beta.0")); err != nil || v != "v1.38.0-beta.0" {
		t.Errorf("OfBinary = %q, %v", v, err)
	}
	if _, err := OfBinary(write("odd", "echo etcd 3.6")); err == nil {
		t.Error("an unexpected --version line: no error")
	}
	if _, err := OfBinary(write("fails", "exit 3")); err == nil {
		t.Error("a failing binary: no error")
	}
}
