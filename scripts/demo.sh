#!/usr/bin/env bash
# make demo: the plan's answer first, Kubernetes after.
#   1. Seed the tutorial VPC in LocalStack, build the provider, point Terraform at it through a CLI
#      config inside the project (never ~/.terraformrc), apply examples/quickstart and print its
#      summary. LocalStack is all this needs: no Kubernetes, so nothing Kubernetes is built yet.
#   2. Then build (once) and start the local Kubernetes API server, or reuse the one another
#      checkout started (scripts/k8s.sh use), create the quickstart's Karpenter objects there with
#      examples/quickstart-kubernetes and list them with kubectl.
# make demo-clean (scripts/demo.sh clean): destroy what the demo created, then remove .demo.
#
# The objects belong to this checkout: .demo/id holds a random id drawn on the first run, and the
# quickstart's name_prefix (demo-<id>-) goes into every node class and pool name, so the
# instance profiles, launch templates and Kubernetes objects of two checkouts (or of a checkout
# cloned again while LocalStack runs) never meet. The seeded VPC (cluster my-cluster) is shared.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEMO="$ROOT/.demo"
TERRAFORM="$("$ROOT/scripts/terraform-path.sh")"
say() { printf '==> %s\n' "$*"; }
T0=$SECONDS
elapsed() { local s=$((SECONDS - T0)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://127.0.0.1:4566}"
export AWS_REGION="${AWS_REGION:-ap-southeast-1}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"
export TF_CLI_CONFIG_FILE="$DEMO/terraformrc"
export TF_IN_AUTOMATION=1

QS="$DEMO/examples/quickstart"
QSK="$DEMO/examples/quickstart-kubernetes"

# terraformrc [KUBERNETES_PROVIDER_DIR] serves our provider (and hashicorp/kubernetes from the
# directory given) from local builds.
terraformrc() {
  {
    echo 'provider_installation {'
    echo '  dev_overrides {'
    echo "    \"registry.terraform.io/nodeplane/karpenter\" = \"$DEMO/bin\""
    [ -z "${1:-}" ] || echo "    \"registry.terraform.io/hashicorp/kubernetes\" = \"$1\""
    echo '  }'
    echo '  direct {}'
    echo '}'
  } >"$DEMO/terraformrc"
}

# build_provider builds the provider and cmd/seed in one go build, with the flags of make build:
# the AWS SDK packages they share compile once (go run without -trimpath would compile them
# again), and no debug information to write and link.
build_provider() {
  go -C "$ROOT" build -trimpath -ldflags "-s -w" -o "$DEMO/bin/" . ./cmd/seed
}

# tf LOG ARGS... runs terraform, its output to $DEMO/LOG; prints it when terraform fails.
tf() {
  local log="$DEMO/$1"
  shift
  if ! "$TERRAFORM" "$@" -no-color >"$log" 2>&1; then
    cat "$log"
    return 1
  fi
}

# managed STATE counts the managed resource instances in a state file (0 when it does not exist).
managed() {
  [ -f "$1" ] || {
    echo 0
    return 0
  }
  python3 -c 'import json, sys; print(sum(len(r.get("instances", [])) for r in json.load(open(sys.argv[1])).get("resources", []) if r.get("mode") == "managed"))' "$1"
}

# stop_k8s_build stops the background build of phase 2 when the demo ends before it is done
# (a failure or Ctrl-C): its go build and their compiles, by parent pid.
K8S_PID=""
stop_tree() {
  local c
  for c in $(pgrep -P "$1" 2>/dev/null); do stop_tree "$c"; done
  kill "$1" 2>/dev/null || true
}
stop_k8s_build() { [ -z "$K8S_PID" ] || stop_tree "$K8S_PID"; }

# tree_pids PID prints PID and its descendants.
tree_pids() {
  local c
  echo "$1"
  for c in $(pgrep -P "$1" 2>/dev/null); do tree_pids "$c"; done
}

demo_id() {
  if [ ! -s "$DEMO/id" ]; then
    mkdir -p "$DEMO"
    od -An -N3 -tx1 /dev/urandom | tr -d ' \n' >"$DEMO/id"
  fi
  cat "$DEMO/id"
}

run() {
  local id prefix
  id="$(demo_id)"
  prefix="demo-$id-"
  mkdir -p "$DEMO/bin"
  say "phase 1 of 2: the plan's answer from LocalStack (names: ${prefix}*, from $DEMO/id)"

  # Phase 2 builds the API server unless one answers already. That build starts now, at the
  # lowest CPU priority: it downloads its modules and takes only the CPU this phase leaves idle
  # (LocalStack's install, the provider's largest packages and its link, which run alone, the
  # apply), so the answer does not wait for it.
  K8S_PID=""
  if ! curl -sk --max-time 2 -o /dev/null "https://127.0.0.1:${K8S_API_PORT:-16443}/readyz" 2>/dev/null; then
    DEMO_ONLY=1 nice -n 19 "$ROOT/scripts/k8s.sh" build >"$DEMO/k8s-build.log" 2>&1 &
    K8S_PID=$!
    trap stop_k8s_build EXIT
  fi
  # The build is CPU, LocalStack's first install mostly network and disk: one beside the other.
  say "building the provider and cmd/seed into $DEMO/bin (log: $DEMO/build.log), starting LocalStack meanwhile"
  build_provider >"$DEMO/build.log" 2>&1 &
  local build_pid=$!
  if ! "$ROOT/scripts/localstack.sh" up; then
    pkill -P "$build_pid" 2>/dev/null || true
    kill "$build_pid" 2>/dev/null || true
    exit 1
  fi
  if ! wait "$build_pid"; then
    cat "$DEMO/build.log"
    exit 1
  fi
  say "seeding the tutorial VPC (cluster my-cluster, $AWS_REGION) in LocalStack"
  "$DEMO/bin/seed"
  terraformrc

  # Work on a copy so state and lock files stay out of examples/. The state survives a rerun:
  # without it the next apply would meet the pools' own EC2 objects as another owner's.
  local ex
  for ex in quickstart quickstart-kubernetes; do
    if [ -f "$DEMO/examples/$ex/terraform.tfstate" ]; then cp "$DEMO/examples/$ex/terraform.tfstate" "$DEMO/$ex.tfstate"; fi
  done
  rm -rf "$DEMO/examples"
  cp -r "$ROOT/examples" "$DEMO/examples"
  for ex in quickstart quickstart-kubernetes; do
    if [ -f "$DEMO/$ex.tfstate" ]; then cp "$DEMO/$ex.tfstate" "$DEMO/examples/$ex/terraform.tfstate"; fi
  done

  cd "$QS"
  say "terraform apply examples/quickstart -var name_prefix=$prefix ($("$TERRAFORM" version | head -n1))"
  # get installs the local modules (init would look the provider up in the registry); the dev
  # override serves the provider itself.
  tf init.log get
  tf apply.log apply -auto-approve -input=false -compact-warnings -var "name_prefix=$prefix"
  grep -E '^(Apply complete|Error)' "$DEMO/apply.log" || true
  echo
  "$TERRAFORM" output -raw summary
  echo
  echo
  # Write each rendered manifest to a file, ready for kubectl apply -f or kubernetes_manifest.
  rm -rf "$DEMO/manifests"
  mkdir -p "$DEMO/manifests"
  "$TERRAFORM" output -json manifests | python3 -c '
import json, sys, os
out = sys.argv[1]
for name, doc in json.load(sys.stdin).items():
    if doc is None:  # a static pool: the provider launches its nodes, there is no NodePool
        continue
    with open(os.path.join(out, name + ".yaml"), "w") as f:
        f.write(doc)
' "$DEMO/manifests"
  say "rendered manifests: $(find "$DEMO/manifests" -name '*.yaml' | wc -l) files in $DEMO/manifests"
  say "state: $QS (plan again: cd there and run TF_CLI_CONFIG_FILE=$DEMO/terraformrc $TERRAFORM plan -var name_prefix=$prefix)"
  say "phase 1 done after $(elapsed)"
  echo

  # The same objects on a Kubernetes API server: kubernetes_manifest validates them against
  # Karpenter's CRDs there, as a cluster would.
  say "phase 2 of 2: the objects on a local Kubernetes API server (building etcd, kube-apiserver, kubectl and the kubernetes provider takes minutes the first time)"
  if [ -n "$K8S_PID" ]; then
    # Nothing left to give way to: back to the demo's own priority, where the system allows it (an
    # unprivileged user cannot lower a nice value; on an idle machine nice 19 costs nothing).
    # shellcheck disable=SC2046 # pids are words
    renice -n "$(nice)" -p $(tree_pids "$K8S_PID") >/dev/null 2>&1 || true
    say "waiting for the build that started with phase 1 (log: $DEMO/k8s-build.log)"
    if ! wait "$K8S_PID"; then
      say "it failed (last lines below); building again"
      tail -n 5 "$DEMO/k8s-build.log"
    fi
    K8S_PID=""
  fi
  "$ROOT/scripts/k8s.sh" use >"$DEMO/k8s.env.new"
  mv -f "$DEMO/k8s.env.new" "$DEMO/k8s.env"
  # shellcheck disable=SC1091
  . "$DEMO/k8s.env"
  terraformrc "$KARPENTER_TEST_KUBERNETES_PROVIDER_DIR"

  cd "$QSK"
  say "terraform apply examples/quickstart-kubernetes: the manifests to the API server at $(sed -n 's/^ *server: //p' "$KUBECONFIG" | head -n1)"
  tf apply-kubernetes.log apply -auto-approve -input=false -compact-warnings -var "kubeconfig_path=$KUBECONFIG"
  grep -E '^(Apply complete|Error)' "$DEMO/apply-kubernetes.log" || true
  echo
  local classes pools
  classes="$("$KARPENTER_TEST_KUBECTL" --kubeconfig "$KUBECONFIG" get ec2nodeclasses -o name | grep "/$prefix" | paste -sd' ' || true)"
  pools="$("$KARPENTER_TEST_KUBECTL" --kubeconfig "$KUBECONFIG" get nodepools -o name | grep "/$prefix" | paste -sd' ' || true)"
  say "kubectl get this checkout's ec2nodeclasses and nodepools (${prefix}*)"
  # shellcheck disable=SC2086 # the names are words
  "$KARPENTER_TEST_KUBECTL" --kubeconfig "$KUBECONFIG" get $classes $pools
  echo
  say "demo done after $(elapsed); make demo-clean removes what it created"
}

clean() {
  if [ ! -d "$DEMO" ]; then
    say "no .demo here: nothing to clean"
    return 0
  fi
  local prefix="" n
  [ ! -s "$DEMO/id" ] || prefix="demo-$(cat "$DEMO/id")-"

  # The Kubernetes objects first: they name the node classes.
  n="$(managed "$QSK/terraform.tfstate")"
  if [ "$n" -gt 0 ]; then
    [ -f "$DEMO/k8s.env" ] || {
      say "$QSK has $n objects in its state but no $DEMO/k8s.env says where: not cleaning"
      exit 1
    }
    # shellcheck disable=SC1091
    . "$DEMO/k8s.env"
    local server
    server="$(sed -n 's/^ *server: //p' "$KUBECONFIG" 2>/dev/null | head -n1)"
    if ! "$KARPENTER_TEST_KUBECTL" --kubeconfig "$KUBECONFIG" get --raw /readyz >/dev/null 2>&1; then
      say "the API server ${server:-of $KUBECONFIG} does not answer; start it (make k8s-up where it was started) and run make demo-clean again"
      exit 1
    fi
    terraformrc "$KARPENTER_TEST_KUBERNETES_PROVIDER_DIR"
    say "terraform destroy examples/quickstart-kubernetes: $n objects on $server"
    cd "$QSK"
    tf destroy-kubernetes.log destroy -auto-approve -input=false -compact-warnings -var "kubeconfig_path=$KUBECONFIG"
    grep -E '^(Destroy complete|Error)' "$DEMO/destroy-kubernetes.log" || true
  fi

  n="$(managed "$QS/terraform.tfstate")"
  if [ "$n" -gt 0 ]; then
    if ! curl -fsS --max-time 3 "$AWS_ENDPOINT_URL/_localstack/health" >/dev/null 2>&1; then
      say "LocalStack does not answer at $AWS_ENDPOINT_URL; start it (make localstack-up) and run make demo-clean again"
      exit 1
    fi
    if [ ! -x "$DEMO/bin/terraform-provider-karpenter" ]; then
      say "building the provider into $DEMO/bin"
      build_provider
    fi
    [ -f "$DEMO/terraformrc" ] || terraformrc
    say "terraform destroy examples/quickstart: $n resources (${prefix}*) in LocalStack"
    cd "$QS"
    tf destroy.log destroy -auto-approve -input=false -compact-warnings ${prefix:+-var "name_prefix=$prefix"}
    grep -E '^(Destroy complete|Error)' "$DEMO/destroy.log" || true
  fi
  cd "$ROOT"
  rm -rf "$DEMO"
  say "removed .demo; the seeded VPC (cluster my-cluster) stays: other checkouts' demos share it"
}

case "${1:-run}" in
run) run ;;
clean) clean ;;
*)
  echo "usage: $0 [run|clean]" >&2
  exit 2
  ;;
esac
