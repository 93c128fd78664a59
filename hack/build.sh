#!/usr/bin/env bash
# Builds the pinned control plane and the reference scheduler into a binary
# directory, from Go modules only. Each program is a `tool` directive of
# go.mod (or a package of this module), so go.sum fixes its exact version.
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

for p in "${programs[@]}"; do
  name=${p%%=*}
  pkg=${p#*=}
  start=$(date +%s)
  # -trimpath keeps machine paths out of the binaries.
  go build -trimpath -o "$out/$name" "$pkg"
  echo "built $out/$name ($(( $(date +%s) - start ))s)"
done
