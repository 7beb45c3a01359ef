package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// nodeClaim is a NodeClaim the test creates on the local API server, as Karpenter would have
// launched it for the pool: its labels, the hash annotation and the image in its status.
type nodeClaim struct {
	name, pool, instanceType, image, hash string
}

// putNodeClaim creates (or replaces) the NodeClaim and sets its status.imageID.
func putNodeClaim(t *testing.T, api *kubeAPI, nc nodeClaim) {
	t.Helper()
	obj := map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
		"metadata": map[string]any{
			"name": nc.name,
			"labels": map[string]string{"karpenter.sh/nodepool": nc.pool, "node.kubernetes.io/instance-type": nc.instanceType,
				"karpenter.sh/capacity-type": "on-demand", "topology.kubernetes.io/zone": acctest.Region() + "a"},
			"annotations": map[string]string{"karpenter.sh/nodepool-hash": nc.hash, "karpenter.sh/nodepool-hash-version": "v3"},
		},
		"spec": map[string]any{
			"nodeClassRef": map[string]string{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
			"requirements": []map[string]any{{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": []string{nc.instanceType}}},
		},
	}
	body, _ := json.Marshal(obj)
	path := "/apis/karpenter.sh/v1/nodeclaims"
	_, _, _ = api.Do(http.MethodDelete, path+"/"+nc.name, "", nil)
	if code, out, err := api.Do(http.MethodPost, path, "application/json", body); err != nil || code != http.StatusCreated {
		t.Fatalf("creating NodeClaim %s: %d %v %s", nc.name, code, err, out)
	}
	status, _ := json.Marshal(map[string]any{"status": map[string]string{"imageID": nc.image}})
	if code, out, err := api.Do(http.MethodPatch, path+"/"+nc.name+"/status", "application/merge-patch+json", status); err != nil || code != http.StatusOK {
		t.Fatalf("setting NodeClaim %s status: %d %v %s", nc.name, code, err, out)
	}
	t.Cleanup(func() { _, _, _ = api.Do(http.MethodDelete, path+"/"+nc.name, "", nil) })
}

// TestAccComposition_driftCountsNodes: with read access to the cluster, the plan counts the
// pool's NodeClaims one by one: a newer image drifts the two nodes on the old one (of three),
// and narrowing the requirements drifts the node of the type dropped.
func TestAccComposition_driftCountsNodes(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	tags := map[string]string{"team": cluster}
	old := acctest.CopyImage(t, "x86_64", "nodes-"+cluster+"-1", tags)
	pool := "general-" + strings.TrimPrefix(cluster, "cluster-")
	provider := strings.Replace(providerConfig(cluster), "provider \"karpenter\" {\n", fmt.Sprintf(`provider "karpenter" {
  kubernetes = {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = %q
  }
`, api.Server, string(api.CAPEM), api.Token()), 1)
	cfg := func(types string) string {
		return provider + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_family         = "AL2023"
  ami_selector_terms = [{ tags = { team = %q } }]
}

resource "karpenter_node_pool" "test" {
  name       = %q
  node_class = karpenter_node_class.test.resolved
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = [%s] }]
  }
}
`, cluster, pool, types)
	}
	var hash, newer string
	claims := func(images ...string) []nodeClaim {
		return []nodeClaim{
			{name: pool + "-a", pool: pool, instanceType: "m5.large", image: images[0], hash: hash},
			{name: pool + "-b", pool: pool, instanceType: "m5.large", image: images[1], hash: hash},
			{name: pool + "-c", pool: pool, instanceType: "m5.xlarge", image: images[2], hash: hash},
		}
	}
	verdict := tfjsonpath.New("drift").AtMapKey("verdict")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: cfg(`"m5.large", "m5.xlarge"`),
				Check: func(s *terraform.State) error {
					hash = s.RootModule().Resources[nodePoolRes].Primary.Attributes["drift.nodepool_hash"]
					if hash == "" {
						return fmt.Errorf("no nodepool hash in state")
					}
					return nil
				},
			},
			{
				// Three nodes run, two on the old image; a newer image is published.
				PreConfig: func() {
					newer = acctest.CopyImage(t, "x86_64", "nodes-"+cluster+"-2", tags)
					for _, nc := range claims(old, old, newer) {
						putNodeClaim(t, api, nc)
					}
				},
				Config: cfg(`"m5.large", "m5.xlarge"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, verdict, knownvalue.StringExact(
						fmt.Sprintf("drifts 2 of 3 nodes: AMIDrift 2 (%s-a, %s-b)", pool, pool))),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("drift").AtMapKey("pace"),
						knownvalue.StringRegexp(regexp.MustCompile(`\(the pool's 3 nodes\)$`))),
				}},
			},
			{
				// The two were replaced onto the newer image; m5.xlarge is no longer allowed.
				PreConfig: func() {
					for _, nc := range claims(newer, newer, newer) {
						putNodeClaim(t, api, nc)
					}
				},
				Config: cfg(`"m5.large"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, verdict, knownvalue.StringExact(
						fmt.Sprintf("drifts 1 of 3 nodes: RequirementsDrifted 1 (%s-c)", pool))),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("drift").AtMapKey("reasons"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("RequirementsDrifted")})),
				}},
			},
		},
	})
}
