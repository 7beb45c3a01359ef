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
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// TestAccNodeClass_capacityBlocksInTime plans a class whose terms select Capacity Blocks at
// every point of their life, served by acctest.CapacityStub (LocalStack has no reservations):
// one bought ahead (EC2's `scheduled`) is kept in capacity_reservations with its state and is a
// warning naming its start; an active one that ends within capacity_block_horizon is a warning
// naming its end and Karpenter's 40 minutes; one already in its last 40 minutes is `expiring`.
func TestAccNodeClass_capacityBlocksInTime(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	za, zb := n.Subnets[0].Zone, n.Subnets[1].Zone
	now := time.Now().UTC().Truncate(time.Second)
	tags := map[string]string{"team": cluster}
	blk := func(id, zone, state string, start, end time.Time, free int) acctest.StubReservation {
		return acctest.StubReservation{ID: id, InstanceType: "p5.48xlarge", Zone: zone, State: state, OwnerID: "000000000000",
			InstanceMatchCriteria: "targeted", ReservationType: "capacity-block", Available: free, Total: 4,
			StartDate: start, EndDate: end, Tags: tags}
	}
	ahead := blk("cr-0a0a0a0a0a0a0a0a0", za, "scheduled", now.Add(30*time.Hour), now.Add(54*time.Hour), 4)
	ending := blk("cr-0b0b0b0b0b0b0b0b0", za, "active", now.Add(-48*time.Hour), now.Add(5*time.Hour), 3)
	expiring := blk("cr-0c0c0c0c0c0c0c0c0", zb, "active", now.Add(-48*time.Hour), now.Add(20*time.Minute), 1)
	later := blk("cr-0d0d0d0d0d0d0d0d0", zb, "active", now.Add(-2*time.Hour), now.Add(30*time.Hour), 2)
	later.Interruptible = true
	stub := acctest.NewCapacityStub(t)
	stub.SetReservations(ahead, ending, expiring, later)

	provider := func(settings string) string {
		return strings.Replace(providerConfigEC2(cluster, stub.URL()), "provider \"karpenter\" {\n", "provider \"karpenter\" {\n"+settings, 1)
	}
	class := fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "blocks"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  capacity_reservation_selector_terms = [
    { id = %q },
    { tags = { team = %q } },
  ]
}
`, ahead.ID, cluster)
	utc := func(t time.Time) string { return t.Format(time.RFC3339) }

	// The default horizon (24h): the block bought ahead, the ending one and the expiring one.
	got := suitePlanWarnings(t, provider("")+class)
	wantWarning(t, got, "Capacity Block not started", "capacity_reservation_selector_terms[0]",
		"Capacity Block "+ahead.ID+" (p5.48xlarge in "+za+", 4 instances) is scheduled: it starts at "+utc(ahead.StartDate),
		"Karpenter does not see it until it starts, and no pool can launch into it before then")
	wantWarning(t, got, "Capacity Block ends soon", "capacity_reservation_selector_terms[1]",
		"Capacity Block "+ending.ID+" (p5.48xlarge in "+za+", 3 of 4 instances free) ends at "+utc(ending.EndDate),
		"within the 24h capacity_block_horizon", "Karpenter stops launching into it 40m before (at "+utc(ending.EndDate.Add(-40*time.Minute))+")",
		"its nodes are reclaimed at the end")
	wantWarning(t, got, "Capacity Block expiring", "capacity_reservation_selector_terms[1]",
		"Capacity Block "+expiring.ID+" (p5.48xlarge in "+zb+", 1 of 4 instances free) is expiring: it ends at "+utc(expiring.EndDate),
		"Karpenter launches nothing there")
	for _, w := range got["Capacity Block ends soon"] {
		if !strings.Contains(w, ending.ID) {
			t.Errorf("only %s ends within 24h: %v", ending.ID, w)
		}
	}

	// A 48h horizon reaches the later block too.
	got = suitePlanWarnings(t, provider("  capacity_block_horizon = \"48h\"\n")+class)
	wantWarning(t, got, "Capacity Block ends soon", "capacity_reservation_selector_terms[1]",
		later.ID, "ends at "+utc(later.EndDate), "within the 48h capacity_block_horizon")

	reservation := func(r acctest.StubReservation) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id": knownvalue.StringExact(r.ID), "instance_type": knownvalue.StringExact(r.InstanceType),
			"availability_zone": knownvalue.StringExact(r.Zone), "instance_match_criteria": knownvalue.StringExact(r.InstanceMatchCriteria),
			"owner_id": knownvalue.StringExact(r.OwnerID), "reservation_type": knownvalue.StringExact(r.ReservationType),
			"end_date": knownvalue.StringExact(utc(r.EndDate)), "available_instance_count": knownvalue.Int64Exact(int64(r.Available)),
			"total_instance_count": knownvalue.Int64Exact(int64(r.Total)), "start_date": knownvalue.StringExact(utc(r.StartDate)),
			"interruptible": knownvalue.Bool(r.Interruptible), "state": knownvalue.StringExact(r.State),
		})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// The block bought ahead is recorded beside the active ones, with its state.
				Config: provider("") + class,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("capacity_reservations"), knownvalue.ListExact([]knownvalue.Check{
						reservation(ahead), reservation(ending), reservation(expiring), reservation(later),
					})),
				}},
			},
			{
				// It starts: a change of selection, with the state EC2 reports now.
				PreConfig: func() {
					started := ahead
					started.State = "active"
					stub.SetReservations(started, ending, expiring, later)
				},
				Config: provider("") + class,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("capacity_reservations").AtSliceIndex(0).AtMapKey("state"),
						knownvalue.StringExact("active")),
				}},
			},
		},
	})

	// Settings the provider refuses, with nothing in state.
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config:      provider("  capacity_block_horizon = \"0s\"\n") + class,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid capacity_block_horizon.*"0s" is not longer than zero`),
			},
			{
				Config:      provider("  capacity_block_horizon = \"1d\"\n") + class,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid capacity_block_horizon.*"1d" is not a Go duration`),
			},
			{
				Config:      provider("  karpenter_feature_gates = [\"ReservedCapacity=false\", \"NodeOverlay=maybe\"]\n") + class,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid feature gate.*"NodeOverlay=maybe" is not a feature gate setting`),
			},
		},
	})
}
