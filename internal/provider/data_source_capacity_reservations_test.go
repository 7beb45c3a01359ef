package provider

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

const capResData = "data.karpenter_capacity_reservations.test"

// checkFloat compares a number attribute of the state with want (floating point: within 1e-9).
func checkFloat(res, attr string, want float64) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(res, attr, func(v string) error {
		got, err := strconv.ParseFloat(v, 64)
		if err != nil || math.Abs(got-want) > 1e-9 {
			return fmt.Errorf("%s = %q, want %v", attr, v, want)
		}
		return nil
	})
}

// TestAccDataSourceCapacityReservations lists reservations served by acctest.CapacityStub
// (LocalStack has no DescribeCapacityReservations) with on-demand prices from
// acctest.PricingStub: the classes of node_classes select them, a literal node_pools value (a
// pool's `reservations`) uses one and not another, and the idle ones are warnings on the class
// with their hourly cost and the pool's reason.
func TestAccDataSourceCapacityReservations(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	za, zb := acctest.Region()+"a", acctest.Region()+"b"
	capStub, priceStub := acctest.NewCapacityStub(t), acctest.NewPricingStub(t)
	// A bare-metal price too: without one the Pricing API answer counts as incomplete.
	priceStub.SetOnDemand(acctest.Region(), map[string]float64{"m5.large": 0.096, "c5.xlarge": 0.17, "m5.metal": 4.608})

	now := time.Now().UTC().Truncate(time.Second)
	used := acctest.StubReservation{ID: "cr-0a00000000000001", InstanceType: "m5.large", Zone: za, State: "active", OwnerID: "000000000000",
		InstanceMatchCriteria: "targeted", ReservationType: "default", Available: 2, Total: 2}
	wrongZone := acctest.StubReservation{ID: "cr-0a00000000000002", InstanceType: "m5.large", Zone: zb, State: "active", OwnerID: "000000000000",
		InstanceMatchCriteria: "targeted", ReservationType: "default", Available: 3, Total: 4}
	block := acctest.StubReservation{ID: "cr-0a00000000000003", InstanceType: "p5.48xlarge", Zone: za, State: "active", OwnerID: "000000000000",
		InstanceMatchCriteria: "targeted", ReservationType: "capacity-block", Available: 1, Total: 1,
		StartDate: now.Add(-time.Hour), EndDate: now.Add(72 * time.Hour)}
	unselected := acctest.StubReservation{ID: "cr-0a00000000000004", InstanceType: "c5.xlarge", Zone: za, State: "active", OwnerID: "111111111111",
		InstanceMatchCriteria: "open", ReservationType: "default", Available: 2, Total: 2, Interruptible: true, Tags: map[string]string{"team": "web"}}
	upcoming := acctest.StubReservation{ID: "cr-0a00000000000005", InstanceType: "p5.48xlarge", Zone: zb, State: "scheduled", OwnerID: "000000000000",
		InstanceMatchCriteria: "targeted", ReservationType: "capacity-block", Available: 2, Total: 2,
		StartDate: now.Add(24 * time.Hour), EndDate: now.Add(96 * time.Hour)}
	expired := acctest.StubReservation{ID: "cr-0a00000000000006", InstanceType: "m5.large", Zone: za, State: "expired", OwnerID: "000000000000",
		InstanceMatchCriteria: "open", ReservationType: "default"}
	capStub.SetReservations(block, used, wrongZone, unselected, upcoming, expired)

	provider := strings.Replace(providerConfigEC2("", capStub.URL()), "  endpoints = {\n",
		fmt.Sprintf("  endpoints = {\n    pricing = %q\n", priceStub.URL()), 1)
	data := func(extra string) string {
		return provider + fmt.Sprintf(`
data "karpenter_capacity_reservations" "test" {
  node_classes = {
    general = [%[1]q, %[2]q]
    gpu     = [%[3]q]
  }
  node_pools = {
    general = [
      { id = %[1]q, instance_type = "m5.large", availability_zone = %[4]q, reservation_type = "default",
        available_instance_count = 2, nodes = 2, reason = null },
      { id = %[2]q, instance_type = "m5.large", availability_zone = %[5]q, reservation_type = "default",
        available_instance_count = 3, nodes = 0, reason = %[6]q },
    ]
  }
%[7]s
}
`, used.ID, wrongZone.ID, block.ID, za, zb, reservations.ReasonZoneNotAllowed, extra)
	}

	diags := &diagRecorder{diags: map[int][]recordedDiag{}}
	r := func(i int, attr string) string { return fmt.Sprintf("reservations.%d.%s", i, attr) }
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: badInputFactories(&suiteCalls, diags),
		Steps: []resource.TestStep{
			{
				Config: data(""),
				Check: resource.ComposeAggregateTestCheckFunc(
					// Sorted by id; the expired one is not listed.
					resource.TestCheckResourceAttr(capResData, "reservations.#", "5"),
					resource.TestCheckResourceAttr(capResData, r(0, "id"), used.ID),
					resource.TestCheckResourceAttr(capResData, r(0, "selected_by.#"), "1"),
					resource.TestCheckResourceAttr(capResData, r(0, "selected_by.0"), "general"),
					resource.TestCheckResourceAttr(capResData, r(0, "used_by.0"), "general"),
					resource.TestCheckResourceAttr(capResData, r(0, "idle"), "false"),
					resource.TestCheckNoResourceAttr(capResData, r(0, "idle_hourly_cost")),
					resource.TestCheckNoResourceAttr(capResData, r(0, "end_date")),

					resource.TestCheckResourceAttr(capResData, r(1, "id"), wrongZone.ID),
					resource.TestCheckResourceAttr(capResData, r(1, "idle"), "true"),
					resource.TestCheckResourceAttr(capResData, r(1, "used_by.#"), "0"),
					resource.TestCheckResourceAttr(capResData, r(1, "idle_reasons.0"), "general: "+reservations.ReasonZoneNotAllowed),
					resource.TestCheckResourceAttr(capResData, r(1, "total_instance_count"), "4"),
					resource.TestCheckResourceAttr(capResData, r(1, "available_instance_count"), "3"),
					checkFloat(capResData, r(1, "idle_hourly_cost"), 3*0.096),

					resource.TestCheckResourceAttr(capResData, r(2, "id"), block.ID),
					resource.TestCheckResourceAttr(capResData, r(2, "reservation_type"), "capacity-block"),
					resource.TestCheckResourceAttr(capResData, r(2, "selected_by.0"), "gpu"),
					resource.TestCheckResourceAttr(capResData, r(2, "idle"), "true"),
					resource.TestCheckResourceAttr(capResData, r(2, "idle_reasons.#"), "0"),
					resource.TestCheckResourceAttr(capResData, r(2, "start_date"), block.StartDate.Format(time.RFC3339)),
					resource.TestCheckResourceAttr(capResData, r(2, "end_date"), block.EndDate.Format(time.RFC3339)),
					// The Pricing API's answer leaves p5.48xlarge out: it keeps the embedded table's price,
					// as in Karpenter's pricing provider.
					checkFloat(capResData, r(2, "idle_hourly_cost"), tablePrice(t, "p5.48xlarge")),

					resource.TestCheckResourceAttr(capResData, r(3, "id"), unselected.ID),
					resource.TestCheckResourceAttr(capResData, r(3, "selected_by.#"), "0"),
					resource.TestCheckResourceAttr(capResData, r(3, "idle"), "false"),
					resource.TestCheckResourceAttr(capResData, r(3, "interruptible"), "true"),
					resource.TestCheckResourceAttr(capResData, r(3, "owner_id"), "111111111111"),
					resource.TestCheckResourceAttr(capResData, r(3, "instance_match_criteria"), "open"),
					resource.TestCheckResourceAttr(capResData, r(3, "tags.team"), "web"),
					checkFloat(capResData, r(3, "idle_hourly_cost"), 2*0.17),

					resource.TestCheckResourceAttr(capResData, r(4, "id"), upcoming.ID),
					resource.TestCheckResourceAttr(capResData, r(4, "state"), "scheduled"),
					resource.TestCheckResourceAttr(capResData, r(4, "idle"), "false"),

					resource.TestCheckResourceAttr(capResData, "unselected_ids.#", "1"),
					resource.TestCheckResourceAttr(capResData, "unselected_ids.0", unselected.ID),
					resource.TestCheckResourceAttr(capResData, "idle_ids.#", "2"),
					resource.TestCheckResourceAttr(capResData, "idle_ids.0", wrongZone.ID),
					resource.TestCheckResourceAttr(capResData, "idle_ids.1", block.ID),
				),
			},
			{
				// The filters narrow the listing on EC2's side.
				Config: data(fmt.Sprintf("  instance_types = [\"m5.large\"]\n  availability_zones = [%q]", za)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(capResData, "reservations.#", "1"),
					resource.TestCheckResourceAttr(capResData, r(0, "id"), used.ID),
					resource.TestCheckResourceAttr(capResData, "idle_ids.#", "0"),
					resource.TestCheckResourceAttr(capResData, "unselected_ids.#", "0"),
				),
			},
		},
	})

	// One warning per idle reservation, on the first class that selects it.
	wantIdle := map[string][]string{
		wrongZone.ID: {`node_classes["general"]`, "a capacity reservation of m5.large in " + zb, "selected by class general",
			"3 of 4 instances free", "0.288 USD/h unused (3 × 0.096 USD/h", "general: " + reservations.ReasonZoneNotAllowed},
		block.ID: {`node_classes["gpu"]`, "a Capacity Block of p5.48xlarge in " + za, "1 of 1 instances free",
			fmt.Sprintf("%g USD/h unused (1 × %g USD/h, its on-demand price)", tablePrice(t, "p5.48xlarge"), tablePrice(t, "p5.48xlarge")),
			"No pool in node_pools is on class gpu."},
	}
	for id, parts := range wantIdle {
		found := false
		for _, w := range diags.warnings {
			text := w.path + ": " + w.detail
			ok := w.rpc == "ReadDataSource" && w.text == "Idle capacity reservation" && strings.Contains(w.detail, id)
			for _, p := range parts {
				ok = ok && strings.Contains(text, p)
			}
			found = found || ok
		}
		if !found {
			t.Errorf("no idle warning for %s with %q; warnings: %+v", id, parts, diags.warnings)
		}
	}
	for _, w := range diags.warnings {
		if strings.Contains(w.detail, used.ID) || strings.Contains(w.detail, unselected.ID) {
			t.Errorf("warning about a reservation that is not idle: %+v", w)
		}
	}
	if capStub.Calls("DescribeCapacityReservations") == 0 {
		t.Errorf("the stub was not asked: %s", capStub)
	}
}

// tablePrice is the embedded on-demand table's price of instanceType in the test's region.
func tablePrice(t *testing.T, instanceType string) float64 {
	t.Helper()
	table, _ := pricing.FallbackOnDemand(acctest.Region())
	v, ok := table[instanceType]
	if !ok {
		t.Fatalf("the embedded table has no %s", instanceType)
	}
	return v
}
