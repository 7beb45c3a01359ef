package provider

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// Karpenter judges NodeOverlay conflicts over every NodePool: two overlays of one weight that
// meet only on another NodePool of the class in the cluster (its template label team = batch)
// conflict there, and Karpenter ignores the loser in this pool too. With kubernetes access the
// plan lists the cluster's NodePools and says so: m5.large keeps its own price and the warning
// names the other NodePool. Without that access the overlay applies (a conflict would be judged
// on the pool alone).
func TestAccNodeOverlay_conflictInAnotherNodePool(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	suffix := strings.TrimPrefix(cluster, "cluster-")
	class, batch := "overlays-"+suffix, "batch-"+suffix
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": batch},
		"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{"labels": map[string]string{"team": "batch"}},
			"spec": map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class},
				"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []string{"on-demand"}}}}}}})
	config := func(provider string) string {
		return withGates(provider, "NodeOverlay") + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = %q
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_overlay" "half" {
  name             = "a-half-%[2]s"
  requirements     = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  price_adjustment = "-50%%"
}

resource "karpenter_node_overlay" "batch" {
  name         = "b-batch-%[2]s"
  requirements = [{ key = "team", operator = "In", values = ["batch"] }]
  price        = "0.5"
}

resource "karpenter_node_pool" "test" {
  name          = "general-%[2]s"
  node_class    = karpenter_node_class.test.resolved
  node_overlays = [karpenter_node_overlay.half.resolved, karpenter_node_overlay.batch.resolved]
  limits        = { nodes = "10" }
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }
}
`, class, suffix)
	}
	withCluster := config(withKubeAccess(providerConfig(cluster), api))
	warnings := recordedPlanWarnings(t, withCluster, &suiteCalls)
	if !slices.ContainsFunc(warnings, func(w recordedDiag) bool {
		return w.path == "node_overlays" && strings.Contains(w.text, launchplan.SummaryOverlayConflict) &&
			strings.Contains(strings.Join(strings.Fields(w.detail), " "), "changes m5.large in NodePool "+batch+" too: Karpenter ignores a-half-"+suffix) &&
			strings.Contains(strings.Join(strings.Fields(w.detail), " "), "the cluster's 1 other NodePools on the same EC2NodeClass")
	}) {
		t.Errorf("no conflict warning naming NodePool %s; warnings: %+v", batch, warnings)
	}
	price := func(want string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectKnownValue(nodePoolRes,
			tfjsonpath.New("summary").AtMapKey("first_instance_types"), knownvalue.StringRegexp(regexp.MustCompile(`^m5\.large `+want+` on-demand`)))}}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{Config: config(providerConfig(cluster)), ConfigPlanChecks: price(`0\.048`)}, // judged on the pool alone
			{Config: withCluster, ConfigPlanChecks: price(`0\.096`)},                     // a-half ignored everywhere
		},
	})
}
