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
)

// checkManifestLines asserts that the resource's rendered manifest holds every line block.
func checkManifestLines(res string, blocks ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[res]
		if !ok {
			return fmt.Errorf("%s not in state", res)
		}
		doc := rs.Primary.Attributes["manifest"]
		for _, b := range blocks {
			if !strings.Contains(doc, b) {
				return fmt.Errorf("%s manifest lacks %q:\n%s", res, b, doc)
			}
		}
		return nil
	}
}

// TestAccNodeClass_capacityReservationsAndPlacementGroup plans a class that selects capacity
// reservations and a placement group, and sets the other v1.14 launch fields.
//
// LocalStack 4.14 (moto) implements neither the Create nor the Describe calls of placement
// groups and capacity reservations (InternalFailure "... has not been implemented"), so
// nothing can be created in the emulator: the provider's EC2 endpoint is acctest.CapacityStub,
// which answers DescribePlacementGroups and DescribeCapacityReservations from objects this test
// defines (EC2's filters and errors) and forwards every other call (subnets, security groups)
// to LocalStack. There is nothing to destroy in AWS: the stub's objects vanish with the test.
func TestAccNodeClass_capacityReservationsAndPlacementGroup(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	za, zb := n.Subnets[0].Zone, n.Subnets[1].Zone
	stub := acctest.NewCapacityStub(t)
	pgName := acctest.RandomName("hpc")
	end := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	stub.SetPlacementGroups(
		acctest.StubPlacementGroup{ID: "pg-0a1b2c3d4e5f60718", Name: pgName, Strategy: "partition", State: "available", PartitionCount: 3},
		acctest.StubPlacementGroup{ID: "pg-0ffffffffffffffff", Name: pgName + "-old", Strategy: "cluster", State: "deleting"},
	)
	targeted := acctest.StubReservation{ID: "cr-0aaaaaaaaaaaaaaaa", InstanceType: "m5.large", Zone: za, State: "active", OwnerID: "000000000000",
		InstanceMatchCriteria: "targeted", ReservationType: "default", Available: 2, Total: 2}
	open := acctest.StubReservation{ID: "cr-0bbbbbbbbbbbbbbbb", InstanceType: "c5.xlarge", Zone: zb, State: "active", OwnerID: "000000000000",
		InstanceMatchCriteria: "open", ReservationType: "capacity-block", Available: 4, Total: 4, EndDate: end, Tags: map[string]string{"team": cluster}}
	expired := acctest.StubReservation{ID: "cr-0cccccccccccccccc", InstanceType: "c5.xlarge", Zone: zb, State: "expired", OwnerID: "000000000000",
		InstanceMatchCriteria: "open", ReservationType: "default", Tags: map[string]string{"team": cluster}}
	stub.SetReservations(targeted, open, expired)

	provider := providerConfigEC2(cluster, stub.URL())
	class := func(body string) string {
		return provider + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "reserved"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
%s
}
`, body)
	}
	launch := `
  context             = "c-0123456789abcdef0"
  cpu_options         = { nested_virtualization = "enabled" }
  connection_tracking = { tcp_established_timeout = 3600, udp_timeout = 60 }
  block_device_mappings = [{
    device_name = "/dev/xvdb"
    ebs         = { snapshot_id = "snap-0123456789abcdef0", volume_initialization_rate = 150 }
  }]`
	selected := class(fmt.Sprintf(`
  capacity_reservation_selector_terms = [
    { id = %q },
    { tags = { team = %q }, instance_match_criteria = "open" },
  ]
  placement_group_selector = { name = %q }
%s`, targeted.ID, cluster, pgName, launch))

	reservationCheck := func(r acctest.StubReservation, endDate knownvalue.Check) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id": knownvalue.StringExact(r.ID), "instance_type": knownvalue.StringExact(r.InstanceType),
			"availability_zone": knownvalue.StringExact(r.Zone), "instance_match_criteria": knownvalue.StringExact(r.InstanceMatchCriteria),
			"owner_id": knownvalue.StringExact(r.OwnerID), "reservation_type": knownvalue.StringExact(r.ReservationType),
			"end_date": endDate, "available_instance_count": knownvalue.Int64Exact(int64(r.Available)),
			"total_instance_count": knownvalue.Int64Exact(int64(r.Total)), "start_date": knownvalue.Null(),
			"interruptible": knownvalue.Bool(false), "state": knownvalue.StringExact(r.State),
		})
	}
	moved := targeted
	moved.Available = 0
	added := acctest.StubReservation{ID: "cr-0dddddddddddddddd", InstanceType: "m5.large", Zone: za, State: "active", OwnerID: "000000000000",
		InstanceMatchCriteria: "open", ReservationType: "default", Available: 1, Total: 1, Tags: map[string]string{"team": cluster}}

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// Both selectors resolve at plan time; the expired reservation is left out.
				Config: selected,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("capacity_reservations"), knownvalue.ListExact([]knownvalue.Check{
						reservationCheck(targeted, knownvalue.Null()),
						reservationCheck(open, knownvalue.StringExact(end.Format(time.RFC3339))),
					})),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("placement_group"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id": knownvalue.StringExact("pg-0a1b2c3d4e5f60718"), "name": knownvalue.StringExact(pgName),
						"strategy": knownvalue.StringExact("partition"), "partition_count": knownvalue.Int64Exact(3),
					})),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkManifestValid(nodeClassRes),
					checkManifestLines(nodeClassRes,
						"  capacityReservationSelectorTerms:\n    - id: "+targeted.ID+"\n    - tags:\n        team: "+cluster+"\n      instanceMatchCriteria: open\n",
						"  placementGroupSelector:\n    name: "+pgName+"\n",
						"  context: c-0123456789abcdef0\n",
						"  cpuOptions:\n    nestedVirtualization: enabled\n",
						"  connectionTracking:\n    tcpEstablishedTimeout: 3600\n    udpTimeout: 60\n",
						"        snapshotID: snap-0123456789abcdef0\n        volumeInitializationRate: 150\n",
					),
				),
			},
			{
				// A launch into the reservation moves its available count only: the recorded value
				// is kept and the plan is empty.
				PreConfig: func() { stub.SetReservations(moved, open, expired) },
				Config:    selected,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
			{
				// A new reservation matches the tag term: an in-place update, with the current counts.
				PreConfig: func() { stub.SetReservations(moved, open, expired, added) },
				Config:    selected,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("capacity_reservations"), knownvalue.ListExact([]knownvalue.Check{
						reservationCheck(moved, knownvalue.Null()),
						reservationCheck(open, knownvalue.StringExact(end.Format(time.RFC3339))),
						reservationCheck(added, knownvalue.Null()),
					})),
				}},
			},
			{
				// Without the selectors both computed values are null and nothing is asked.
				Config: class(launch),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("capacity_reservations"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("placement_group"), knownvalue.Null()),
				}},
				Check: checkManifestValid(nodeClassRes),
			},
		},
	})

	// Plan errors, with nothing in state.
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config:      class(`  placement_group_selector = { id = "pg-0123456789abcdef0" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`placement_group_selector: placement group pg-0123456789abcdef0 not found`),
			},
			{
				Config:      class(fmt.Sprintf(`  placement_group_selector = { name = %q }`, pgName+"-old")),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`placement_group_selector: placement group pg-0ffffffffffffffff\s+\(` + pgName + `-old\)\s+is\s+deleting`),
			},
			{
				Config:      class(`  placement_group_selector = { id = "pg-1", name = "x" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`placement_group_selector: .id. and .name. are mutually exclusive`),
			},
			{
				Config:      class(`  capacity_reservation_selector_terms = [{ id = "cr-1", instance_match_criteria = "open" }]`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`capacity_reservation_selector_terms\[0\]\.id: .id. cannot be combined`),
			},
		},
	})
	if stub.Calls("DescribePlacementGroups") == 0 || stub.Calls("DescribeCapacityReservations") == 0 {
		t.Errorf("the stub was not asked: %s", stub)
	}
}
