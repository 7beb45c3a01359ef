package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

const nodeClassRes = "karpenter_node_class.test"

// discoveryNetwork is a fixture whose three subnets and node security group carry
// karpenter.sh/discovery = cluster, and whose zone-a subnet also carries purpose = hpc.
func discoveryNetwork(t *testing.T, cluster string) *acctest.Network {
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	return acctest.NewNetwork(t, acctest.NetworkSpec{
		ExtraSubnetTags: map[int]map[string]string{
			0: {"karpenter.sh/discovery": cluster, "purpose": "hpc"}, 1: disc, 2: disc,
		},
		ExtraSecurityGroupTags: map[int]map[string]string{0: disc},
	})
}

func nodeClassConfig(cluster, body string) string {
	return providerConfig(cluster) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
%s
}
`, body)
}

func TestAccNodeClass_discoveryDefaults(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	a, b, c := n.Subnets[0], n.Subnets[1], n.Subnets[2]

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// No selector terms: the provider's cluster_name gives the discovery tag; all three
				// zones resolve, known in the plan.
				Config: nodeClassConfig(cluster, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("zones"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact(a.Zone), knownvalue.StringExact(b.Zone), knownvalue.StringExact(c.Zone)})),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets").AtSliceIndex(0).AtMapKey("id"), knownvalue.StringExact(a.ID)),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("security_groups"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"id": knownvalue.StringExact(n.SecurityGroups[0].ID), "name": knownvalue.StringExact(n.SecurityGroups[0].Name)}),
					})),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("vpc_id"), knownvalue.StringExact(n.VPCID)),
					// `resolved` carries the subnets by id, and leaves defaults and what no pool reads null.
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved"), resolutionOf("subnets by id, defaults null",
						func(v launchplan.ClassValue) error {
							switch {
							case len(v.Subnets) != 3 || v.Subnets[a.ID].Zone != a.Zone || v.Subnets[c.ID].Zone != c.Zone || v.Subnets[a.ID].AvailableIPAddressCount == 0:
								return fmt.Errorf("subnets %+v", v.Subnets)
							case v.PodSubnets != nil || v.Networking != nil || v.Kubelet != nil || v.MetadataOptions != nil || v.EFA != nil:
								return fmt.Errorf("defaults not null: %+v", v)
							case len(v.SecurityGroupIDs) != 1 || v.SecurityGroupIDs[0] != n.SecurityGroups[0].ID || v.AMIFamily != "AL2023":
								return fmt.Errorf("groups %v, family %q", v.SecurityGroupIDs, v.AMIFamily)
							}
							return nil
						})),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved").AtMapKey("name"), knownvalue.StringExact("default")),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("manifest"), knownvalue.NotNull()),
				}},
				Check: checkManifestValid(nodeClassRes),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("metadata_options").AtMapKey("http_tokens"), knownvalue.StringExact("required")),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("metadata_options").AtMapKey("http_put_response_hop_limit"), knownvalue.Int64Exact(1)),
				},
			},
			{
				// A partial metadata_options, as Karpenter's Windows examples write it: the fields left
				// out take the CRD's defaults; object metadata is rendered at the object's root.
				Config: nodeClassConfig(cluster, `
  metadata_options = { http_put_response_hop_limit = 2 }
  metadata         = { annotations = { "kubernetes.io/description" = "General purpose" } }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("metadata_options"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"http_endpoint": knownvalue.StringExact("enabled"), "http_protocol_ipv6": knownvalue.StringExact("disabled"),
						"http_put_response_hop_limit": knownvalue.Int64Exact(2), "http_tokens": knownvalue.StringExact("required")})),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(
						`(?s)metadata:\n  name: default\n  annotations:\n    kubernetes.io/description: General purpose\n.*httpPutResponseHopLimit: 2`))),
				}},
				Check: checkManifestValid(nodeClassRes),
			},
			{
				// The tutorial's hpc class: discovery tag AND purpose = hpc -> one subnet, one zone.
				Config: nodeClassConfig(cluster, fmt.Sprintf(`
  subnet_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q, purpose = "hpc" } }]`, cluster)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("zones"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(a.Zone)})),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets"), knownvalue.ListSizeExact(1)),
				}},
			},
		},
	})
}

func TestAccNodeClass_drift(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	driftKey := acctest.RandomName("drift")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{
		ExtraSubnetTags: map[int]map[string]string{0: {driftKey: "yes"}, 1: {driftKey: "yes"}},
	})
	c := n.Subnets[2]
	cfg := nodeClassConfig(cluster, fmt.Sprintf(`
  subnet_selector_terms         = [{ tags = { %q = "yes" } }]
  security_group_selector_terms = [{ id = %q }]`, driftKey, n.SecurityGroups[0].ID))

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config:            cfg,
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets"), knownvalue.ListSizeExact(2))},
			},
			{
				// Someone tags a third subnet: same config, the plan is an in-place update.
				PreConfig: func() { acctest.TagSubnet(t, c.ID, map[string]string{driftKey: "yes"}) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("zones"), knownvalue.ListSizeExact(3)),
				}},
				Check: checkManifestValid(nodeClassRes),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets").AtSliceIndex(2).AtMapKey("id"), knownvalue.StringExact(c.ID)),
				},
			},
			{
				// Untagged again: it leaves the class.
				PreConfig: func() { acctest.UntagSubnet(t, c.ID, driftKey) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("zones"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact(n.Subnets[0].Zone), knownvalue.StringExact(n.Subnets[1].Zone)})),
				},
			},
		},
	})
}

func TestAccNodeClass_planErrors(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{})
	other := acctest.NewNetwork(t, acctest.NetworkSpec{})
	k := acctest.TagKey
	sg := fmt.Sprintf(`security_group_selector_terms = [{ id = %q }]`, n.SecurityGroups[0].ID)

	cases := []struct{ body, err string }{
		{
			fmt.Sprintf("subnet_selector_terms = [{ tags = { %q = \"nothing\" } }]\n  %s", k, sg),
			`subnet_selector_terms: no subnet matched`,
		},
		{
			fmt.Sprintf("subnet_selector_terms = [{ id = %q }]\n  security_group_selector_terms = [{ tags = { %q = \"nothing\" } }]", n.Subnets[0].ID, k),
			`security_group_selector_terms: no security group matched`,
		},
		{
			fmt.Sprintf("subnet_selector_terms = [{ id = %q }, { id = %q }]\n  %s", n.Subnets[0].ID, other.Subnets[0].ID, sg),
			`subnet_selector_terms: the selected subnets span 2 VPCs`,
		},
		{
			fmt.Sprintf("subnet_selector_terms = [{ id = %q }]\n  security_group_selector_terms = [{ id = %q }]", n.Subnets[0].ID, other.SecurityGroups[0].ID),
			`security_group_selector_terms: security groups outside the subnets' VPC`,
		},
		{
			// Pod subnets only in zone a while nodes use a and b.
			fmt.Sprintf(`subnet_selector_terms = [{ id = %q }, { id = %q }]
  %s
  networking = { custom_networking = { pod_subnet_selector_terms = [{ id = %q }] } }`, n.Subnets[0].ID, n.Subnets[1].ID, sg, n.Subnets[2].ID),
			`networking.custom_networking.pod_subnet_selector_terms: no pod subnet in VPC`,
		},
		{
			fmt.Sprintf(`subnet_selector_terms = [{ id = %q }]
  %s
  network_interfaces = [
    { network_card_index = 0, device_index = 1, interface_type = "efa-only" },
  ]`, n.Subnets[0].ID, sg),
			`network_interfaces: must include the primary interface`,
		},
		{
			fmt.Sprintf(`subnet_selector_terms = [{ id = %q }]
  %s
  network_interfaces = [
    { network_card_index = 0, device_index = 0, interface_type = "interface" },
    { network_card_index = 0, device_index = 0, interface_type = "efa-only" },
  ]`, n.Subnets[0].ID, sg),
			`network_interfaces\[1\]: duplicates network_interfaces\[0\]`,
		},
		{
			fmt.Sprintf("subnet_selector_terms = [{ id = %q }]\n  %s\n  tags = { \"aws:owner\" = \"x\" }", n.Subnets[0].ID, sg),
			`tags\["aws:owner"\]: tag keys starting with "aws:" are reserved`,
		},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      nodeClassConfig(cluster, "  "+c.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(c.err),
		})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps:                    steps,
	})
}

func TestAccNodeClass_unknownInputs(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	cfg := providerConfig(cluster) + fmt.Sprintf(`
resource "terraform_data" "later" {
  input = %q
}

resource "karpenter_node_class" "test" {
  name                  = "default"
  role                  = "KarpenterNodeRole"
  ami_selector_terms    = [{ alias = "al2023@latest" }]
  subnet_selector_terms = [{ id = terraform_data.later.output }]
}
`, n.Subnets[1].ID)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("zones")),
				plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("resolved")),
			}},
			Check: checkManifestValid(nodeClassRes),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("zones"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(n.Subnets[1].Zone)})),
			},
		}},
	})
}
