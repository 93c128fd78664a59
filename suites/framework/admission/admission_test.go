package admission

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/gangconf/gangconf/suites/framework/scheduler"
)

func TestLookupNamesTheKnownKinds(t *testing.T) {
	if _, err := Lookup(Kueue); err != nil {
		t.Fatal(err)
	}
	k, err := Lookup(KueuePartial)
	if err != nil || !k.Broken || k.MinParallelism == "" {
		t.Fatalf("kueue-partial: %+v, %v: want a broken stack that sets job-min-parallelism", k, err)
	}
	for _, k := range All() {
		if k.Product == "" || k.About == "" {
			t.Errorf("%s names no product or says nothing about itself: the report's stack row needs both", k.Name)
		}
	}
	_, err = Lookup("volcano")
	if err == nil || !strings.Contains(err.Error(), `unknown ADMISSION "volcano" (known: kueue, kueue-partial`) {
		t.Fatalf("got %v", err)
	}
}

// The version the report names is the one the module pins.
func TestKueueVersionIsTheModulesPin(t *testing.T) {
	data, err := os.ReadFile("kueue/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	found := ""
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "sigs.k8s.io/kueue" {
			found = f[1]
		}
	}
	if found != KueueVersion {
		t.Fatalf("kueue/go.mod pins sigs.k8s.io/kueue %q, KueueVersion says %q", found, KueueVersion)
	}
}

func TestCertsServeLoopbackAndTheRotatorsName(t *testing.T) {
	now := time.Now()
	c, err := MakeCerts(ServiceDNSName(), now)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.CA) {
		t.Fatal("CA is no PEM certificate")
	}
	block, _ := pem.Decode(c.Cert)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	// The API server calls 127.0.0.1; Kueue's rotator checks the service name
	// 90 days ahead, or it replaces the certificate with one of its own.
	for _, name := range []string{"127.0.0.1", "kueue-webhook-service.kueue-system.svc"} {
		for _, at := range []time.Time{now, now.Add(91 * 24 * time.Hour)} {
			if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, CurrentTime: at,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
				t.Errorf("%s at %s: %v", name, at.Format(time.DateOnly), err)
			}
		}
	}
	// The rotator checks the CA as a certificate of its own name, 90 days
	// ahead too.
	caBlock, _ := pem.Decode(c.CA)
	ca, err := x509.ParseCertificate(caBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Verify(x509.VerifyOptions{DNSName: "kueue-ca", Roots: pool, CurrentTime: now.Add(91 * 24 * time.Hour)}); err != nil {
		t.Errorf("the CA as the rotator checks it: %v", err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: pool}); err == nil {
		t.Error("the certificate serves any name")
	}
	if _, err := tls.X509KeyPair(c.Cert, c.Key); err != nil {
		t.Errorf("serving pair: %v", err)
	}
	if _, err := tls.X509KeyPair(c.CA, c.CAKey); err != nil {
		t.Errorf("CA pair: %v", err)
	}
	// The rotator parses the CA key as PKCS #1.
	if kb, _ := pem.Decode(c.CAKey); kb == nil {
		t.Error("CA key is no PEM")
	} else if _, err := x509.ParsePKCS1PrivateKey(kb.Bytes); err != nil {
		t.Errorf("CA key as the rotator parses it: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "certs")
	if err := c.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"tls.crt", "tls.key", "ca.crt", "ca.key"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", f, st, err)
		}
	}
}

func TestConfigKeepsEveryServerOnLoopback(t *testing.T) {
	data, err := Config(ConfigOptions{CertDir: "/run/certs", WebhookPort: 9443, HealthPort: 8081})
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		APIVersion, Kind, Namespace string
		Health                      struct{ HealthProbeBindAddress string }
		Metrics                     struct{ BindAddress string }
		Webhook                     struct {
			Host, CertDir string
			Port          int
		}
		LeaderElection         struct{ LeaderElect bool }
		InternalCertManagement struct {
			Enable                                bool
			WebhookServiceName, WebhookSecretName string
		}
		ManageJobsWithoutQueueName *bool
		ClientConnection           struct{ QPS, Burst int }
		Integrations               struct{ Frameworks []string }
	}
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	checks := map[string][2]any{
		"apiVersion":          {cfg.APIVersion, "config.kueue.x-k8s.io/v1beta2"},
		"kind":                {cfg.Kind, "Configuration"},
		"namespace":           {cfg.Namespace, Namespace},
		"health probe":        {cfg.Health.HealthProbeBindAddress, "127.0.0.1:8081"},
		"metrics":             {cfg.Metrics.BindAddress, "0"},
		"webhook host":        {cfg.Webhook.Host, "127.0.0.1"},
		"webhook port":        {cfg.Webhook.Port, 9443},
		"cert dir":            {cfg.Webhook.CertDir, "/run/certs"},
		"leader election":     {cfg.LeaderElection.LeaderElect, false},
		"rotator":             {cfg.InternalCertManagement.Enable, true},
		"rotator service":     {cfg.InternalCertManagement.WebhookServiceName, WebhookService},
		"rotator secret":      {cfg.InternalCertManagement.WebhookSecretName, WebhookSecret},
		"queue name required": {cfg.ManageJobsWithoutQueueName != nil && !*cfg.ManageJobsWithoutQueueName, true},
		"frameworks":          {strings.Join(cfg.Integrations.Frameworks, ","), "batch/job"},
	}
	for what, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s: %v, want %v", what, c[0], c[1])
		}
	}
	if args := strings.Join(Args("/cfg.yaml"), " "); !strings.Contains(args, "--config=/cfg.yaml") || !strings.Contains(args, "VisibilityOnDemand=false") {
		t.Errorf("args %s: want the config and the visibility server off", args)
	}
	if _, err := Config(ConfigOptions{CertDir: "/c"}); err == nil {
		t.Error("a configuration without ports was rendered")
	}
}

// fakeModule is a stand-in for Kueue's module directory, written here: the
// same layout, a few webhooks and CRDs of the same shape.
func fakeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hook := func(name, path, group, resource string) string {
		return `- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: ` + path + `}
  failurePolicy: Fail
  name: ` + name + `
  rules:
  - apiGroups: [` + group + `]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [` + resource + `]
  sideEffects: None
`
	}
	write(webhookConfigs, "---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: mutating-webhook-configuration\nwebhooks:\n"+
		hook("mjob.kb.io", "/mutate-batch-v1-job", "batch", "jobs")+
		hook("mpod.kb.io", "/mutate--v1-pod", `""`, "pods")+
		hook("mclusterqueue.kb.io", "/mutate-cq", "kueue.x-k8s.io", "clusterqueues")+
		"---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: validating-webhook-configuration\nwebhooks:\n"+
		hook("vjob.kb.io", "/validate-batch-v1-job", "batch", "jobs")+
		hook("vdeployment.kb.io", "/validate-apps-v1-deployment", "apps", "deployments"))
	crd := func(plural string) string {
		return "# a comment\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + plural +
			".kueue.x-k8s.io\nspec:\n  group: kueue.x-k8s.io\n  names: {plural: " + plural + ", kind: X}\n  scope: Namespaced\n"
	}
	write(filepath.Join(crdBases, "kueue.x-k8s.io_workloads.yaml"), crd("workloads"))
	write(filepath.Join(crdBases, "kueue.x-k8s.io_topologies.yaml"), crd("topologies"))
	write(filepath.Join(crdPatches, "webhook_in_workloads.yaml"), `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: workloads.kueue.x-k8s.io
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service: {namespace: system, name: webhook-service, path: /convert}
      conversionReviewVersions: [v1]
`)
	return dir
}

func TestWebhooksKeepKueuesAndJobsOnLoopback(t *testing.T) {
	mut, val, err := Webhooks(fakeModule(t), "https://127.0.0.1:9443", []byte("CA"))
	if err != nil {
		t.Fatal(err)
	}
	if mut.Name != MutatingName || val.Name != ValidatingName {
		t.Errorf("names %s, %s: want the rotator's %s, %s", mut.Name, val.Name, MutatingName, ValidatingName)
	}
	var got []string
	for _, w := range mut.Webhooks {
		got = append(got, w.Name+" "+*w.ClientConfig.URL+" "+string(w.ClientConfig.CABundle))
		if w.ClientConfig.Service != nil {
			t.Errorf("%s keeps its service reference", w.Name)
		}
	}
	for _, w := range val.Webhooks {
		got = append(got, w.Name+" "+*w.ClientConfig.URL+" "+string(w.ClientConfig.CABundle))
	}
	want := []string{
		"mjob.kb.io https://127.0.0.1:9443/mutate-batch-v1-job CA",
		"mclusterqueue.kb.io https://127.0.0.1:9443/mutate-cq CA",
		"vjob.kb.io https://127.0.0.1:9443/validate-batch-v1-job CA",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("webhooks:\n%s\nwant (pods and deployments are integrations that are off):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWebhooksWithoutTheJobWebhookFail(t *testing.T) {
	dir := fakeModule(t)
	p := filepath.Join(dir, webhookConfigs)
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), "batch", "elsewhere")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Webhooks(dir, "https://127.0.0.1:1", nil); err == nil || !strings.Contains(err.Error(), "no mutating webhook for batch/v1 jobs") {
		t.Fatalf("got %v", err)
	}
	if _, _, err := Webhooks(t.TempDir(), "https://127.0.0.1:1", nil); err == nil || !strings.Contains(err.Error(), "kueue webhook configurations") {
		t.Fatalf("an empty module: %v", err)
	}
}

func TestCRDsGetTheirConversionWebhookOnLoopback(t *testing.T) {
	crds, err := CRDs(fakeModule(t), "https://127.0.0.1:9443", []byte("CA"))
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != 2 {
		t.Fatalf("%d CRDs, want 2", len(crds))
	}
	for _, c := range crds {
		conv, found, _ := unstructured.NestedMap(c.Object, "spec", "conversion")
		switch c.GetName() {
		case "workloads.kueue.x-k8s.io":
			url, _, _ := unstructured.NestedString(conv, "webhook", "clientConfig", "url")
			ca, _, _ := unstructured.NestedString(conv, "webhook", "clientConfig", "caBundle")
			_, svc, _ := unstructured.NestedMap(conv, "webhook", "clientConfig", "service")
			if conv["strategy"] != "Webhook" || url != "https://127.0.0.1:9443/convert" || ca != base64.StdEncoding.EncodeToString([]byte("CA")) || svc {
				t.Errorf("workloads conversion: %v", conv)
			}
		default:
			if found {
				t.Errorf("%s got a conversion it has no patch for: %v", c.GetName(), conv)
			}
		}
	}
	if _, err := CRDs(t.TempDir(), "x", nil); err == nil || !strings.Contains(err.Error(), "no CRD in") {
		t.Errorf("an empty module: %v", err)
	}
}

// A CRD the API server refuses stops the run with a line naming it.
func TestCRDsThatDoNotInstallSaySo(t *testing.T) {
	crds, err := CRDs(fakeModule(t), "https://127.0.0.1:9443", []byte("CA"))
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), nil)
	dyn.PrependReactor("create", "customresourcedefinitions", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New(`CustomResourceDefinition.apiextensions.k8s.io "topologies.kueue.x-k8s.io" is invalid`)
	})
	s := &Stack{dyn: dyn}
	err = s.installCRDs(context.Background(), crds)
	if err == nil || !strings.HasPrefix(err.Error(), "install Kueue's CRD topologies.kueue.x-k8s.io: ") {
		t.Fatalf("got %v", err)
	}
	if len(s.crds) != 0 {
		t.Errorf("Stop would remove %v, which were never made", s.crds)
	}
}

// A Kueue that exits at start stops the run at once with the end of its log.
func TestKueueThatExitsAtStartSaysSo(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "kueue")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'Unable to load the configuration' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &scheduler.Process{Name: "kueue", Binary: bin, LogPath: filepath.Join(dir, "kueue.log"), ReadyURL: "http://127.0.0.1:1/readyz"}
	if err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	start := time.Now()
	err := waitReady(context.Background(), p, time.Minute, func(context.Context) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "kueue exited at start; last lines of ") || !strings.Contains(err.Error(), "Unable to load the configuration") {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("took %s: the exit should end the wait at once", time.Since(start))
	}
}

func TestStartWithoutKueuesBinarySaysHowToBuildIt(t *testing.T) {
	_, err := Start(context.Background(), Options{Kind: all[0], Binary: filepath.Join(t.TempDir(), "kueue")}, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "build it with make build-kueue") {
		t.Fatalf("got %v", err)
	}
}
