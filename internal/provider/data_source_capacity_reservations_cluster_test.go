package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// clusterNodePool is a NodePool on EC2NodeClass class with requirements, for putObject.
func clusterNodePool(name, class string, reqs ...map[string]any) map[string]any {
	rs := make([]any, 0, len(reqs))
	for _, r := range reqs {
		rs = append(rs, r)
	}
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class}, "requirements": rs}}}}
}

func poolRequirement(key, op string, values ...string) map[string]any {
	return map[string]any{"key": key, "operator": op, "values": values}
}

// TestAccDataSourceCapacityReservations_cluster: with the provider's kubernetes access the
// cluster's NodePools on a class of node_classes that node_pools lacks judge its reservations
// too. NodePool web (category m in zone a, reserved allowed) takes the m5.large reservation and
// not the c5.xlarge one; NodePool spot allows no reserved capacity; a NodePool on another class
// and the one already in node_pools are not judged from the cluster. With Karpenter's
// ReservedCapacity gate off no cluster NodePool takes a reservation.
func TestAccDataSourceCapacityReservations_cluster(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	za, zb := acctest.Region()+"a", acctest.Region()+"b"
	capStub, priceStub := acctest.NewCapacityStub(t), acctest.NewPricingStub(t)
	priceStub.SetOnDemand(acctest.Region(), map[string]float64{"m5.large": 0.096, "c5.xlarge": 0.17, "m5.metal": 4.608})
	taken := acctest.StubReservation{ID: "cr-0c00000000000001", InstanceType: "m5.large", Zone: za, State: "active", OwnerID: "000000000000",
		InstanceMatchCriteria: "targeted", ReservationType: "default", Available: 2, Total: 2}
	skipped := acctest.StubReservation{ID: "cr-0c00000000000002", InstanceType: "c5.xlarge", Zone: zb, State: "active", OwnerID: "000000000000",
		InstanceMatchCriteria: "targeted", ReservationType: "default", Available: 1, Total: 1}
	capStub.SetReservations(taken, skipped)

	// Names of this test's own: other tests put NodePools on the same API server.
	class := acctest.RandomName("resv")
	web, spot, listed, elsewhere := class+"-web", class+"-spot", class+"-listed", class+"-elsewhere"
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", clusterNodePool(web, class,
		poolRequirement("karpenter.k8s.aws/instance-category", "In", "m"), poolRequirement("topology.kubernetes.io/zone", "In", za),
		poolRequirement("karpenter.sh/capacity-type", "In", "reserved", "on-demand")))
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", clusterNodePool(spot, class, poolRequirement("karpenter.sh/capacity-type", "In", "spot")))
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", clusterNodePool(listed, class, poolRequirement("kubernetes.io/os", "In", "linux")))
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", clusterNodePool(elsewhere, class+"-other", poolRequirement("kubernetes.io/os", "In", "linux")))

	provider := func(gates string) string {
		p := strings.Replace(providerConfigEC2("", capStub.URL()), "  endpoints = {\n",
			fmt.Sprintf("%s  endpoints = {\n    pricing = %q\n", gates, priceStub.URL()), 1)
		return withKubeAccess(p, api)
	}
	data := fmt.Sprintf(`
data "karpenter_capacity_reservations" "test" {
  node_classes = {
    %[1]q = [%[2]q, %[3]q]
  }
  node_pools = {
    %[4]q = [
      { id = %[2]q, instance_type = "m5.large", availability_zone = %[5]q, reservation_type = "default",
        available_instance_count = 2, nodes = 0, reason = %[7]q },
      { id = %[3]q, instance_type = "c5.xlarge", availability_zone = %[6]q, reservation_type = "default",
        available_instance_count = 1, nodes = 0, reason = %[7]q },
    ]
  }
}
`, class, taken.ID, skipped.ID, listed, za, zb, reservations.ReasonZoneNotAllowed)

	cp := func(name string) string { return "NodePool " + name + " (cluster)" }
	diags := &diagRecorder{diags: map[int][]recordedDiag{}}
	r := func(i int, attr string) string { return fmt.Sprintf("reservations.%d.%s", i, attr) }
	gateOff := reservations.ReasonGateOff + ", so none of the NodePool's launches is a `reserved` one"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: badInputFactories(&suiteCalls, diags),
		Steps: []resource.TestStep{
			{
				Config: provider("") + data,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(capResData, "reservations.#", "2"),
					resource.TestCheckResourceAttr(capResData, r(0, "id"), taken.ID),
					resource.TestCheckResourceAttr(capResData, r(0, "idle"), "false"),
					resource.TestCheckResourceAttr(capResData, r(0, "used_by.#"), "1"),
					resource.TestCheckResourceAttr(capResData, r(0, "used_by.0"), cp(web)),
					resource.TestCheckNoResourceAttr(capResData, r(0, "idle_hourly_cost")),

					resource.TestCheckResourceAttr(capResData, r(1, "id"), skipped.ID),
					resource.TestCheckResourceAttr(capResData, r(1, "idle"), "true"),
					resource.TestCheckResourceAttr(capResData, r(1, "used_by.#"), "0"),
					resource.TestCheckResourceAttr(capResData, r(1, "idle_reasons.#"), "3"),
					resource.TestCheckResourceAttr(capResData, r(1, "idle_reasons.0"), cp(spot)+": "+reservations.ReasonReservedAllowed),
					resource.TestCheckResourceAttr(capResData, r(1, "idle_reasons.1"), cp(web)+": "+reservations.ReasonTypeIneligible),
					resource.TestCheckResourceAttr(capResData, r(1, "idle_reasons.2"), listed+": "+reservations.ReasonZoneNotAllowed),
					checkFloat(capResData, r(1, "idle_hourly_cost"), 0.17),
					resource.TestCheckResourceAttr(capResData, "idle_ids.#", "1"),
					resource.TestCheckResourceAttr(capResData, "idle_ids.0", skipped.ID),
				),
			},
			{
				Config: provider("  karpenter_feature_gates = [\"ReservedCapacity=false\"]\n") + data,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(capResData, r(0, "idle"), "true"),
					resource.TestCheckResourceAttr(capResData, r(0, "used_by.#"), "0"),
					resource.TestCheckResourceAttr(capResData, r(0, "idle_reasons.0"), cp(spot)+": "+gateOff),
					resource.TestCheckResourceAttr(capResData, r(0, "idle_reasons.1"), cp(web)+": "+gateOff),
					checkFloat(capResData, r(0, "idle_hourly_cost"), 2*0.096),
					resource.TestCheckResourceAttr(capResData, "idle_ids.#", "2"),
				),
			},
		},
	})

	found := false
	for _, w := range diags.warnings {
		if strings.Contains(w.detail, elsewhere) {
			t.Errorf("a warning names the NodePool on another class: %+v", w)
		}
		found = found || w.text == "Idle capacity reservation" && strings.Contains(w.detail, skipped.ID) &&
			strings.Contains(w.detail, "no pool in node_pools or NodePool of the cluster launches into it") &&
			strings.Contains(w.detail, cp(web)+": "+reservations.ReasonTypeIneligible)
	}
	if !found {
		t.Errorf("no idle warning for %s naming the cluster's NodePools; warnings: %+v", skipped.ID, diags.warnings)
	}
}
