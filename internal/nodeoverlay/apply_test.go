package nodeoverlay

import (
	"math"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func ptr[T any](v T) *T { return &v }

func in(key string, values ...string) Requirement {
	return Requirement{Key: key, Operator: requirements.OpIn, Values: values}
}

var (
	odA   = Offering{CapacityType: "on-demand", Zone: "za"}
	spotA = Offering{CapacityType: "spot", Zone: "za"}
	odB   = Offering{CapacityType: "on-demand", Zone: "zb"}
)

func testTypes() []Type {
	mk := func(name, family, arch string) Type {
		return Type{Name: name, Labels: map[string]string{requirements.LabelInstanceType: name, requirements.LabelInstanceFamily: family,
			requirements.LabelArch: arch, requirements.LabelNodePool: "general"}, Offerings: []Offering{odA, spotA, odB}}
	}
	return []Type{mk("m5.large", "m5", "amd64"), mk("m5.xlarge", "m5", "amd64"), mk("m7g.large", "m7g", "arm64")}
}

func TestAdjustedPriceForms(t *testing.T) {
	for _, c := range []struct {
		change string
		want   float64
	}{
		{"", 0.1}, {"0.05", 0.05}, {"+0.02", 0.12}, {"-0.02", 0.08}, {"-0.5", 0}, {"+10%", 0.11}, {"-90%", 0.01}, {"-100%", 0}, {"+250%", 0.35},
	} {
		if got := AdjustedPrice(0.1, c.change); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("AdjustedPrice(0.1, %q) = %v, want %v", c.change, got, c.want)
		}
	}
}

func TestOrderedIsWeightThenReverseName(t *testing.T) {
	got := Ordered([]Config{{Name: "a"}, {Name: "c", Weight: ptr[int64](5)}, {Name: "b"}, {Name: "d", Weight: ptr[int64](5)}, {Name: "e", Weight: ptr[int64](10)}})
	var names []string
	for _, o := range got {
		names = append(names, o.Name)
	}
	if strings.Join(names, ",") != "e,d,c,b,a" {
		t.Fatalf("order %v, want e,d,c,b,a", names)
	}
}

func TestHeavierOverlayWinsAnOffering(t *testing.T) {
	a := Apply([]Config{
		{Name: "family", Requirements: []Requirement{in(requirements.LabelInstanceFamily, "m5")}, PriceAdjustment: ptr("-50%"), Weight: ptr[int64](1)},
		{Name: "spot-large", Requirements: []Requirement{in(requirements.LabelInstanceType, "m5.large"), in(requirements.LabelCapacityType, "spot")},
			Price: ptr("0.001"), Weight: ptr[int64](20)},
	}, testTypes())
	if len(a.Conflicts) != 0 {
		t.Fatalf("conflicts %v", a.Conflicts)
	}
	check := func(name string, of Offering, want float64, wantOverlay string) {
		t.Helper()
		got, ok, by := a.Price(name, of, 0.1, true)
		if !ok || math.Abs(got-want) > 1e-12 || by != wantOverlay {
			t.Errorf("%s %v: %v %v by %q, want %v by %q", name, of, got, ok, by, want, wantOverlay)
		}
	}
	check("m5.large", spotA, 0.001, "spot-large") // the heavier overlay's absolute price
	check("m5.large", odA, 0.05, "family")        // only the family overlay selects on-demand
	check("m5.xlarge", spotA, 0.05, "family")
	check("m7g.large", odA, 0.1, "") // selected by neither
	if a.Changes("m7g.large") || !a.Changes("m5.xlarge") {
		t.Error("Changes disagrees with the prices")
	}
}

func TestSameWeightOnOneOfferingIsAConflict(t *testing.T) {
	a := Apply([]Config{
		{Name: "alpha", Requirements: []Requirement{in(requirements.LabelInstanceType, "m5.large")}, Price: ptr("0.01")},
		{Name: "beta", Requirements: []Requirement{in(requirements.LabelInstanceFamily, "m5")}, PriceAdjustment: ptr("+1")},
	}, testTypes())
	// Both weigh 0; beta goes first (reverse name order) and alpha, which also prices m5.large, is ignored.
	if len(a.Conflicts) != 1 || a.Conflicts[0].Overlay != "alpha" || a.Conflicts[0].With != "beta" || a.Conflicts[0].InstanceType != "m5.large" {
		t.Fatalf("conflicts %+v", a.Conflicts)
	}
	if got, _, by := a.Price("m5.large", odA, 0.1, true); math.Abs(got-1.1) > 1e-12 || by != "beta" {
		t.Errorf("m5.large at %v by %q, want 1.1 by beta", got, by)
	}
	if !strings.Contains(a.Conflicts[0].String(), "Karpenter ignores alpha") {
		t.Errorf("message %q", a.Conflicts[0].String())
	}
}

func TestDisjointOfferingsOfOneWeightDoNotConflict(t *testing.T) {
	a := Apply([]Config{
		{Name: "spot", Requirements: []Requirement{in(requirements.LabelCapacityType, "spot")}, PriceAdjustment: ptr("-10%")},
		{Name: "od", Requirements: []Requirement{in(requirements.LabelCapacityType, "on-demand")}, PriceAdjustment: ptr("+10%")},
	}, testTypes())
	if len(a.Conflicts) != 0 {
		t.Fatalf("conflicts %v", a.Conflicts)
	}
	if s, _, _ := a.Price("m5.large", spotA, 1, true); math.Abs(s-0.9) > 1e-12 {
		t.Errorf("spot %v", s)
	}
	if o, _, _ := a.Price("m5.large", odB, 1, true); math.Abs(o-1.1) > 1e-12 {
		t.Errorf("on-demand %v", o)
	}
}

func TestCapacityMergesByWeightAndConflictsOnOneResource(t *testing.T) {
	a := Apply([]Config{
		{Name: "heavy", Requirements: []Requirement{in(requirements.LabelInstanceFamily, "m5")}, Capacity: map[string]string{"example.com/slot": "4"},
			Weight: ptr[int64](10)},
		{Name: "light", Requirements: []Requirement{in(requirements.LabelArch, "amd64")},
			Capacity: map[string]string{"example.com/slot": "1", "example.com/disk": "2"}, Weight: ptr[int64](5)},
		{Name: "light-too", Requirements: []Requirement{in(requirements.LabelInstanceType, "m5.large")},
			Capacity: map[string]string{"example.com/disk": "9"}, Weight: ptr[int64](5)},
	}, testTypes())
	q, from := a.Capacity("m5.large")
	// light-too goes before light (equal weights, reverse name order); light then adds
	// example.com/disk to m5.large at the same weight: a conflict, and Karpenter ignores light.
	if q["example.com/slot"] != "4" || from["example.com/slot"] != "heavy" || q["example.com/disk"] != "9" || from["example.com/disk"] != "light-too" {
		t.Errorf("m5.large capacity %v from %v", q, from)
	}
	if len(a.Conflicts) != 1 || a.Conflicts[0].Overlay != "light" || a.Conflicts[0].With != "light-too" {
		t.Errorf("conflicts %+v, want light against light-too (weight 5, example.com/disk)", a.Conflicts)
	}
	if q, _ := a.Capacity("m5.xlarge"); q["example.com/disk"] != "" || q["example.com/slot"] != "4" {
		t.Errorf("m5.xlarge capacity %v: the ignored overlay added to it", q)
	}
	if q, _ := a.Capacity("m7g.large"); q != nil {
		t.Errorf("m7g.large capacity %v", q)
	}
}

func TestOverlaySelectsByPoolAndCustomLabels(t *testing.T) {
	types := testTypes()
	a := Apply([]Config{
		{Name: "other-pool", Requirements: []Requirement{in(requirements.LabelNodePool, "batch")}, PriceAdjustment: ptr("-50%")},
		{Name: "team", Requirements: []Requirement{in("example.com/team", "a")}, PriceAdjustment: ptr("-50%"), Weight: ptr[int64](3)},
		{Name: "not-team", Requirements: []Requirement{{Key: "example.com/team", Operator: requirements.OpNotIn, Values: []string{"a"}}},
			PriceAdjustment: ptr("+1"), Weight: ptr[int64](2)},
	}, types)
	if p, _, by := a.Price("m5.large", odA, 1, true); p != 2 || by != "not-team" {
		t.Errorf("a pool without the team label: %v by %q, want 2 by not-team (NotIn allows an absent label)", p, by)
	}
	for i := range types {
		types[i].Labels["example.com/team"] = "a"
	}
	a = Apply([]Config{{Name: "team", Requirements: []Requirement{in("example.com/team", "a")}, PriceAdjustment: ptr("-50%")}}, types)
	if p, _, by := a.Price("m5.large", odA, 1, true); p != 0.5 || by != "team" {
		t.Errorf("a pool labelled team=a: %v by %q", p, by)
	}
}

func TestFallbackPriceForAnUnpricedType(t *testing.T) {
	a := Apply([]Config{
		{Name: "priced", Requirements: []Requirement{in(requirements.LabelInstanceType, "x9.large")}, Price: ptr("0.3")},
		{Name: "two-reqs", Requirements: []Requirement{in(requirements.LabelInstanceType, "x8.large"), in(requirements.LabelArch, "amd64")}, Price: ptr("0.3")},
	}, testTypes())
	if p, ok, _ := a.Price("x9.large", odA, 0, false); !ok || p != 0.3 {
		t.Errorf("x9.large: %v %v, want the overlay's 0.3", p, ok)
	}
	if _, ok, _ := a.Price("x8.large", odA, 0, false); ok {
		t.Error("an overlay with two requirements gave an unpriced type a price; Karpenter only takes instance-type-only overlays")
	}
}

// Requirements on one key are merged before they are judged, as Karpenter merges them: In with
// DoesNotExist leaves nothing a label could carry, so a type without the label is selected.
func TestRequirementsOnOneKeyMerge(t *testing.T) {
	a := Apply([]Config{{Name: "merged", Requirements: []Requirement{in("example.com/team", "a"),
		{Key: "example.com/team", Operator: requirements.OpDoesNotExist}}, PriceAdjustment: ptr("-50%")}}, testTypes())
	if p, _, by := a.Price("m5.large", odA, 1, true); p != 0.5 || by != "merged" {
		t.Errorf("m5.large %v by %q: Karpenter selects a type without the label here", p, by)
	}
}
