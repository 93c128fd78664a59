#!/usr/bin/env bash
# Builds the pinned control plane and the reference scheduler into a binary
# directory, from Go modules only: `hack/build.sh DIR [name=package ...]`
# builds the programs named, by default all of them. Each program is a `tool`
# directive of go.mod (or a package of this module), so go.sum fixes its
# exact version; GOFLAGS may add -modfile and -overlay (a mutant's build).
# go build reuses the Go build cache: with nothing changed, it takes seconds.
set -euo pipefail

out=${1:-_output/bin}
mkdir -p "$out"

# name=package; the name is the file written into $out.
programs=(
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager
  kubectl=k8s.io/kubernetes/cmd/kubectl
  etcd=go.etcd.io/etcd/server/v3
  kwok=sigs.k8s.io/kwok/cmd/kwok
  kwokctl=sigs.k8s.io/kwok/cmd/kwokctl
  ginkgo=github.com/onsi/ginkgo/v2/ginkgo
  reference-scheduler=./reference-scheduler
)
if [ $# -gt 1 ]; then
  programs=("${@:2}")
fi

# Kubernetes binaries report the version they were built from, as release
# builds do; without it they say v0.0.0-master and so would every report.
k8s=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
major=${k8s#v}; major=${major%%.*}
minor=${k8s#v*.}; minor=${minor%%.*}
ldflags="-X k8s.io/component-base/version.gitVersion=$k8s -X k8s.io/component-base/version.gitMajor=$major -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
ldflags="$ldflags -X k8s.io/client-go/pkg/version.gitVersion=$k8s -X k8s.io/client-go/pkg/version.gitMajor=$major -X k8s.io/client-go/pkg/version.gitMinor=$minor"

for p in "${programs[@]}"; do
  name=${p%%=*}
  pkg=${p#*=}
  start=$(date +%s)
  # -trimpath keeps machine paths out of the binaries.
  go build -trimpath -ldflags "$ldflags" -o "$out/$name" "$pkg"
  echo "built $out/$name ($(( $(date +%s) - start ))s)"
done
