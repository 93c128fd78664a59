package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gangconf/gangconf/suites/framework/proc"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
)

// Options say where Kueue's pieces are and where the run's files go.
type Options struct {
	Kind Kind
	// Binary is Kueue's manager, built from Module (make build-kueue).
	Binary string
	// Module is the directory of the Go module that pins Kueue
	// (suites/framework/admission/kueue); Kueue's CRDs and webhook
	// configurations are read from its copy in the module cache.
	Module string
	// Kubeconfig is the cluster's; Config a client configuration for it.
	Kubeconfig string
	Config     *rest.Config
	// RunDir holds the certificates and Kueue's configuration; LogDir its
	// log (kueue.log).
	RunDir, LogDir string
	// Labels go on the namespace the harness makes for Kueue.
	Labels map[string]string
	// ReadyTimeout bounds the wait for Kueue's readiness (default 2 min).
	ReadyTimeout time.Duration
}

// Stack is Kueue running in front of the scheduler under test.
type Stack struct {
	Kind Kind
	// Version is the version of sigs.k8s.io/kueue the module pins.
	Version string
	// LogPath is Kueue's log.
	LogPath string

	proc    *scheduler.Process
	cs      kubernetes.Interface
	dyn     dynamic.Interface
	runDir  string
	crds    []string
	webhook bool
	ns      bool
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ModuleDir is where the module cache holds the Kueue version module pins:
// `go mod download -json` in that module, which fetches it when missing.
func ModuleDir(ctx context.Context, module string) (dir, version string, err error) {
	cmd := exec.CommandContext(ctx, "go", "-C", module, "mod", "download", "-json", "sigs.k8s.io/kueue")
	out, err := cmd.Output()
	var info struct{ Dir, Version, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", "", fmt.Errorf("kueue module: %s", info.Error)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", "", fmt.Errorf("kueue module: go mod download in %s: %w", module, err)
	}
	if info.Dir == "" {
		return "", "", fmt.Errorf("kueue module: go mod download in %s gave no directory", module)
	}
	return info.Dir, info.Version, nil
}

// CheckBinary says, with what to do, when Kueue's manager is not at path:
// the settings check it before anything starts, Start again.
func CheckBinary(kind, path string) error {
	if !proc.IsExecutable(path) {
		return fmt.Errorf("ADMISSION=%s needs Kueue's manager at %s: build it with make build-kueue", kind, path)
	}
	return nil
}

// Start installs Kueue in the cluster and runs its manager: CRDs, a
// namespace with the certificates' Secret, webhook configurations by URL on
// loopback, then the process, ready once its readiness probe answers and a
// dry-run ResourceFlavor has passed its webhooks through the API server. Any
// failure undoes what was made and says what failed in its first line.
func Start(ctx context.Context, o Options, logf func(string, ...any)) (s *Stack, err error) {
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 2 * time.Minute
	}
	if err := CheckBinary(o.Kind.Name, o.Binary); err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(o.Config)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(o.Config)
	if err != nil {
		return nil, err
	}
	s = &Stack{Kind: o.Kind, cs: cs, dyn: dyn, runDir: o.RunDir, LogPath: filepath.Join(o.LogDir, "kueue.log")}
	defer func() {
		if err != nil {
			if derr := s.Stop(); derr != nil {
				logf("cleanup after failure: %v", derr)
			}
			s = nil
		}
	}()
	start := time.Now()
	r, err := render(ctx, o)
	if err != nil {
		return s, err
	}
	s.Version = r.version
	if err := s.install(ctx, o, r); err != nil {
		return s, err
	}

	s.proc = &scheduler.Process{
		Name: "kueue", Binary: o.Binary, LogPath: s.LogPath,
		Args:     append(Args(r.configPath), "--kubeconfig="+o.Kubeconfig),
		ReadyURL: "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(r.healthPort)) + "/readyz",
	}
	if err := s.proc.Start(false); err != nil {
		return s, fmt.Errorf("start kueue %s: %w", o.Binary, err)
	}
	if err := waitReady(ctx, s.proc, o.ReadyTimeout, s.webhooksAnswer); err != nil {
		return s, err
	}
	logf("kueue %s ready in %s (webhooks on %s, log %s)", r.version, time.Since(start).Round(100*time.Millisecond), r.base, s.LogPath)
	return s, nil
}

// rendered is what Start writes and installs for one Kueue: its
// certificates and configuration on disk, its CRDs and webhook
// configurations pointed at its webhook server on loopback.
type rendered struct {
	version, base, configPath string
	healthPort                int
	certs                     *Certs
	crds                      []*unstructured.Unstructured
	mutating                  *admissionv1.MutatingWebhookConfiguration
	validating                *admissionv1.ValidatingWebhookConfiguration
}

// render picks the ports, makes the certificates and writes the
// configuration into o.RunDir, and renders the CRDs and webhook
// configurations from Kueue's module.
func render(ctx context.Context, o Options) (*rendered, error) {
	modDir, version, err := ModuleDir(ctx, o.Module)
	if err != nil {
		return nil, err
	}
	webhookPort, err := scheduler.FreePort(0)
	if err != nil {
		return nil, err
	}
	healthPort, err := scheduler.FreePort(0)
	if err != nil {
		return nil, err
	}
	r := &rendered{version: version, healthPort: healthPort, base: "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(webhookPort))}
	if r.certs, err = MakeCerts(ServiceDNSName(), time.Now()); err != nil {
		return nil, fmt.Errorf("kueue certificates: %w", err)
	}
	certDir := filepath.Join(o.RunDir, "kueue-certs")
	if err := r.certs.Write(certDir); err != nil {
		return nil, fmt.Errorf("kueue certificates: %w", err)
	}
	if r.crds, err = CRDs(modDir, r.base, r.certs.CA); err != nil {
		return nil, err
	}
	if r.mutating, r.validating, err = Webhooks(modDir, r.base, r.certs.CA); err != nil {
		return nil, err
	}
	cfg, err := Config(ConfigOptions{CertDir: certDir, WebhookPort: webhookPort, HealthPort: healthPort})
	if err != nil {
		return nil, err
	}
	r.configPath = filepath.Join(o.RunDir, "kueue-config.yaml")
	return r, os.WriteFile(r.configPath, cfg, 0o644)
}

// install creates the CRDs, Kueue's namespace, the secret that holds the
// harness's certificates and the webhook configurations, noting each in s
// for Stop.
func (s *Stack) install(ctx context.Context, o Options, r *rendered) error {
	if err := s.installCRDs(ctx, r.crds); err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace, Labels: o.Labels}}
	if _, err := s.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("kueue namespace %s: %w", Namespace, err)
	}
	s.ns = true
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: WebhookSecret, Namespace: Namespace}, Data: r.certs.Secret()}
	if _, err := s.cs.CoreV1().Secrets(Namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("kueue certificate secret: %w", err)
	}
	s.webhook = true
	if _, err := s.cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, r.mutating, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("kueue webhooks: %w", err)
	}
	if _, err := s.cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, r.validating, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("kueue webhooks: %w", err)
	}
	return nil
}

// waitReady waits until Kueue's readiness probe answers and webhooks, the
// API server's call of its webhooks, succeeds; it fails at once, with the end
// of Kueue's log, if the process exits first.
func waitReady(ctx context.Context, p *scheduler.Process, timeout time.Duration, webhooks func(context.Context) error) error {
	var last error
	err := scheduler.Poll(ctx, timeout, p.Exited(), func(ctx context.Context) bool {
		if !scheduler.ReadyURLOK(ctx, p.ReadyURL) {
			if ctx.Err() == nil {
				last = fmt.Errorf("%s does not answer 200", p.ReadyURL)
			}
			return false
		}
		if err := webhooks(ctx); err != nil {
			if ctx.Err() == nil {
				last = fmt.Errorf("the API server's call of its webhooks: %w", err)
			}
			return false
		}
		return true
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, scheduler.ErrExited):
		return fmt.Errorf("kueue exited at start; last lines of %s:\n%s", p.LogPath, scheduler.Tail(p.LogPath, 15))
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("kueue: stopped waiting until it is ready: %w", err)
	default:
		return fmt.Errorf("kueue not ready after %s (%v); last lines of %s:\n%s", timeout, last, p.LogPath, scheduler.Tail(p.LogPath, 15))
	}
}

// installCRDs creates Kueue's CRDs and waits until each is Established.
func (s *Stack) installCRDs(ctx context.Context, crds []*unstructured.Unstructured) error {
	for _, crd := range crds {
		if _, err := s.dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("install Kueue's CRD %s: %w", crd.GetName(), err)
		}
		s.crds = append(s.crds, crd.GetName())
	}
	deadline := time.Now().Add(time.Minute)
	for _, name := range s.crds {
		for {
			got, err := s.dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
			if err == nil && established(got) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("install Kueue's CRD %s: not Established after 1m (%v)", name, err)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("install Kueue's CRD %s: %w", name, ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// webhooksAnswer creates a ResourceFlavor in a dry run: the API server calls
// Kueue's mutating and validating webhooks for it, by URL, with the CA.
func (s *Stack) webhooksAnswer(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rf := resourceFlavor("gangconf-probe", nil)
	_, err := s.dyn.Resource(ResourceFlavors).Create(ctx, rf, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// Stop removes what Start made, the webhook configurations first (so that
// the API server no longer calls a stopped Kueue), then stops the process it
// started (by its PID), then removes the namespace, the CRDs and the run's
// files. Safe to call more than once; every step runs whatever the ones
// before it returned.
func (s *Stack) Stop() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	if s.webhook {
		for _, err := range []error{
			s.cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, MutatingName, metav1.DeleteOptions{}),
			s.cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, ValidatingName, metav1.DeleteOptions{}),
		} {
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("remove kueue webhooks: %w", err))
			}
		}
		s.webhook = false
	}
	if s.proc != nil {
		errs = append(errs, s.proc.Stop())
		s.proc = nil
	}
	if s.ns {
		if err := s.cs.CoreV1().Namespaces().Delete(ctx, Namespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("remove kueue namespace: %w", err))
		}
		s.ns = false
	}
	for _, name := range s.crds {
		if err := s.dyn.Resource(crdGVR).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("remove kueue CRD %s: %w", name, err))
		}
	}
	s.crds = nil
	if s.runDir != "" {
		_ = os.RemoveAll(filepath.Join(s.runDir, "kueue-certs"))
		_ = os.Remove(filepath.Join(s.runDir, "kueue-config.yaml"))
	}
	return errors.Join(errs...)
}

// Running says whether Kueue's process still runs.
func (s *Stack) Running() bool { return s != nil && s.proc != nil && s.proc.Running() }
