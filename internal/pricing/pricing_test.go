package pricing

import "testing"

func testPrices() *Prices {
	return &Prices{
		Region:   "eu-west-1",
		OnDemand: map[string]float64{"m5.large": 0.107, "c5.large": 0.096},
		Spot:     map[string]map[string]float64{"m5.large": {"eu-west-1a": 0.04, "eu-west-1b": 0.05}},
	}
}

func TestPrice(t *testing.T) {
	p := testPrices()
	for _, tc := range []struct {
		typ, ct, zone string
		want          float64
		ok            bool
	}{
		{"m5.large", OnDemand, "eu-west-1a", 0.107, true},
		{"m5.large", Spot, "eu-west-1b", 0.05, true},
		{"m5.large", Spot, "eu-west-1c", 0, false}, // no spot price in that zone: unavailable
		{"c5.large", Spot, "eu-west-1a", 0, false},
		{"m5.large", Reserved, "eu-west-1a", 0.107 / ReservedDivisor, true},
		{"r5.large", Reserved, "eu-west-1a", 0, true}, // a reservation without a price stays, at zero
		{"r5.large", OnDemand, "eu-west-1a", 0, false},
		{"m5.large", "capacity-block", "eu-west-1a", 0, false},
	} {
		got, ok := p.Price(tc.typ, tc.ct, tc.zone)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Price(%s, %s, %s) = %v, %v; want %v, %v", tc.typ, tc.ct, tc.zone, got, ok, tc.want, tc.ok)
		}
	}
	p.SpotFromOnDemand = true
	if got, ok := p.Price("c5.large", Spot, "eu-west-1c"); got != 0.096 || !ok {
		t.Errorf("spot from on-demand: %v, %v", got, ok)
	}
	var none *Prices
	if _, ok := none.Price("m5.large", OnDemand, ""); ok {
		t.Error("a nil Prices knows a price")
	}
}

func TestCheapest(t *testing.T) {
	p := testPrices()
	best, price, ok := p.Cheapest("m5.large", []Offering{{OnDemand, "eu-west-1a"}, {Spot, "eu-west-1b"}, {Spot, "eu-west-1a"}, {Spot, "eu-west-1c"}})
	if !ok || price != 0.04 || best != (Offering{Spot, "eu-west-1a"}) {
		t.Errorf("Cheapest = %+v %v %v", best, price, ok)
	}
	if _, _, ok := p.Cheapest("c5.large", []Offering{{Spot, "eu-west-1a"}}); ok {
		t.Error("c5.large has no spot price, yet an offering was found")
	}
	if v, ok := p.CheapestIn("m5.large", Spot, []string{"eu-west-1b", "eu-west-1c"}); !ok || v != 0.05 {
		t.Errorf("CheapestIn spot b, c = %v %v", v, ok)
	}
	if _, ok := p.CheapestIn("m5.large", Spot, []string{"eu-west-1c"}); ok {
		t.Error("no spot price in c, yet one was found")
	}
}

func TestFallbackPrices(t *testing.T) {
	p := Fallback("ap-southeast-1", "denied")
	if p.Fallback == nil || p.Fallback.Reason != "denied" || p.Fallback.TableRegion != "us-east-1" || !p.SpotFromOnDemand {
		t.Fatalf("fallback %+v", p.Fallback)
	}
	od, ok := p.Price("m5.large", OnDemand, "ap-southeast-1a")
	spot, sok := p.Price("m5.large", Spot, "ap-southeast-1a")
	if !ok || !sok || od != spot || od <= 0 {
		t.Errorf("m5.large on-demand %v %v, spot %v %v: spot should equal on-demand", od, ok, spot, sok)
	}
	// Karpenter's table: size order and price order differ for these pairs.
	for _, pair := range [][2]string{{"t3.large", "c5.large"}, {"m6g.large", "m5.large"}} {
		a, _ := p.Price(pair[0], OnDemand, "")
		b, _ := p.Price(pair[1], OnDemand, "")
		if !(a > 0 && a < b) {
			t.Errorf("%s %v should be cheaper than %s %v", pair[0], a, pair[1], b)
		}
	}
}

// Karpenter's pricing provider starts from its embedded table and assigns the Pricing API's
// prices over it: a type the answer leaves out keeps the table's price, the answer's prices win.
func TestFromPricingAPIKeepsTheTableUnderTheAnswer(t *testing.T) {
	table, _ := FallbackOnDemand("us-west-2")
	if table["m5.large"] == 0 || table["c5.large"] == 0 {
		t.Fatal("the embedded us-west-2 table lacks m5.large or c5.large")
	}
	p := FromPricingAPI("us-west-2", map[string]float64{"m5.large": 0.5, "new.type": 1.25})
	if v, _ := p.Price("m5.large", OnDemand, ""); v != 0.5 {
		t.Errorf("m5.large: %v, want the answer's 0.5", v)
	}
	if v, ok := p.Price("new.type", OnDemand, ""); !ok || v != 1.25 {
		t.Errorf("a type only the answer prices: %v %t", v, ok)
	}
	if v, ok := p.Price("c5.large", OnDemand, ""); !ok || v != table["c5.large"] {
		t.Errorf("c5.large, which the answer leaves out: %v %t, want the table's %v", v, ok, table["c5.large"])
	}
	if p.OnDemandSource != SourcePricingAPI || p.Fallback != nil {
		t.Errorf("source %q, fallback %v", p.OnDemandSource, p.Fallback)
	}
	if table["m5.large"] == 0.5 {
		t.Error("the embedded table was modified")
	}
	// A region without a table of its own starts from us-east-1's, as Karpenter's does.
	east, _ := FallbackOnDemand("us-east-1")
	if v, _ := FromPricingAPI("xx-nowhere-1", nil).Price("m5.large", OnDemand, ""); v != east["m5.large"] {
		t.Errorf("m5.large in a region without a table: %v, want us-east-1's %v", v, east["m5.large"])
	}
}
