#!/usr/bin/env bash
# Builds the pinned control plane and the reference scheduler into a binary
# directory, from Go modules only: `hack/build.sh DIR [name=package ...]`
# builds the programs named, by default all of them. Each program is a `tool`
# directive of a go.mod (or a package of this module), so go.sum fixes its
# exact version; GOFLAGS may add -modfile and -overlay (a mutant's build).
# go build reuses the Go build cache: with nothing changed, it takes seconds.
#
# K8S_MODULE names the Go module the Kubernetes programs come from: this
# repository's (v1.37.2) by default, or another version's pins, such as
# reference-scheduler/k8s-v1.38. Programs named on the command line come from
# it too. The harness's own programs (etcd, kwok, ginkgo) are the same for
# every version and always come from this repository's module.
set -euo pipefail

out=${1:-_output/bin}
k8s_module=${K8S_MODULE:-.}
mkdir -p "$out"

# name=package; the name is the file written into $out.
kubernetes=(
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager
  kubectl=k8s.io/kubernetes/cmd/kubectl
  reference-scheduler=github.com/gangconf/gangconf/reference-scheduler
)
harness=(
  etcd=go.etcd.io/etcd/server/v3
  kwok=sigs.k8s.io/kwok/cmd/kwok
  kwokctl=sigs.k8s.io/kwok/cmd/kwokctl
  ginkgo=github.com/onsi/ginkgo/v2/ginkgo
)
if [ $# -gt 1 ]; then
  kubernetes=("${@:2}")
  harness=()
fi

# A module that needs a newer Go than this machine's names it on a toolchain
# line; the go command then fetches that toolchain from the module proxy
# (GOTOOLCHAIN=local machines ignore the line unless told).
toolchain=$(awk '$1 == "toolchain" {print $2}' "$k8s_module/go.mod")
k8s_go() { GOTOOLCHAIN=${toolchain:-${GOTOOLCHAIN:-local}} go -C "$k8s_module" "$@"; }

# Kubernetes binaries report the version they were built from, as release
# builds do; without it they say v0.0.0-master and so would every report.
# version_ldflags GO-COMMAND: the -X flags of that module's Kubernetes version.
version_ldflags() {
  local k8s major minor
  if ! k8s=$("$@" list -m -f '{{.Version}}' k8s.io/kubernetes); then
    echo "cannot read the Kubernetes version of module $k8s_module${toolchain:+ (Go $toolchain)}: see above" >&2
    return 1
  fi
  major=${k8s#v}; major=${major%%.*}
  minor=${k8s#v*.}; minor=${minor%%.*}
  echo "-X k8s.io/component-base/version.gitVersion=$k8s -X k8s.io/component-base/version.gitMajor=$major -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean" \
    "-X k8s.io/client-go/pkg/version.gitVersion=$k8s -X k8s.io/client-go/pkg/version.gitMajor=$major -X k8s.io/client-go/pkg/version.gitMinor=$minor"
}

# build LDFLAGS NAME=PACKAGE GO-COMMAND: -trimpath keeps machine paths out of
# the binaries; the output path is absolute for go -C.
build() {
  local name=${2%%=*} pkg=${2#*=} start
  start=$(date +%s)
  if ! "${@:3}" build -trimpath -ldflags "$1" -o "$(realpath "$out")/$name" "$pkg"; then
    echo "building $name ($pkg) from module $k8s_module failed${toolchain:+ (Go $toolchain)}: see above" >&2
    exit 1
  fi
  echo "built $out/$name ($(( $(date +%s) - start ))s)"
}
if [ ${#harness[@]} -gt 0 ]; then
  ldflags=$(version_ldflags go)
  for p in "${harness[@]}"; do build "$ldflags" "$p" go; done
fi
ldflags=$(version_ldflags k8s_go)
for p in "${kubernetes[@]}"; do build "$ldflags" "$p" k8s_go; done
