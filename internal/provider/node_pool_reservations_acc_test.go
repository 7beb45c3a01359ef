package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// checkListHas asserts that some element of the resource's list attribute matches re.
func checkListHas(res, attr string, re *regexp.Regexp) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[res]
		if !ok {
			return fmt.Errorf("%s not in state", res)
		}
		var seen []string
		for k, v := range rs.Primary.Attributes {
			if strings.HasPrefix(k, attr+".") && k != attr+".#" {
				if re.MatchString(v) {
					return nil
				}
				seen = append(seen, v)
			}
		}
		return fmt.Errorf("%s.%s: no element matches %s in %q", res, attr, re, seen)
	}
}

// verdict is a pool's `reservations` entry as a known-value check.
func verdict(r acctest.StubReservation, nodes int64, reason knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"id": knownvalue.StringExact(r.ID), "instance_type": knownvalue.StringExact(r.InstanceType),
		"availability_zone": knownvalue.StringExact(r.Zone), "reservation_type": knownvalue.StringExact(r.ReservationType),
		"available_instance_count": knownvalue.Int64Exact(int64(r.Available)), "nodes": knownvalue.Int64Exact(nodes), "reason": reason,
	})
}

// TestAccNodePool_reservations plans pools on a class that selects three reservations and a
// Capacity Block: the dynamic pool launches into the one its type and zones allow first, and
// says why it cannot use the others; a static pool that Karpenter launches on the block is told
// that its replicas exceed the block and that the block ends within the horizon.
//
// LocalStack has no capacity reservations: acctest.CapacityStub serves them, as EC2 answers.
func TestAccNodePool_reservations(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	za, zb, zc := n.Subnets[0].Zone, n.Subnets[1].Zone, n.Subnets[2].Zone
	now := time.Now().UTC().Truncate(time.Second)
	reservation := func(id, typ, zone string, available int) acctest.StubReservation {
		return acctest.StubReservation{ID: id, InstanceType: typ, Zone: zone, State: "active", OwnerID: "000000000000",
			InstanceMatchCriteria: "targeted", ReservationType: "default", Available: available, Total: available + 1,
			Tags: map[string]string{"team": cluster}}
	}
	used := reservation("cr-0aaaaaaaaaaaaaaaa", "m5.large", za, 3)
	zone := reservation("cr-0bbbbbbbbbbbbbbbb", "m5.large", zc, 2)
	typ := reservation("cr-0cccccccccccccccc", "c5.xlarge", za, 1)
	block := reservation("cr-0dddddddddddddddd", "m5.xlarge", zb, 4)
	block.ReservationType, block.Total, block.StartDate, block.EndDate = "capacity-block", 4, now.Add(-24*time.Hour), now.Add(3*time.Hour)
	stub := acctest.NewCapacityStub(t)
	stub.SetReservations(used, zone, typ, block)

	cfg := withGates(providerConfigEC2(cluster, stub.URL()), "StaticCapacity") + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "reserved"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  capacity_reservation_selector_terms = [{ tags = { team = %[1]q } }]
}

resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_node_class.test.resolved
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] },
      { key = "topology.kubernetes.io/zone", operator = "In", values = [%[2]q, %[3]q] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["reserved", "on-demand"] },
    ]
  }
  limits = { nodes = "10" }
}

resource "karpenter_node_pool" "block" {
  name       = "training"
  node_class = karpenter_node_class.test.resolved
  launcher   = "karpenter"
  replicas   = 6
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.xlarge"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["reserved"] },
    ]
  }
  limits = { nodes = "7" }
}

data "karpenter_capacity_reservations" "all" {
  node_classes = { reserved = karpenter_node_class.test.capacity_reservations[*].id }
  node_pools = {
    general  = karpenter_node_pool.test.reservations
    training = karpenter_node_pool.block.reservations
  }
}
`, cluster, za, zb)
	const blockRes, dataRes = "karpenter_node_pool.block", "data.karpenter_capacity_reservations.all"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{{
			// The cluster's Karpenter runs with ReservedCapacity off: no reserved offering, and the
			// targeted reservations are no pool's.
			Config: strings.NewReplacer(`karpenter_feature_gates = ["StaticCapacity"]`, `karpenter_feature_gates = ["StaticCapacity", "ReservedCapacity=false"]`,
				`values = ["reserved"] }`, `values = ["reserved", "on-demand"] }`).Replace(cfg),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("reservations").AtSliceIndex(0).AtMapKey("reason"),
					knownvalue.StringRegexp(regexp.MustCompile(`^`+regexp.QuoteMeta(reservations.ReasonGateOff)+`, and only launches that target it`))),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("first_instance_types"),
					knownvalue.StringRegexp(regexp.MustCompile(`^m5\.large [0-9.]+ on-demand \(USD/h\)$`))),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("reservations"),
					knownvalue.StringRegexp(regexp.MustCompile(`ReservedCapacity is off: Karpenter plans no reserved offering`))),
			}},
		}, {
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				// Karpenter's order: reserved offerings by their type's on-demand price, m5.large first.
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("reservations"), knownvalue.ListExact([]knownvalue.Check{
					verdict(used, 3, knownvalue.Null()),
					verdict(zone, 0, knownvalue.StringExact(reservations.ReasonZoneNotAllowed)),
					verdict(typ, 0, knownvalue.StringExact(reservations.ReasonTypeIneligible)),
					verdict(block, 0, knownvalue.StringExact(reservations.ReasonTypeIneligible)),
				})),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("reservations"), knownvalue.StringRegexp(regexp.MustCompile(
					`^reserved first: `+used.ID+` m5\.large in `+za+` covers 3; 3 nodes before it falls to on-demand; 3 more of the class's reservations not used`))),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("cost"), knownvalue.StringRegexp(regexp.MustCompile(
					`^3 nodes in capacity reservations, paid for already \([0-9.]+ USD/h at on-demand prices\); nodes 10 then leaves at most 7 × m5\.large, [0-9.]+ USD/h on-demand$`))),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("first_instance_types"),
					knownvalue.StringExact("m5.large reserved")),
				plancheck.ExpectKnownValue(blockRes, tfjsonpath.New("reservations").AtSliceIndex(3), verdict(block, 4, knownvalue.Null())),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				// The configuration's pools together: the zone and type reservations sit idle, with
				// their hourly cost (on-demand price × free instances) and each pool's reason.
				resource.TestCheckResourceAttr(dataRes, "idle_ids.#", "2"),
				resource.TestCheckResourceAttr(dataRes, "idle_ids.0", zone.ID),
				resource.TestCheckResourceAttr(dataRes, "idle_ids.1", typ.ID),
				resource.TestCheckResourceAttr(dataRes, "reservations.0.used_by.0", "general"),
				resource.TestCheckResourceAttr(dataRes, "reservations.3.used_by.0", "training"),
				resource.TestCheckResourceAttr(dataRes, "reservations.1.idle_reasons.0", "general: "+reservations.ReasonZoneNotAllowed),
				resource.TestCheckResourceAttr(dataRes, "reservations.2.idle_reasons.0", "general: "+reservations.ReasonTypeIneligible),
				resource.TestMatchResourceAttr(dataRes, "reservations.1.idle_hourly_cost", regexp.MustCompile(`^0\.[0-9]+$`)),
				resource.TestMatchResourceAttr(dataRes, "reservations.2.idle_hourly_cost", regexp.MustCompile(`^0\.[0-9]+$`)),
				checkListHas(blockRes, "warnings", regexp.MustCompile(`^replicas: replicas 6 exceed the 4 instances the pool's Capacity Blocks hold now \(`+
					block.ID+` \(Capacity Block m5\.xlarge in `+zb+`, 4 of 4 free\)\): the other 2 stay pending`)),
				checkListHas(blockRes, "warnings", regexp.MustCompile(`^Capacity Block `+block.ID+` .* ends at `+
					regexp.QuoteMeta(block.EndDate.Format(time.RFC3339))+` \(within 24h0m0s\): Karpenter stops launching into it at `+
					regexp.QuoteMeta(block.EndDate.Add(-40*time.Minute).Format(time.RFC3339)))),
			),
		}},
	})
}
