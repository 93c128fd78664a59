package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEtcdTempDirIsShortEnoughForTheSocket(t *testing.T) {
	if len(os.TempDir()) > 20 {
		t.Skipf("this machine's temporary directory %s is longer than a usual one", os.TempDir())
	}
	tmp, err := etcdTempDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if fi, err := os.Stat(tmp); err != nil || !fi.IsDir() {
		t.Fatalf("%s is no directory: %v", tmp, err)
	}
	sock := filepath.Join(tmp, "integration_test_etcd_data4294967295", "etcd.sock")
	if len(sock) > socketPathMax {
		t.Errorf("socket path %s has %d characters, more than %d", sock, len(sock), socketPathMax)
	}
}

func TestEtcdTempDirRefusesALongTMPDIR(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 80))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	_, err := etcdTempDir()
	if err == nil || !strings.Contains(err.Error(), "set TMPDIR to a shorter one") {
		t.Fatalf("err = %v", err)
	}
	if left, _ := os.ReadDir(long); len(left) != 0 {
		t.Errorf("%d entries left in %s", len(left), long)
	}
}
