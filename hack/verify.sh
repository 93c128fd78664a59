#!/usr/bin/env bash
# Fails when the tree is not formatted, vet finds a problem, or go.mod/go.sum
# are not tidy. Prints what to run to fix each.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './_output/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting (run: gofmt -w <file>):"
  echo "$unformatted"
  status=1
fi

if ! go vet ./...; then
  echo "go vet: see above"
  status=1
fi

# go mod tidy -diff changes nothing and prints what tidy would change.
if ! go mod tidy -diff >/dev/null; then
  echo "go.mod/go.sum are not tidy (run: go mod tidy, and commit the result)"
  status=1
fi

# Each other Kubernetes version's module, with the Go its toolchain line names.
for mod in reference-scheduler/k8s-*/go.mod; do
  dir=$(dirname "$mod")
  toolchain=$(awk '$1 == "toolchain" {print $2}' "$mod")
  if ! GOTOOLCHAIN=${toolchain:-local} go -C "$dir" mod tidy -diff >/dev/null; then
    echo "$dir: go.mod/go.sum are not tidy (run: cd $dir && GOTOOLCHAIN=${toolchain:-local} go mod tidy)"
    status=1
  fi
done

[ "$status" = 0 ] && echo "verify: ok"
exit "$status"
