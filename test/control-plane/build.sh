#!/usr/bin/env bash
# Builds kube-controller-manager, kube-scheduler, kubemark, sample-apiserver, kubeadm and kube-apiserver 1.20.2
# from Debian bookworm's `kubernetes` source package for the control-plane e2e suite (make
# test-control-plane) and the density benchmark (kube-apiserver is its reference side), and caches
# them under ~/.cache/orch-apiserver/kube-1.20.2/bin. Idempotent: every step is skipped when its
# result is already there, so a second run with the binaries present takes no time.
# Facts behind each step: ../shared/CONTROL-PLANE.md (reflect2 fix, GOPATH as debian/rules sets it).
# kubemark is patched (kubemark-bootstrap.patch) to take the kubelet's --bootstrap-kubeconfig and
# --cert-dir, so that hollow kubelets can join with a bootstrap token (bootstrap-join.test.ts).
set -euo pipefail

CACHE="${KUBE_CACHE:-$HOME/.cache/orch-apiserver/kube-1.20.2}"
SRC_PARENT="$CACHE/src"
BIN="$CACHE/bin"
BINARIES=(kube-controller-manager kube-scheduler kubemark sample-apiserver kubeadm kube-apiserver)
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

have_all() {
  local b
  for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] || return 1; done
  # A kubemark built before the patch is rebuilt.
  grep -q -- --bootstrap-kubeconfig <<<"$("$BIN/kubemark" --help 2>&1)"
}

if have_all; then
  echo "build.sh: binaries present in $BIN"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
start=$(date +%s)

# 1. deb-src entry for bookworm (apt-get source needs it).
if ! grep -rqs 'deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "build.sh: adding a deb-src entry for bookworm"
  $SUDO tee /etc/apt/sources.list.d/orch-apiserver-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  $SUDO apt-get update -q
fi

# 2. The source tree (vendored Go dependencies included: builds offline).
mkdir -p "$SRC_PARENT" "$BIN"
src=$(find "$SRC_PARENT" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n1)
if [ -z "$src" ]; then
  echo "build.sh: apt-get source kubernetes"
  (cd "$SRC_PARENT" && apt-get source -q kubernetes)
  src=$(find "$SRC_PARENT" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n1)
fi
[ -n "$src" ] || { echo "build.sh: no source tree in $SRC_PARENT" >&2; exit 1; }

# 3. Build dependencies (golang-go, jq, rsync, debhelper) and reflect2 1.0.2.
REFLECT2=/usr/share/gocode/src/github.com/modern-go/reflect2
if ! command -v go >/dev/null || ! command -v jq >/dev/null || ! command -v rsync >/dev/null \
    || [ ! -d "$REFLECT2" ]; then
  echo "build.sh: apt-get build-dep kubernetes"
  $SUDO apt-get build-dep -y -q kubernetes
  $SUDO apt-get install -y -q golang-github-modern-go-reflect2-dev
fi

# 4. Replace the vendored reflect2 1.0.1: with Go >= 1.18 it corrupts memory ("fatal error: fault").
if ! cmp -s "$REFLECT2/go_above_118.go" "$src/vendor/github.com/modern-go/reflect2/go_above_118.go"; then
  echo "build.sh: vendoring reflect2 1.0.2"
  rm -rf "$src/vendor/github.com/modern-go/reflect2"
  cp -rL "$REFLECT2" "$src/vendor/github.com/modern-go/reflect2"
fi

# 5. The hollow kubelet's TLS bootstrap (applied once).
if ! grep -q 'bootstrap-kubeconfig' "$src/cmd/kubemark/hollow-node.go"; then
  echo "build.sh: patching kubemark (kubemark-bootstrap.patch)"
  patch -d "$src" -p1 <"$HERE/kubemark-bootstrap.patch"
fi

# 6. Build as debian/rules does: GOPATH=<src>/.go with k8s.io/kubernetes -> <src>, no cgo.
mkdir -p "$src/.go/src/k8s.io"
[ -e "$src/.go/src/k8s.io/kubernetes" ] || ln -s "$src" "$src/.go/src/k8s.io/kubernetes"
echo "build.sh: make ${BINARIES[*]} (log: $CACHE/make.log)"
(
  cd "$src/.go/src/k8s.io/kubernetes"
  export GOPATH="$src/.go" CGO_ENABLED=0 GO111MODULE=off GOFLAGS= GOCACHE="$CACHE/gocache"
  nice make WHAT="-p=2 cmd/kube-controller-manager cmd/kube-scheduler cmd/kubemark vendor/k8s.io/sample-apiserver cmd/kubeadm cmd/kube-apiserver"
) >"$CACHE/make.log" 2>&1 || { tail -n 40 "$CACHE/make.log" >&2; exit 1; }

for b in "${BINARIES[@]}"; do
  cp "$src/_output/bin/$b" "$BIN/$b.tmp" && mv "$BIN/$b.tmp" "$BIN/$b"
done
echo "build.sh: built in $(( $(date +%s) - start )) s into $BIN"
