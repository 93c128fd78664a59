package admission

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Where Kueue's module keeps what the harness installs, read from the module
// cache at run time (nothing of it is committed here).
const (
	crdBases       = "config/components/crd/bases"
	crdPatches     = "config/components/crd/patches"
	webhookConfigs = "config/components/webhook/manifests.yaml"
	// kueueGroup is the API group of Kueue's own objects.
	kueueGroup = "kueue.x-k8s.io"
)

// served says whether a webhook of Kueue's is one the harness registers: those
// of Kueue's own objects and of batch/v1 Jobs (the one integration it runs).
// The others (pods, deployments, the frameworks of other projects) belong to
// integrations that are off; registering them would send every pod of every
// spec through Kueue.
func served(w []admissionv1.RuleWithOperations) bool {
	for _, r := range w {
		for _, g := range r.APIGroups {
			if g == kueueGroup || (g == "batch" && slices.Contains(r.Resources, "jobs")) {
				return true
			}
		}
	}
	return false
}

// Webhooks reads Kueue's webhook configurations from its module directory and
// points the ones the harness serves (see served) at base
// ("https://127.0.0.1:<port>") with the harness's CA, under the names Kueue's
// certificate rotator keeps up to date.
func Webhooks(moduleDir, base string, ca []byte) (*admissionv1.MutatingWebhookConfiguration, *admissionv1.ValidatingWebhookConfiguration, error) {
	path := filepath.Join(moduleDir, webhookConfigs)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("kueue webhook configurations: %w", err)
	}
	docs, err := splitYAML(data)
	if err != nil {
		return nil, nil, fmt.Errorf("kueue webhook configurations %s: %w", path, err)
	}
	var mut *admissionv1.MutatingWebhookConfiguration
	var val *admissionv1.ValidatingWebhookConfiguration
	for _, doc := range docs {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, nil, fmt.Errorf("kueue webhook configurations %s: %w", path, err)
		}
		switch meta.Kind {
		case "MutatingWebhookConfiguration":
			mut = &admissionv1.MutatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, mut); err != nil {
				return nil, nil, fmt.Errorf("kueue mutating webhooks %s: %w", path, err)
			}
		case "ValidatingWebhookConfiguration":
			val = &admissionv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, val); err != nil {
				return nil, nil, fmt.Errorf("kueue validating webhooks %s: %w", path, err)
			}
		}
	}
	if mut == nil || val == nil {
		return nil, nil, fmt.Errorf("kueue webhook configurations %s: want a mutating and a validating configuration", path)
	}
	mut.ObjectMeta = metaNamed(MutatingName)
	mut.Webhooks = slices.DeleteFunc(mut.Webhooks, func(w admissionv1.MutatingWebhook) bool { return !served(w.Rules) })
	for i := range mut.Webhooks {
		if err := pointAt(&mut.Webhooks[i].ClientConfig, base, ca); err != nil {
			return nil, nil, fmt.Errorf("webhook %s: %w", mut.Webhooks[i].Name, err)
		}
	}
	val.ObjectMeta = metaNamed(ValidatingName)
	val.Webhooks = slices.DeleteFunc(val.Webhooks, func(w admissionv1.ValidatingWebhook) bool { return !served(w.Rules) })
	for i := range val.Webhooks {
		if err := pointAt(&val.Webhooks[i].ClientConfig, base, ca); err != nil {
			return nil, nil, fmt.Errorf("webhook %s: %w", val.Webhooks[i].Name, err)
		}
	}
	if !slices.ContainsFunc(mut.Webhooks, func(w admissionv1.MutatingWebhook) bool { return served(w.Rules) && hasJobs(w.Rules) }) {
		return nil, nil, fmt.Errorf("kueue webhook configurations %s: no mutating webhook for batch/v1 jobs", path)
	}
	return mut, val, nil
}

func hasJobs(rules []admissionv1.RuleWithOperations) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, "batch") && slices.Contains(r.Resources, "jobs") {
			return true
		}
	}
	return false
}

// pointAt turns a service reference into a URL on loopback with the CA.
func pointAt(c *admissionv1.WebhookClientConfig, base string, ca []byte) error {
	if c.Service == nil || c.Service.Path == nil {
		return errors.New("no service path to serve on loopback")
	}
	u := base + *c.Service.Path
	c.Service, c.URL, c.CABundle = nil, &u, ca
	return nil
}

// CRDs reads Kueue's CRDs from its module directory. A CRD that Kueue's
// kustomization gives a conversion webhook (a webhook_in_<plural>.yaml
// patch) gets it here too, pointed at base with the CA: Kueue's certificate
// rotator injects its CA into exactly those CRDs and fails on one without.
func CRDs(moduleDir, base string, ca []byte) ([]*unstructured.Unstructured, error) {
	dir := filepath.Join(moduleDir, crdBases)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("kueue CRDs: no CRD in %s", dir)
	}
	sort.Strings(files)
	var out []*unstructured.Unstructured
	for _, file := range files {
		crd, err := readObject(file)
		if err != nil {
			return nil, fmt.Errorf("kueue CRD %s: %w", file, err)
		}
		if crd.GetKind() != "CustomResourceDefinition" {
			return nil, fmt.Errorf("kueue CRD %s: kind %q, want CustomResourceDefinition", file, crd.GetKind())
		}
		plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		patch := filepath.Join(moduleDir, crdPatches, "webhook_in_"+plural+".yaml")
		if _, err := os.Stat(patch); err == nil {
			if err := addConversion(crd, patch, base, ca); err != nil {
				return nil, fmt.Errorf("kueue CRD %s, conversion from %s: %w", crd.GetName(), patch, err)
			}
		}
		out = append(out, crd)
	}
	return out, nil
}

func addConversion(crd *unstructured.Unstructured, patchFile, base string, ca []byte) error {
	patch, err := readObject(patchFile)
	if err != nil {
		return err
	}
	conv, found, err := unstructured.NestedMap(patch.Object, "spec", "conversion")
	if err != nil || !found {
		return fmt.Errorf("no spec.conversion (%v)", err)
	}
	path, _, _ := unstructured.NestedString(conv, "webhook", "clientConfig", "service", "path")
	if path == "" {
		return errors.New("no conversion webhook service path")
	}
	unstructured.RemoveNestedField(conv, "webhook", "clientConfig", "service")
	if err := unstructured.SetNestedField(conv, base+path, "webhook", "clientConfig", "url"); err != nil {
		return err
	}
	if err := unstructured.SetNestedField(conv, base64.StdEncoding.EncodeToString(ca), "webhook", "clientConfig", "caBundle"); err != nil {
		return err
	}
	return unstructured.SetNestedMap(crd.Object, conv, "spec", "conversion")
}

func readObject(path string) (*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	docs, err := splitYAML(data)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("want one object, found %d", len(docs))
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(docs[0], &obj.Object); err != nil {
		return nil, err
	}
	return obj, nil
}

// splitYAML returns the non-empty documents of a YAML stream.
func splitYAML(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(stripComments(doc)) != "" {
			docs = append(docs, doc)
		}
	}
}

func stripComments(doc []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func metaNamed(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }
