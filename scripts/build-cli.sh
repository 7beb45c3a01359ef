#!/usr/bin/env bash
# Builds a Terraform or OpenTofu CLI from its Go module zip (the module proxy serves the exact
# release) into a per-user cache once, and links it into ./bin: `scripts/build-cli.sh terraform`
# (v1.16.0, the newest the README promises), `terraform-oldest` (v1.5.7, the oldest) or `tofu`
# (OpenTofu v1.12.6). Prints the binary's path.
#
# `go install MODULE@VERSION` refuses both (their go.mod has replace directives). OpenTofu builds
# as its zip is. Terraform's go.mod replaces nine remote-state backend modules and internal/legacy
# with folders its zip does not carry (nested modules are left out of module zips), so the build
# drops those replace and require lines and the nine backends' registrations (local, http and
# inmem remain, which is all a test needs).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${KARPENTER_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-karpenter}"

case "${1:-}" in
terraform) MODULE=github.com/hashicorp/terraform VERSION=v1.16.0 PKG=. NAME=terraform-1.16 ;;
terraform-oldest) MODULE=github.com/hashicorp/terraform VERSION=v1.5.7 PKG=. NAME=terraform-1.5 ;;
tofu) MODULE=github.com/opentofu/opentofu VERSION=v1.12.6 PKG=./cmd/tofu NAME=tofu-1.12 ;;
*) echo "usage: $0 terraform|terraform-oldest|tofu" >&2; exit 2 ;;
esac
OUT="$CACHE/$NAME-${VERSION#v}"
mkdir -p "$ROOT/bin"
if [ ! -x "$OUT" ]; then
  echo "==> building $MODULE@$VERSION from the Go module proxy (a few minutes, once per machine)" >&2
  dir="$(cd "$ROOT" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$MODULE@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  [ -d "$dir" ] || { echo "go mod download $MODULE@$VERSION gave no folder" >&2; exit 1; }
  src="$(mktemp -d)"
  trap 'chmod -R u+w "$src"; rm -rf "$src"' EXIT
  cp -r "$dir/." "$src/"
  chmod -R u+w "$src"
  ldflags="-s -w"
  if [ "$1" = terraform ]; then # v1.5.7 builds as its zip is
    backends='azure|consul|cos|gcs|kubernetes|oci|oss|pg|s3'
    sed -i -E "/internal\/backend\/remote-state\/($backends) /d; /internal\/legacy /d" "$src/go.mod"
    sed -i -E "/remote-state\/($backends)\"$/d; /backend(Azure|Consul|Cos|GCS|Kubernetes|OCI|OSS|Pg|S3)\.New\(\)/d" \
      "$src/internal/backend/init/init.go"
    ldflags="$ldflags -X github.com/hashicorp/terraform/version.dev=no"
  fi
  mkdir -p "$CACHE"
  (cd "$src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT.tmp" "$PKG")
  mv "$OUT.tmp" "$OUT"
fi
ln -sf "$OUT" "$ROOT/bin/$NAME"
echo "$ROOT/bin/$NAME"
