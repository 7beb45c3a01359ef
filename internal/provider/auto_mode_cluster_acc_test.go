package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

// autoModeLookupConfig is an Auto Mode class with role on subnet, and a pool named pool on it
// ("": none), planned with lookup_cluster against the EKS stub at eks.
func autoModeLookupConfig(lookup, discovery, eks, subnetID, pool string) string {
	provider := strings.Replace(providerConfig(lookup), "provider \"karpenter\" {\n", "provider \"karpenter\" {\n  lookup_cluster = true\n", 1)
	provider = strings.Replace(provider, "    iam = ", fmt.Sprintf("    eks = %q\n    iam = ", eks), 1)
	cfg := provider + fmt.Sprintf(`
resource "karpenter_auto_mode_node_class" "test" {
  name                          = "private"
  role                          = "AmazonEKSAutoNodeRole"
  subnet_selector_terms         = [{ id = %q }]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q } }]
}
`, subnetID, discovery)
	if pool != "" {
		cfg += fmt.Sprintf(`
resource "karpenter_node_pool" "test" {
  name       = %q
  node_class = karpenter_auto_mode_node_class.test.resolved
  limits     = { nodes = "1" }
  template = {
    requirements = [{ key = "eks.amazonaws.com/instance-family", operator = "In", values = ["m5"] }]
  }
}
`, pool)
	}
	return cfg
}

// With lookup_cluster the cluster side of EKS Auto Mode is checked against the EKS stub
// (LocalStack has no EKS): a class on a cluster without Auto Mode's compute fails the plan naming
// how to enable it; a pool named as a built-in NodePool of the cluster is an error on `name`;
// a node role without an access entry of type EC2 and AmazonEKSAutoNodePolicy is a warning on
// `role` naming the commands, and there is none once the entry and its policy exist. Every step
// only plans: nothing is created in AWS.
func TestAccAutoModeNodeClass_clusterSide(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	subnet := discoveryNetwork(t, cluster).Subnets[0]
	classic, withEntry := cluster+"-classic", cluster+"-entry"
	role := "arn:aws:iam::" + acctest.StubAccount + ":role/AmazonEKSAutoNodeRole"
	const policy = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"
	autoMode := &acctest.EKSAutoMode{Enabled: true, NodePools: []string{"general-purpose", "system"},
		NodeRoleARN: "arn:aws:iam::" + acctest.StubAccount + ":role/AmazonEKSAutoNodeRole-builtin"}
	eks := acctest.NewEKSStub(t,
		acctest.EKSCluster{Name: classic},
		acctest.EKSCluster{Name: cluster, AutoMode: autoMode, AccessEntries: []acctest.AccessEntry{
			{PrincipalARN: autoMode.NodeRoleARN, Type: "EC2", ClusterPolicies: []string{policy}}}},
		acctest.EKSCluster{Name: withEntry, AutoMode: autoMode, AccessEntries: []acctest.AccessEntry{
			{PrincipalARN: role, Type: "EC2", ClusterPolicies: []string{policy}}}},
	).URL
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config:   autoModeLookupConfig(classic, cluster, eks, subnet.ID, ""),
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)` + planner.SummaryAutoModeOff + `.*` + wrapped("it reports no computeConfig") + `.*` +
					wrapped("aws eks update-cluster-config --name "+classic+" --compute-config enabled=true")),
			},
			{
				Config:   autoModeLookupConfig(cluster, cluster, eks, subnet.ID, "system"),
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)` + planner.SummaryBuiltinNodePool + `.*with karpenter_node_pool.test.*name.*` +
					wrapped(`built-in NodePool "system"`)),
			},
		},
	})

	got := suitePlanWarnings(t, autoModeLookupConfig(cluster, cluster, eks, subnet.ID, "general"))
	wantWarning(t, got, planner.SummaryNodeRoleCannotJoin, "role", "has no EKS access entry for node role "+role, "never join",
		"aws eks create-access-entry --cluster-name "+cluster+" --principal-arn "+role+" --type EC2",
		"--policy-arn "+policy+" --access-scope type=cluster")

	got = suitePlanWarnings(t, autoModeLookupConfig(withEntry, cluster, eks, subnet.ID, "general"))
	for _, summary := range []string{planner.SummaryNodeRoleCannotJoin, planner.SummaryNodeRoleAccessNotChecked, planner.SummaryBuiltinNodePool} {
		if len(got[summary]) > 0 {
			t.Errorf("an EC2 entry with AmazonEKSAutoNodePolicy: %q %v", summary, got[summary])
		}
	}
}

// wrapped matches text as Terraform prints it, wrapped at any space.
func wrapped(text string) string {
	return strings.ReplaceAll(regexp.QuoteMeta(text), " ", `\s+`)
}
