#!/usr/bin/env bash
# Runs a go command on the Karpenter oracle (internal/karpenteroracle) at one Karpenter release:
#   scripts/karpenter-oracle.sh 1.12 test -count=1 ./...
# A release is its module file (go.mod for the newest, go.v1_N.mod for the others) and the build
# tags karpenter_pre_1_M for every minor M it is older than (release_test.go says why). The
# commands run with Karpenter's toolchain (KARPENTER_TOOLCHAIN, go1.27.3).
set -euo pipefail
newest=15
release=${1:?usage: karpenter-oracle.sh <release 1.9 … 1.$newest> <go command> [args]}
shift
minor=${release#1.}
if ! [[ $minor =~ ^[0-9]+$ ]] || (( minor < 9 || minor > newest )); then
	echo "karpenter-oracle.sh: no oracle for Karpenter $release (1.9 … 1.$newest)" >&2
	exit 2
fi
cmd=${1:?usage: karpenter-oracle.sh <release> <go command> [args]}
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
catalog=internal/karpenteroracle/oraclegen/testdata/zz_generated_describe_instance_types.json
[ -f "$root/$catalog" ] || make -C "$root" --no-print-directory "$catalog" # generated, not tracked
cd "$root/internal/karpenteroracle"
flags=()
if (( minor < newest )); then
	tags=()
	for ((m = minor + 1; m <= newest; m++)); do tags+=("karpenter_pre_1_$m"); done
	flags=(-modfile="go.v1_$minor.mod" -tags="$(IFS=,; echo "${tags[*]}")")
fi
exec env GOTOOLCHAIN="${KARPENTER_TOOLCHAIN:-go1.27.3}" go "$cmd" "${flags[@]}" "$@"
