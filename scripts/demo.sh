#!/usr/bin/env bash
# make demo: seed the tutorial VPC in LocalStack, build the provider, point Terraform at it through
# a CLI config inside the project (never ~/.terraformrc), apply examples/quickstart, then create its
# Karpenter objects on the local Kubernetes API server (make k8s-up) with
# examples/quickstart-kubernetes and list them with kubectl.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEMO="$ROOT/.demo"
TERRAFORM="$("$ROOT/scripts/terraform-path.sh")"
say() { printf '==> %s\n' "$*"; }

export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://127.0.0.1:4566}"
export AWS_REGION="${AWS_REGION:-ap-southeast-1}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"

mkdir -p "$DEMO/plugins"
say "seeding the tutorial VPC (cluster my-cluster, $AWS_REGION) in LocalStack"
(cd "$ROOT" && go run ./cmd/seed)

say "building the provider"
(cd "$ROOT" && go build -trimpath -o "$DEMO/plugins/terraform-provider-karpenter" .)

# The API server, its kubeconfig, kubectl and the hashicorp/kubernetes provider that make k8s-up built.
eval "$("$ROOT/scripts/k8s.sh" env)"

cat >"$DEMO/terraformrc" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/nodeplane/karpenter" = "$DEMO/plugins"
    "registry.terraform.io/hashicorp/kubernetes" = "$KARPENTER_TEST_KUBERNETES_PROVIDER_DIR"
  }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE="$DEMO/terraformrc"
export TF_IN_AUTOMATION=1

# Work on a copy so state and lock files stay out of examples/. The state survives a rerun:
# without it the next apply would meet the pools' own EC2 objects as another owner's.
STATES=(quickstart quickstart-kubernetes)
for ex in "${STATES[@]}"; do
  if [ -f "$DEMO/examples/$ex/terraform.tfstate" ]; then cp "$DEMO/examples/$ex/terraform.tfstate" "$DEMO/$ex.tfstate"; fi
done
rm -rf "$DEMO/examples"
cp -r "$ROOT/examples" "$DEMO/examples"
for ex in "${STATES[@]}"; do
  if [ -f "$DEMO/$ex.tfstate" ]; then cp "$DEMO/$ex.tfstate" "$DEMO/examples/$ex/terraform.tfstate"; fi
done
cd "$DEMO/examples/quickstart"

say "terraform apply examples/quickstart ($("$TERRAFORM" version | head -n1))"
# get installs the local modules (init would look the provider up in the registry); the dev override serves the provider itself.
if ! "$TERRAFORM" get -no-color >"$DEMO/init.log" 2>&1; then
  cat "$DEMO/init.log"
  exit 1
fi
if ! "$TERRAFORM" apply -auto-approve -input=false -no-color -compact-warnings >"$DEMO/apply.log" 2>&1; then
  cat "$DEMO/apply.log"
  exit 1
fi
grep -E '^(Apply complete|Error)' "$DEMO/apply.log" || true
echo
"$TERRAFORM" output -raw summary
echo
echo
# Write each rendered manifest to a file, ready for kubectl apply -f or kubernetes_manifest.
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
say "rendered manifests: $(ls "$DEMO/manifests" | wc -l) files in $DEMO/manifests"
say "state: $DEMO/examples/quickstart (plan again: cd there and run $TERRAFORM plan with TF_CLI_CONFIG_FILE=$DEMO/terraformrc)"

# The same objects on a Kubernetes API server: kubernetes_manifest validates them against Karpenter's
# CRDs there, as a cluster would.
cd "$DEMO/examples/quickstart-kubernetes"
say "terraform apply examples/quickstart-kubernetes: the manifests to the API server at $(sed -n 's/^ *server: //p' "$KUBECONFIG" | head -n1)"
if ! "$TERRAFORM" apply -auto-approve -input=false -no-color -compact-warnings -var "kubeconfig_path=$KUBECONFIG" >"$DEMO/apply-kubernetes.log" 2>&1; then
  cat "$DEMO/apply-kubernetes.log"
  exit 1
fi
grep -E '^(Apply complete|Error)' "$DEMO/apply-kubernetes.log" || true
echo
say "kubectl get ec2nodeclasses,nodepools"
"$KARPENTER_TEST_KUBECTL" --kubeconfig "$KUBECONFIG" get ec2nodeclasses,nodepools
