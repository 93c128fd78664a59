package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
)

// A server with a certificate of its own, for 127.0.0.1, and that
// certificate in PEM (it is its own CA).
func tlsServer(t *testing.T) (*httptest.Server, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "kwok-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// kwokctl gives a new cluster of the same name the same file paths; a
// client for it must trust the new CA, not the transport client-go cached
// for the old one.
func TestAClusterRemadeAtTheSamePathsIsTrusted(t *testing.T) {
	dir := t.TempDir()
	caFile, kubeconfig := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "kubeconfig.yaml")
	for i := 0; i < 2; i++ {
		srv, ca := tlsServer(t)
		if err := os.WriteFile(caFile, ca, 0o644); err != nil {
			t.Fatal(err)
		}
		kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, srv.URL, caFile)
		if err := os.WriteFile(kubeconfig, []byte(kc), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := RESTConfig(kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = cs.Discovery().RESTClient().Get().AbsPath("/version").DoRaw(ctx)
		cancel()
		if err != nil {
			t.Fatalf("cluster %d: %v", i+1, err)
		}
		srv.Close()
	}
}
