package planner

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// liveNodePool is a NodePool as the API server lists it, on the node class group/kind/class,
// with requirements given as key, operator, values...
func liveNodePool(name, group, kind, class string, reqs ...[]string) map[string]any {
	var rs []any
	for _, r := range reqs {
		values := []any{}
		for _, v := range r[2:] {
			values = append(values, v)
		}
		rs = append(rs, map[string]any{"key": r[0], "operator": r[1], "values": values})
	}
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": group, "kind": kind, "name": class}, "requirements": rs}}}}
}

// ec2Pool is a NodePool on EC2NodeClass class.
func ec2Pool(name, class string, reqs ...[]string) map[string]any {
	return liveNodePool(name, "karpenter.k8s.aws", "EC2NodeClass", class, reqs...)
}

// clusterFixture is a cluster's NodePools and the catalog they are judged with, counting the
// reads of each.
type clusterFixture struct {
	pools                 []map[string]any
	listErr               error
	listCalls, catalogGot int
}

func (f *clusterFixture) ports(listed []discovery.CapacityReservation) ReservationsPorts {
	loads := 0
	prices := &pricing.Prices{Region: "us-east-1", OnDemand: map[string]float64{"m5.large": 0.096, "c5.large": 0.085},
		OnDemandSource: pricing.SourcePricingAPI}
	p := reservationPorts(listed, prices, &loads)
	p.NodePools = func(context.Context) ([]map[string]any, error) {
		f.listCalls++
		return f.pools, f.listErr
	}
	p.Catalog = func(context.Context) (*catalog.Catalog, error) {
		f.catalogGot++
		it := func(name string, vcpus, mem int) catalog.InstanceType {
			return catalog.InstanceType{Name: name, VCPUs: vcpus, MemoryMiB: mem, Architectures: []string{"x86_64"}, Hypervisor: "nitro",
				SupportsHVM: true, CurrentGeneration: true, UsageClasses: []string{"on-demand", "spot"},
				Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"}}
		}
		return catalog.New([]catalog.InstanceType{it("m5.large", 2, 8192), it("c5.large", 2, 4096)}), nil
	}
	return p
}

var (
	mCategory    = []string{"karpenter.k8s.aws/instance-category", "In", "m"}
	zonesAB      = []string{"topology.kubernetes.io/zone", "In", "us-east-1a", "us-east-1b"}
	reservedOrOD = []string{"karpenter.sh/capacity-type", "In", "reserved", "on-demand"}
	spotOnly     = []string{"karpenter.sh/capacity-type", "In", "spot"}
)

// clusterCase: class gpu selects four reservations; node_pools holds pool "configured" that uses
// only cr-d. The cluster's NodePools on gpu that node_pools lacks are judged on their
// requirements: web (category m, zones a and b, reserved allowed) takes cr-a and cr-d, not the c5
// one (type) nor the one in zone c (zone); batch (spot only) takes none. A NodePool on another
// class, one on an Auto Mode NodeClass of the same name, and "configured" itself (which the
// cluster would let take everything) are not judged.
func clusterCase() ([]discovery.CapacityReservation, ReservationsQuery, *clusterFixture) {
	listed := []discovery.CapacityReservation{
		listedReservation("cr-a", "m5.large", "us-east-1a", "active", 2),
		listedReservation("cr-b", "c5.large", "us-east-1b", "active", 1),
		listedReservation("cr-c", "m5.large", "us-east-1c", "active", 3),
		listedReservation("cr-d", "m5.large", "us-east-1b", "active", 1),
	}
	q := ReservationsQuery{
		NodeClasses: map[string][]string{"gpu": {"cr-a", "cr-b", "cr-c", "cr-d"}},
		NodePools: map[string][]launchplan.ReservationUseValue{"configured": {
			useValue("cr-a", "m5.large", "us-east-1a", 2, 0, reservations.ReasonZoneNotAllowed),
			useValue("cr-b", "c5.large", "us-east-1b", 1, 0, reservations.ReasonZoneNotAllowed),
			useValue("cr-c", "m5.large", "us-east-1c", 3, 0, reservations.ReasonZoneNotAllowed),
			useValue("cr-d", "m5.large", "us-east-1b", 1, 1, ""),
		}},
	}
	f := &clusterFixture{pools: []map[string]any{
		ec2Pool("web", "gpu", mCategory, zonesAB, reservedOrOD),
		ec2Pool("batch", "gpu", spotOnly),
		ec2Pool("elsewhere", "other"),
		ec2Pool("configured", "gpu"),
		liveNodePool("auto", "eks.amazonaws.com", "NodeClass", "gpu"),
	}}
	return listed, q, f
}

func TestReservationsClusterNodePools(t *testing.T) {
	listed, q, f := clusterCase()
	out, errs, warnings := Reservations(context.Background(), q, f.ports(listed), ReservationsFacts{})
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if f.listCalls != 1 || f.catalogGot != 1 {
		t.Errorf("listed %d times, catalog %d times; want once each", f.listCalls, f.catalogGot)
	}
	web, batch := ClusterPoolName("web"), ClusterPoolName("batch")
	if web != "NodePool web (cluster)" {
		t.Errorf("name %q", web)
	}
	if a := byID(t, out, "cr-a"); a.Idle || !reflect.DeepEqual(a.UsedBy, []string{web}) || a.IdleHourlyCost != nil {
		t.Errorf("cr-a, which web allows, is idle or not used by it: %+v", a)
	}
	if d := byID(t, out, "cr-d"); d.Idle || !reflect.DeepEqual(d.UsedBy, []string{"configured", web}) {
		t.Errorf("cr-d used by %v, want node_pools' first, then the cluster's", d.UsedBy)
	}
	b := byID(t, out, "cr-b")
	if want := []string{batch + ": " + reservations.ReasonReservedAllowed, web + ": " + reservations.ReasonTypeIneligible,
		"configured: " + reservations.ReasonZoneNotAllowed}; !b.Idle || !reflect.DeepEqual(b.IdleReasons, want) {
		t.Errorf("cr-b: idle %v, reasons %q, want %q", b.Idle, b.IdleReasons, want)
	}
	c := byID(t, out, "cr-c")
	if want := []string{batch + ": " + reservations.ReasonReservedAllowed, web + ": " + reservations.ReasonZoneNotAllowed,
		"configured: " + reservations.ReasonZoneNotAllowed}; !c.Idle || !reflect.DeepEqual(c.IdleReasons, want) {
		t.Errorf("cr-c: reasons %q, want %q", c.IdleReasons, want)
	}
	for _, v := range out.Reservations {
		for _, reason := range v.IdleReasons {
			if strings.Contains(reason, "elsewhere") || strings.Contains(reason, "auto") || strings.Contains(reason, "NodePool configured") {
				t.Errorf("%s judged by a NodePool that is not to be judged: %q", v.ID, reason)
			}
		}
	}
	if !reflect.DeepEqual(out.IdleIDs, []string{"cr-b", "cr-c"}) || len(warnings) != 2 {
		t.Fatalf("idle %v, warnings %v", out.IdleIDs, warnings)
	}
	for _, w := range warnings {
		if !strings.Contains(w.Error(), "no pool in node_pools or NodePool of the cluster launches into it") ||
			!strings.Contains(w.Error(), web+": ") {
			t.Errorf("warning:\n%s", w.Error())
		}
	}
}

// With Karpenter's ReservedCapacity gate off no cluster NodePool launches a reserved node, and
// each verdict says so; a Capacity Block in its last 40 minutes takes no launch.
func TestReservationsClusterGateAndClock(t *testing.T) {
	listed, q, f := clusterCase()
	out, _, _ := Reservations(context.Background(), q, f.ports(listed), ReservationsFacts{FeatureGates: []string{"ReservedCapacity=false"}})
	a := byID(t, out, "cr-a")
	if !a.Idle || len(a.UsedBy) != 0 || len(a.IdleReasons) != 3 {
		t.Fatalf("cr-a with the gate off: %+v", a)
	}
	for _, reason := range a.IdleReasons[:2] {
		if !strings.HasSuffix(reason, "(cluster): "+reservations.ReasonGateOff+", so none of the NodePool's launches is a `reserved` one") {
			t.Errorf("reason %q", reason)
		}
	}

	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	listed[0].ReservationType, listed[0].EndDate = reservations.TypeCapacityBlock, now.Add(10*time.Minute)
	out, _, _ = Reservations(context.Background(), q, f.ports(listed), ReservationsFacts{Now: now})
	if a := byID(t, out, "cr-a"); !a.Idle || !reflect.DeepEqual(a.IdleReasons[1], ClusterPoolName("web")+": "+reservations.ReasonExpiring) {
		t.Errorf("expiring block: %+v", a)
	}
}

// A listing the token may not make is a warning naming the RBAC, and node_pools alone judge; a
// cluster with no NodePool to judge loads no catalog; a catalog that fails is a warning.
func TestReservationsClusterFailures(t *testing.T) {
	listed, q, f := clusterCase()
	f.listErr = errors.New("the token cannot read nodepools (RBAC: get/list on nodepools.karpenter.sh): 403 Forbidden")
	out, errs, warnings := Reservations(context.Background(), q, f.ports(listed), ReservationsFacts{})
	if len(errs) != 0 || len(warnings) != 4 || warnings[0].Summary != "Cannot list the cluster's NodePools" ||
		!strings.Contains(warnings[0].Error(), "list on nodepools.karpenter.sh") {
		t.Fatalf("errors %v, warnings %v", errs, warnings)
	}
	if !reflect.DeepEqual(out.IdleIDs, []string{"cr-a", "cr-b", "cr-c"}) {
		t.Errorf("idle %v: node_pools alone leave cr-a, cr-b and cr-c idle", out.IdleIDs)
	}
	if w := warnings[1].Error(); !strings.Contains(w, "no pool in node_pools launches into it") {
		t.Errorf("idle warning after a failed listing:\n%s", w)
	}

	f.listErr, f.pools = nil, []map[string]any{ec2Pool("elsewhere", "other"), ec2Pool("configured", "gpu")}
	out, _, warnings = Reservations(context.Background(), q, f.ports(listed), ReservationsFacts{})
	if f.catalogGot != 0 || len(out.IdleIDs) != 3 || len(warnings) != 3 {
		t.Errorf("catalog loads %d, idle %v, warnings %v", f.catalogGot, out.IdleIDs, warnings)
	}

	// Nothing selected: the cluster is not asked.
	f.listCalls = 0
	_, _, warnings = Reservations(context.Background(), ReservationsQuery{}, f.ports(listed), ReservationsFacts{})
	if f.listCalls != 0 || len(warnings) != 0 {
		t.Errorf("listed %d times with no class, warnings %v", f.listCalls, warnings)
	}

	_, q, f = clusterCase()
	ports := f.ports(listed)
	ports.Catalog = func(context.Context) (*catalog.Catalog, error) {
		return nil, errors.New("DescribeInstanceTypes: throttled")
	}
	out, _, warnings = Reservations(context.Background(), q, ports, ReservationsFacts{})
	if len(out.IdleIDs) != 3 || len(warnings) != 4 || !strings.Contains(warnings[0].Error(), "throttled") ||
		!strings.Contains(warnings[1].Error(), "no pool in node_pools launches into it") {
		t.Errorf("catalog failure: idle %v, warnings %v", out.IdleIDs, warnings)
	}
}

// clusterPoolReason on requirements: a type the catalog lacks is not eligible; a NodePool
// pinned to another reservation id is not either; no capacity-type requirement allows reserved;
// requirements on custom labels do not narrow types.
func TestClusterPoolReason(t *testing.T) {
	_, _, f := clusterCase()
	cat, _ := f.ports(nil).Catalog(context.Background())
	r := reservations.Reservation{ID: "cr-x", InstanceType: "m5.large", Zone: "us-east-1a", Type: reservations.TypeDefault, Available: 1}
	pool := func(reqs ...[]string) string {
		p, err := adopt.ReadPool(ec2Pool("p", "gpu", reqs...))
		if err != nil {
			t.Fatal(err)
		}
		return clusterPoolReason(r, p.Config.Requirements(), cat, true, time.Time{})
	}
	for _, c := range []struct {
		reqs [][]string
		want string
	}{
		{nil, ""},
		{[][]string{{"team", "In", "web"}, {"kubernetes.io/os", "In", "windows"}}, ""},
		{[][]string{{"karpenter.k8s.aws/capacity-reservation-id", "In", "cr-x"}}, ""},
		{[][]string{{"karpenter.k8s.aws/capacity-reservation-id", "In", "cr-y"}}, reservations.ReasonTypeIneligible},
		{[][]string{{"node.kubernetes.io/instance-type", "NotIn", "m5.large"}}, reservations.ReasonTypeIneligible},
		{[][]string{{"topology.kubernetes.io/zone", "NotIn", "us-east-1a"}}, reservations.ReasonZoneNotAllowed},
		{[][]string{{"karpenter.sh/capacity-type", "NotIn", "reserved"}}, reservations.ReasonReservedAllowed},
	} {
		if got := pool(c.reqs...); got != c.want {
			t.Errorf("%v: %q, want %q", c.reqs, got, c.want)
		}
	}
	r.InstanceType = "p5.48xlarge"
	if got := pool(); got != reservations.ReasonTypeIneligible {
		t.Errorf("a type the catalog lacks: %q", got)
	}
}
