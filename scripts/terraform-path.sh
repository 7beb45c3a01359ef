#!/usr/bin/env bash
# Prints the path of a Terraform CLI >= 1.5: the one on PATH when new enough, else ./bin/terraform.
# With --install, builds v1.5.7 into ./bin when neither exists (newer tags refuse `go install`).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOCAL="$ROOT/bin/terraform"

new_enough() {
  local v
  v="$(TF_CLI_CONFIG_FILE=/dev/null "$1" version 2>/dev/null | sed -n '1s/^Terraform v\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')" || return 1
  [ -n "$v" ] || return 1
  set -- $v
  [ "$1" -gt 1 ] || { [ "$1" -eq 1 ] && [ "$2" -ge 5 ]; }
}

if [ -x "$LOCAL" ] && new_enough "$LOCAL"; then
  echo "$LOCAL"
  exit 0
fi
if command -v terraform >/dev/null 2>&1 && new_enough "$(command -v terraform)"; then
  command -v terraform
  exit 0
fi
if [ "${1:-}" = "--install" ]; then
  echo "==> building Terraform v1.5.7 into ./bin (about a minute, once)" >&2
  GOBIN="$ROOT/bin" go install github.com/hashicorp/terraform@v1.5.7 >&2
  echo "$LOCAL"
  exit 0
fi
echo "no terraform >= 1.5 found; run: make tools" >&2
exit 1
