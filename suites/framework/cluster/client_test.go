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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// A server with a certificate of its own, for 127.0.0.1, and that
// certificate in PEM (it is its own CA), answering every request with
// version information.
func tlsServer(t *testing.T) (*httptest.Server, []byte) {
	return tlsServerOf(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`)
	}))
}

// tlsServerOf is tlsServer answering with handler.
func tlsServerOf(t *testing.T, handler http.Handler) (*httptest.Server, []byte) {
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
	srv := httptest.NewUnstartedServer(handler)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// clientFor writes a kubeconfig for srv, trusting the CA in ca, into dir
// and returns the harness's client from it.
func clientFor(t *testing.T, dir string, srv *httptest.Server, ca []byte) kubernetes.Interface {
	t.Helper()
	caFile, kubeconfig := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "kubeconfig.yaml")
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
	return cs
}

// The harness's requests go out in protobuf, the format the components
// speak, and it takes answers in protobuf first.
func TestRequestsGoOutInProtobuf(t *testing.T) {
	var contentType, accept string
	srv, ca := tlsServerOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contentType, accept = r.Header.Get("Content-Type"), r.Header.Get("Accept")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n"}}`)
	}))
	cs := clientFor(t, t.TempDir(), srv, ca)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	if _, err := cs.CoreV1().Pods("n").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if contentType != "application/vnd.kubernetes.protobuf" || !strings.HasPrefix(accept, "application/vnd.kubernetes.protobuf,") {
		t.Errorf("a create went out as %q, accepting %q", contentType, accept)
	}
}

// kwokctl gives a new cluster of the same name the same file paths; a
// client for it must trust the new CA, not the transport client-go cached
// for the old one.
func TestAClusterRemadeAtTheSamePathsIsTrusted(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		srv, ca := tlsServer(t)
		cs := clientFor(t, dir, srv, ca)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := cs.Discovery().RESTClient().Get().AbsPath("/version").DoRaw(ctx)
		cancel()
		if err != nil {
			t.Fatalf("cluster %d: %v", i+1, err)
		}
		srv.Close()
	}
}
