package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// TestAccNodePool_driftAtPlan: each change says what Karpenter's drift controller will do to
// the pool's running nodes: a limits change keeps them, a taint (the NodePool hash) and a class
// user-data change (the EC2NodeClass hash) drift every node, and narrowing the types drifts the
// nodes of the types dropped; the plan after each apply is empty.
func TestAccNodePool_driftAtPlan(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	pool := func(limits, taints, types string) string {
		return fmt.Sprintf(`
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = [%s] }]
%s
  }
  limits = { cpu = %q }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "30s"
    budgets = [{ nodes = "20%%" }]
  }`, types, taints, limits)
	}
	const taint = `    taints = [{ key = "dedicated", value = "batch", effect = "NoSchedule" }]`
	const both = `"m5.large", "m5.xlarge"`
	drift := func(k string) tfjsonpath.Path { return tfjsonpath.New("drift").AtMapKey(k) }
	var hashes = map[string]string{}
	keep := func(k string) knownvalue.Check {
		return knownvalue.StringFunc(func(v string) error {
			if hashes[k] == "" {
				hashes[k] = v
			} else if v != hashes[k] {
				return fmt.Errorf("%s changed: %s -> %s", k, hashes[k], v)
			}
			return nil
		})
	}
	differs := func(k string) knownvalue.Check {
		return knownvalue.StringFunc(func(v string) error {
			if v == hashes[k] {
				return fmt.Errorf("%s unchanged (%s)", k, v)
			}
			hashes[k] = v
			return nil
		})
	}
	userData := "  user_data = \"#!/bin/bash\\necho hello\\n\"\n"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: poolConfig(cluster, "", pool("100", "", both)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// A new pool has no nodes: its hashes only.
					plancheck.ExpectKnownValue(nodePoolRes, drift("verdict"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, drift("pace"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, drift("nodepool_hash"), keep("pool")),
					plancheck.ExpectKnownValue(nodePoolRes, drift("nodeclass_hash"), keep("class")),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved").AtMapKey("hash"), keep("class")),
				}},
			},
			{
				// Limits are not in the NodePool hash: no drift, and the hashes stay.
				Config: poolConfig(cluster, "", pool("200", "", both)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodePoolRes, drift("verdict"), knownvalue.StringExact("no drift: running nodes are kept")),
					plancheck.ExpectKnownValue(nodePoolRes, drift("reasons"), knownvalue.ListSizeExact(0)),
					plancheck.ExpectKnownValue(nodePoolRes, drift("nodepool_hash"), keep("pool")),
					// 20% of the most nodes the subnets and limits allow, rounded up.
					plancheck.ExpectKnownValue(nodePoolRes, drift("pace"), knownvalue.StringRegexp(regexp.MustCompile(
						`^drifted nodes are replaced [0-9]+ at a time now \(20% of [0-9]+, rounded up\) \(counted at [0-9]+ nodes`))),
				}},
			},
			{
				// A taint changes the NodePool hash: every node drifts.
				Config: poolConfig(cluster, "", pool("200", taint, both)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, drift("reasons"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("NodePoolDrifted")})),
					plancheck.ExpectKnownValue(nodePoolRes, drift("verdict"), knownvalue.StringRegexp(regexp.MustCompile(
						`^every node of the pool drifts: the NodePool template changed \(hash [0-9]+ → [0-9]+\)$`))),
					plancheck.ExpectKnownValue(nodePoolRes, drift("nodepool_hash"), differs("pool")),
					plancheck.ExpectKnownValue(nodePoolRes, drift("nodeclass_hash"), keep("class")),
				}},
				// The plan after apply keeps the answer: nothing changed since.
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodePoolRes, drift("reasons"), knownvalue.ListSizeExact(1)),
				},
			},
			{
				// User data is in the EC2NodeClass hash: every node of every pool on the class drifts.
				Config: poolConfig(cluster, userData, pool("200", taint, both)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, drift("reasons"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("NodeClassDrift")})),
					plancheck.ExpectKnownValue(nodePoolRes, drift("nodeclass_hash"), differs("class")),
					plancheck.ExpectKnownValue(nodePoolRes, drift("nodepool_hash"), keep("pool")),
				}},
			},
			{
				// Narrowing the types (requirements are not in the hash) drifts the nodes of the type dropped.
				Config: poolConfig(cluster, userData, pool("200", taint, `"m5.large"`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, drift("reasons"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("RequirementsDrifted")})),
					plancheck.ExpectKnownValue(nodePoolRes, drift("verdict"), knownvalue.StringExact(
						"some nodes drift: nodes of instance type m5.xlarge no longer meet the requirements")),
					plancheck.ExpectKnownValue(nodePoolRes, drift("nodepool_hash"), keep("pool")),
				}},
			},
		},
	})
}

// TestAccNodePool_driftBlockedByBudgets: a change that drifts every node under budgets that
// allow no Drifted disruption warns that the nodes stay.
func TestAccNodePool_driftBlockedByBudgets(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	pool := func(label string) string {
		return fmt.Sprintf(`
  template = {
    labels       = { team = %q }
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }
  disruption = {
    consolidation_policy = "WhenEmpty"
    consolidate_after    = "30s"
    budgets = [{ nodes = "0", reasons = ["Drifted"] }]
  }`, label)
	}
	// Apply the pool, then plan the label change: the warnings are the second plan's (a new
	// pool has no nodes to replace, and says nothing of drift).
	diags := &diagRecorder{diags: map[int][]recordedDiag{}}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: badInputFactories(&callRecorder{}, diags),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{Config: poolConfig(cluster, "", pool("a"))},
			{Config: poolConfig(cluster, "", pool("b")), PlanOnly: true, ExpectNonEmptyPlan: true},
		},
	})
	got := map[string][]string{}
	for _, w := range diags.warnings {
		if w.rpc == "PlanResourceChange" {
			got[w.text] = append(got[w.text], w.path+": "+w.detail)
		}
	}
	wantWarning(t, got, "Karpenter will replace every node of the pool", "", "the NodePool template changed")
	wantWarning(t, got, "Disruption budgets never let drift proceed", "disruption", "allow no Drifted disruption", `nodes "0"`)
	if strings.Contains(fmt.Sprint(got), "Cannot count") {
		t.Errorf("warnings %v", got)
	}
}

// TestAccNodePool_driftFromEC2: changes made in EC2, not in the configuration, drift nodes too: a
// newer image the class's terms select (seeded with the SDK) is AMI drift for the nodes on the
// old one, and a subnet untagged out of the class's selection is subnet drift for the nodes in it.
func TestAccNodePool_driftFromEC2(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	tags := map[string]string{"team": cluster}
	old := acctest.CopyImage(t, "x86_64", "nodes-"+cluster+"-1", tags)
	var newer string
	class := fmt.Sprintf(`  ami_family         = "AL2023"
  ami_selector_terms = [{ tags = { team = %q } }]
`, cluster)
	cfg := strings.Replace(poolConfig(cluster, class, `
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }`), `  ami_selector_terms = [{ alias = "al2023@latest" }]
`, "", 1)
	c := n.Subnets[2]
	drift := func(k string) tfjsonpath.Path { return tfjsonpath.New("drift").AtMapKey(k) }
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				// A newer image of the same terms: the class now resolves to it alone.
				PreConfig: func() { newer = acctest.CopyImage(t, "x86_64", "nodes-"+cluster+"-2", tags) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, drift("reasons"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("AMIDrift")})),
					plancheck.ExpectKnownValue(nodePoolRes, drift("verdict"), knownvalue.StringFunc(func(v string) error {
						if want := fmt.Sprintf("every node of the pool drifts: nodes on image %s drift (now %s)", old, newer); v != want {
							return fmt.Errorf("verdict %q, want %q", v, want)
						}
						return nil
					})),
				}},
			},
			{
				// The zone-c subnet loses the discovery tag: the nodes in it drift, nothing else.
				PreConfig: func() { untagSubnet(t, c.ID, "karpenter.sh/discovery") },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, drift("reasons"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("SubnetDrift")})),
					plancheck.ExpectKnownValue(nodePoolRes, drift("verdict"), knownvalue.StringExact("some nodes drift: nodes in subnet "+c.ID+" drift")),
				}},
			},
		},
	})
}

// untagSubnet removes a tag from a subnet of the test's network.
func untagSubnet(t *testing.T, id, key string) {
	t.Helper()
	if _, err := acctest.EC2(t).DeleteTags(acctest.Context(t), &ec2.DeleteTagsInput{Resources: []string{id}, Tags: []ec2types.Tag{{Key: aws.String(key)}}}); err != nil {
		t.Fatalf("untagging %s: %v", id, err)
	}
}

// TestAccNodePool_driftCapacityReservation: a capacity reservation the class no longer selects
// (it ended) is capacity-reservation drift for the nodes launched into it. The emulator has no
// capacity reservations: acctest.CapacityStub serves them, as in the class's own test.
func TestAccNodePool_driftCapacityReservation(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	stub := acctest.NewCapacityStub(t)
	a := acctest.StubReservation{ID: "cr-0aaaaaaaaaaaaaaaa", InstanceType: "m5.large", Zone: n.Subnets[0].Zone, State: "active",
		OwnerID: "000000000000", InstanceMatchCriteria: "open", ReservationType: "default", Available: 2, Total: 2, Tags: map[string]string{"team": cluster}}
	b := a
	b.ID, b.Zone = "cr-0bbbbbbbbbbbbbbbb", n.Subnets[1].Zone
	stub.SetReservations(a, b)
	cfg := providerConfigEC2(cluster, stub.URL()) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "reserved"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  capacity_reservation_selector_terms = [{ tags = { team = %q } }]
}

resource "karpenter_node_pool" "test" {
  name       = "reserved"
  node_class = karpenter_node_class.test.resolved
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }
}
`, cluster)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved"), resolutionOf("the reservation ids",
						func(v launchplan.ClassValue) error {
							if fmt.Sprint(v.CapacityReservationIDs) != fmt.Sprint([]string{a.ID, b.ID}) {
								return fmt.Errorf("capacity reservation ids %v, want %v", v.CapacityReservationIDs, []string{a.ID, b.ID})
							}
							return nil
						})),
				}},
			},
			{
				PreConfig: func() {
					ended := b
					ended.State = "expired"
					stub.SetReservations(a, ended)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("drift").AtMapKey("reasons"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("CapacityReservationDrift")})),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("drift").AtMapKey("verdict"),
						knownvalue.StringExact("some nodes drift: nodes in capacity reservation "+b.ID+" drift")),
				}},
			},
		},
	})
}
