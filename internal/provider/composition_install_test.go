package provider

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// bareAPIServer starts a second API server for one test, like `make k8s-up` but without
// Karpenter's CRDs (K8S_CRDS=none): a cluster before Karpenter is installed. It shares the
// binaries of the main one and stops when the test ends. It returns its kubeconfig.
func bareAPIServer(t *testing.T, k *kubeAPI) string {
	t.Helper()
	work := t.TempDir()
	env := append(os.Environ(), "K8S_WORKDIR="+work, "K8S_BIN="+k.providerDir, "K8S_CRDS=none",
		"K8S_API_PORT="+freePort(t), "K8S_ETCD_PORT="+freePort(t), "K8S_ETCD_PEER_PORT="+freePort(t))
	script := filepath.Join("..", "..", "scripts", "k8s.sh")
	run := func(verb string) error {
		cmd := exec.Command("bash", script, verb)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("k8s.sh %s: %w\n%s", verb, err, out)
		}
		return nil
	}
	t.Cleanup(func() {
		if err := run("down"); err != nil {
			t.Error(err)
		}
	})
	if err := run("up"); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(work, "kubeconfig")
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// installConfig is a class and a pool whose Karpenter objects are applied in the same
// configuration that installs Karpenter's CRDs (the documents make k8s-up applies, standing in
// for the karpenter-crd Helm chart), through kind's resources.
func installConfig(cluster, kubeconfig, crds, kind string) string {
	cfg := providerConfig(cluster) + `
resource "karpenter_node_class" "default" {
  name               = "installed"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "general" {
  name       = "installed-general"
  node_class = karpenter_node_class.default.resolved
  template = {
    requirements = [{ key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m"] }]
  }
  limits = { cpu = "100" }
}
`
	if kind == "kubectl_manifest" {
		return `terraform {
  required_providers {
    karpenter = { source = "nodeplane/karpenter" }
    kubectl   = { source = "gavinbunney/kubectl" }
  }
}
` + cfg + fmt.Sprintf(`
provider "kubectl" {
  config_path       = %q
  load_config_file  = true
  apply_retry_count = 5 # the API server serves a CRD's kind moments after creating it
}

data "kubectl_file_documents" "crds" {
  content = file(%q)
}

resource "kubectl_manifest" "crd" {
  for_each          = data.kubectl_file_documents.crds.manifests
  yaml_body         = each.value
  server_side_apply = true
}

resource "kubectl_manifest" "node_class" {
  yaml_body  = karpenter_node_class.default.manifest
  depends_on = [kubectl_manifest.crd]
}

resource "kubectl_manifest" "node_pool" {
  yaml_body  = karpenter_node_pool.general.manifest
  depends_on = [kubectl_manifest.node_class]
}
`, kubeconfig, crds)
	}
	return `terraform {
  required_providers {
    karpenter  = { source = "nodeplane/karpenter" }
    kubernetes = { source = "hashicorp/kubernetes" }
  }
}
` + cfg + fmt.Sprintf(`
provider "kubernetes" {
  config_path = %q
}

resource "kubernetes_manifest" "crd" {
  for_each = { for i, doc in split("\n---\n", file(%q)) : tostring(i) => yamldecode(doc) if trimspace(doc) != "" }
  manifest = each.value
}

resource "kubernetes_manifest" "node_class" {
  manifest   = karpenter_node_class.default.manifest_object
  depends_on = [kubernetes_manifest.crd]
}

resource "kubernetes_manifest" "node_pool" {
  manifest   = yamldecode(karpenter_node_pool.general.manifest)
  depends_on = [kubernetes_manifest.node_class]
}
`, kubeconfig, crds)
}

// TestAccComposition_installInTheSameApply starts from an API server without Karpenter's CRDs.
// With kubectl_manifest one apply installs the CRDs and creates the class and the pool: the
// provider's plan is complete (it never needs the cluster) and kubectl_manifest reads no CRD at
// plan. With kubernetes_manifest the same configuration cannot plan (it reads the CRDs at plan):
// the pattern that works is to apply the CRDs first (-target), then the rest.
func TestAccComposition_installInTheSameApply(t *testing.T) {
	k := kubeEnv(t)
	acctest.PreCheck(t)
	crds := filepath.Join(filepath.Dir(k.Kubeconfig), "crds.yaml") // what make k8s-up applied
	if _, err := os.Stat(crds); err != nil {
		t.Fatalf("no CRD documents at %s: %v", crds, err)
	}
	for _, kind := range []string{"kubectl_manifest", "kubernetes_manifest"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			cluster := acctest.RandomName("cluster")
			discoveryNetwork(t, cluster)
			kubeconfig := bareAPIServer(t, k)
			d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t, providerOverride{"registry.terraform.io/hashicorp/kubernetes", k.providerDir},
				providerOverride{"registry.terraform.io/gavinbunney/kubectl", k.providerDir})}
			d.write(installConfig(cluster, kubeconfig, crds, kind))
			t.Cleanup(func() {
				if out, code := d.exit("destroy", "-auto-approve"); code != 0 {
					t.Errorf("terraform destroy: exit %d\n%s", code, out)
				}
			})
			if kind == "kubernetes_manifest" {
				out, code := d.exit("plan")
				if code == 0 || !strings.Contains(out, "API did not recognize GroupVersionKind") {
					t.Fatalf("kubernetes_manifest planned the Karpenter objects before their CRDs exist (exit %d):\n%s", code, out)
				}
				d.run("apply", "-auto-approve", "-target=kubernetes_manifest.crd")
			}
			out := d.run("apply", "-auto-approve")
			for _, want := range []string{kind + ".node_class: Creation complete", kind + ".node_pool: Creation complete"} {
				if !strings.Contains(out, want) {
					t.Errorf("apply did not say %q:\n%s", want, out)
				}
			}
			d.plan(0)
		})
	}
}
