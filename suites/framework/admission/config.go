package admission

import (
	"fmt"
	"net"
	"strconv"

	"sigs.k8s.io/yaml"
)

// Names Kueue's certificate rotator works with. The rotator's webhook
// configuration names derive from WebhookService ("kueue-webhook-service"
// gives "kueue-mutating-webhook-configuration"), its DNS name is
// "<WebhookService>.<Namespace>.svc".
const (
	Namespace      = "kueue-system"
	WebhookService = "kueue-webhook-service"
	WebhookSecret  = "kueue-webhook-server-cert"
	MutatingName   = "kueue-mutating-webhook-configuration"
	ValidatingName = "kueue-validating-webhook-configuration"
)

// ServiceDNSName is the name the rotator checks the serving certificate for.
func ServiceDNSName() string { return WebhookService + "." + Namespace + ".svc" }

// ConfigOptions are what the harness chooses of Kueue's Configuration.
type ConfigOptions struct {
	// CertDir holds tls.crt and tls.key for the webhook server.
	CertDir string
	// WebhookPort and HealthPort are loopback ports.
	WebhookPort, HealthPort int
}

// Config renders Kueue's Configuration (config.kueue.x-k8s.io/v1beta2, the
// version v0.17.0 reads):
//   - every server on loopback: the webhook server on 127.0.0.1 (the URL the
//     webhook configurations name), the health probes on 127.0.0.1, the
//     metrics server off; the visibility server, which listens on every
//     interface, is off by its feature gate (see Args);
//   - no leader election: one manager;
//   - internalCertManagement on, with the names of the Secret and the
//     webhook configurations the harness made, seeded with its own
//     certificates: Kueue v0.17.0 with it off reads its metrics certificate
//     from a fixed path (/etc/kueue/metrics/certs) and exits without one, so
//     it stays on, and the rotator finds the harness's certificates valid
//     and keeps them;
//   - batch/job the only integration, and only Jobs that name a LocalQueue
//     (manageJobsWithoutQueueName false): every other spec's pods are not
//     Kueue's business;
//   - waitForPodsReady off (Kueue's default): all-or-nothing placement is
//     the scheduler's GangScheduling, which the stack's specs test.
func Config(o ConfigOptions) ([]byte, error) {
	if o.CertDir == "" || o.WebhookPort <= 0 || o.HealthPort <= 0 {
		return nil, fmt.Errorf("kueue configuration: cert dir and both ports are required (got %+v)", o)
	}
	enable, ns, svc, secret := true, Namespace, WebhookService, WebhookSecret
	cfg := map[string]any{
		"apiVersion": "config.kueue.x-k8s.io/v1beta2",
		"kind":       "Configuration",
		"namespace":  ns,
		"health": map[string]any{
			"healthProbeBindAddress": net.JoinHostPort("127.0.0.1", strconv.Itoa(o.HealthPort)),
		},
		"metrics":        map[string]any{"bindAddress": "0"},
		"webhook":        map[string]any{"host": "127.0.0.1", "port": o.WebhookPort, "certDir": o.CertDir},
		"leaderElection": map[string]any{"leaderElect": false},
		"internalCertManagement": map[string]any{
			"enable": enable, "webhookServiceName": svc, "webhookSecretName": secret,
		},
		"manageJobsWithoutQueueName": false,
		"clientConnection":           map[string]any{"qps": 500, "burst": 1000},
		"integrations":               map[string]any{"frameworks": []string{"batch/job"}},
	}
	return yaml.Marshal(cfg)
}

// Args is Kueue's command line: its configuration file, and the visibility
// server off (it would listen on every interface).
func Args(configPath string) []string {
	return []string{"--config=" + configPath, "--feature-gates=VisibilityOnDemand=false", "--zap-log-level=2"}
}
