// Package fakeapi is client-go's fake clientset with the few API server
// behaviours that gangconf's preflight, probes and cleanup rely on and the
// fake lacks, for unit tests that need no cluster.
package fakeapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
)

// New is a fake clientset holding objects, where
//   - a new namespace gets its default service account (the controller
//     manager's job),
//   - a dry-run create answers with the object and stores nothing,
//   - DeleteCollection deletes what its label selector selects,
//   - a SelfSubjectAccessReview is allowed, as for a cluster admin.
func New(objects ...runtime.Object) *fake.Clientset {
	cs := fake.NewClientset(objects...)
	tracker := cs.Tracker()
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
		r.Status.Allowed = true
		return true, r, nil
	})
	cs.PrependReactor("create", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ns, ok := a.(k8stesting.CreateAction).GetObject().(*corev1.Namespace)
		if !ok {
			return false, nil, nil
		}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns.Name}}
		if err := tracker.Add(sa); err != nil && !apierrors.IsAlreadyExists(err) {
			return true, nil, err
		}
		return false, nil, nil
	})
	cs.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		c, ok := a.(k8stesting.CreateActionImpl)
		if !ok || len(c.CreateOptions.DryRun) == 0 {
			return false, nil, nil
		}
		return true, c.GetObject().DeepCopyObject(), nil
	})
	cs.PrependReactor("delete-collection", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d := a.(k8stesting.DeleteCollectionActionImpl)
		gvk, err := kindOf(d.GetResource())
		if err != nil {
			return true, nil, err
		}
		list, err := tracker.List(d.GetResource(), gvk, d.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return true, nil, err
		}
		for _, item := range items {
			m, err := meta.Accessor(item)
			if err != nil {
				return true, nil, err
			}
			if sel := d.GetListRestrictions().Labels; sel != nil && !sel.Matches(labels.Set(m.GetLabels())) {
				continue
			}
			if err := tracker.Delete(d.GetResource(), m.GetNamespace(), m.GetName()); err != nil {
				return true, nil, err
			}
		}
		return true, nil, nil
	})
	return cs
}

// kindOf finds the kind served as resource gvr among client-go's types.
func kindOf(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		if plural, _ := meta.UnsafeGuessKindToResource(gvk); plural == gvr {
			return gvk, nil
		}
	}
	return schema.GroupVersionKind{}, fmt.Errorf("fakeapi: no kind for %s", gvr)
}

// Kubeconfig writes a kubeconfig of a cluster at 127.0.0.1:1, where nothing
// answers, into a temporary directory of t and returns its path: settings
// that need a usable kubeconfig get one, and nothing reaches a cluster.
func Kubeconfig(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	const kc = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
