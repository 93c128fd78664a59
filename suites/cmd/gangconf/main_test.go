package main

import (
	"context"
	"strings"
	"testing"
)

// cluster-up makes clusters; on one it was handed there is nothing to make.
func TestClusterUpRefusesAProviderItCannotMake(t *testing.T) {
	t.Setenv("PROVIDER", "existing")
	err := clusterUp(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cluster-up makes kwok and kind clusters only; PROVIDER=existing needs none") {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckControlsRejectsBadFlagsBeforeReadingAnything(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-control", "no-gang"}, "needs -control, -report and -record"},
		{[]string{"-control", "reference", "-report", "r.json", "-record", "c.yaml"}, `-control "reference" is not a negative control (known: no-gang, `},
	} {
		if err := checkControls(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("check-controls %v: err = %v, want it to say %q", c.args, err, c.want)
		}
	}
}
