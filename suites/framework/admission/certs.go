package admission

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Certs are the webhook server's certificates, made by the harness: a CA
// and a serving certificate, signed by it, for 127.0.0.1 (the URL the API
// server calls) and for the service name Kueue's own certificate rotator
// checks the certificate against (see kueue.go).
type Certs struct {
	CA, CAKey, Cert, Key []byte
}

// rotatorCAName is the name Kueue's certificate rotator verifies the CA for
// (its caName): a CA without it is one the rotator replaces, with the
// webhook configurations' caBundle, by its own.
const rotatorCAName = "kueue-ca"

// certLifetime is longer than the rotator's lookahead (90 days): a
// certificate that expires sooner is one it replaces with its own.
const certLifetime = 365 * 24 * time.Hour

// MakeCerts makes a CA and a serving certificate for 127.0.0.1 and dnsName.
func MakeCerts(dnsName string, now time.Time) (*Certs, error) {
	// RSA keys in PKCS #1: the only form Kueue's rotator (cert-controller)
	// parses a CA key in.
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: rotatorCAName, Organization: []string{"kueue"}},
		// Kueue's rotator checks its CA as a certificate for this name.
		DNSNames:              []string{rotatorCAName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: dnsName},
		DNSNames:     []string{dnsName},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	c := &Certs{
		CA:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
	}
	if c.CAKey, err = keyPEM(caKey); err != nil {
		return nil, err
	}
	if c.Key, err = keyPEM(key); err != nil {
		return nil, err
	}
	return c, nil
}

func keyPEM(k *rsa.PrivateKey) ([]byte, error) {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// Secret is the certificates as the data of the Secret Kueue's rotator reads
// (the names cert-controller uses).
func (c *Certs) Secret() map[string][]byte {
	return map[string][]byte{"ca.crt": c.CA, "ca.key": c.CAKey, "tls.crt": c.Cert, "tls.key": c.Key}
}

// Write puts the certificates into dir, as a mounted Secret would: the
// webhook server reads tls.crt and tls.key there.
func (c *Certs) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, data := range c.Secret() {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}
