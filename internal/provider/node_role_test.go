package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// The node-role check reads the role's attached AWS managed policies from IAM (LocalStack
// serves their documents) and evaluates them: a role with the worker and registry policies but
// not the CNI's cannot assign pod IPs; with networking.cni_role the CNI's actions are not the
// node role's; with AmazonEKS_CNI_Policy attached every need is met.
func TestAccNodeClass_nodeRoleReadiness(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	role := acctest.RandomName("node-role")
	acctest.NewRole(t, role)
	// A customer managed policy beside the AWS managed ones: its versions are read from IAM on
	// every plan (a name deleted and created again starts over at v1), the AWS managed ones' kept.
	own := acctest.NewPolicy(t, role+"-extra", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)
	acctest.AttachPolicies(t, role, "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy", "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly", own)
	discoveryNetwork(t, cluster)
	config := func(networking string) string {
		return providerConfig(cluster) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "readiness"
  role               = %q
  ami_family         = "AL2023"
  ami_selector_terms = [{ id = %q }]
  %s
}
`, role, testAMI(), networking)
	}
	report := tfjsonpath.New("node_role_report")
	need := func(id, status string, missing knownvalue.Check) knownvalue.Check {
		return knownvalue.ObjectPartial(map[string]knownvalue.Check{"need": knownvalue.StringExact(id), "status": knownvalue.StringExact(status), "missing": missing})
	}
	none := knownvalue.ListSizeExact(0)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: config(""),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(nodeClassRes, report, knownvalue.ListExact([]knownvalue.Check{
					need("assign_pod_ips", "not met", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("ec2:AssignPrivateIpAddresses"), knownvalue.StringExact("ec2:AttachNetworkInterface"),
						knownvalue.StringExact("ec2:CreateNetworkInterface"), knownvalue.StringExact("ec2:CreateTags"),
						knownvalue.StringExact("ec2:DeleteNetworkInterface"), knownvalue.StringExact("ec2:DescribeNetworkInterfaces"),
						knownvalue.StringExact("ec2:DescribeTags"), knownvalue.StringExact("ec2:DetachNetworkInterface"),
						knownvalue.StringExact("ec2:ModifyNetworkInterfaceAttribute"), knownvalue.StringExact("ec2:UnassignPrivateIpAddresses"),
					})),
					need("register_with_cluster", "met", none),
					need("pull_images", "met", none),
				}))},
			},
			{
				Config: config(`networking = { cni_role = "irsa" }`),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(nodeClassRes, report, knownvalue.ListExact([]knownvalue.Check{
					need("assign_pod_ips", "skipped", none), need("register_with_cluster", "met", none), need("pull_images", "met", none),
				}))},
			},
			{
				PreConfig: func() { acctest.AttachPolicies(t, role, "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy") },
				Config:    config(""),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(nodeClassRes, report, knownvalue.ListExact([]knownvalue.Check{
					need("assign_pod_ips", "met", none), need("register_with_cluster", "met", none), need("pull_images", "met", none),
				}))},
			},
			{Config: config(""), PlanOnly: true}, // the plan after apply is empty
		},
	})
}

// A class named by its instance_profile is checked with the role the profile holds, and its
// plan reads the profile once for both checks (the profile exists, the node role's policies).
func TestAccNodeClass_nodeRoleThroughInstanceProfile(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	role, profile := acctest.RandomName("node-role"), acctest.RandomName("node-profile")
	acctest.NewRole(t, role)
	acctest.AttachPolicies(t, role, "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy")
	acctest.NewInstanceProfile(t, profile, role)
	discoveryNetwork(t, cluster)
	config := providerConfig(cluster) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "through-profile"
  instance_profile   = %q
  ami_family         = "AL2023"
  ami_selector_terms = [{ id = %q }]
}
`, profile, testAMI())
	status := func(i int, want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("node_role_report").AtSliceIndex(i).AtMapKey("status"), knownvalue.StringExact(want))
	}
	rec := &callRecorder{}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: []statecheck.StateCheck{status(0, "not met"), status(1, "met"), status(2, "not met")}},
			{Config: config, PlanOnly: true},
		},
	})
	calls := rec.Calls("IAM.")
	if calls["IAM.ListAttachedRolePolicies"] == 0 || calls["IAM.GetInstanceProfile"] != calls["IAM.ListAttachedRolePolicies"] {
		t.Errorf("each plan reads the profile once and the role's policies once: %v", calls)
	}
}
