// Package pricing holds the hourly prices Karpenter orders instance types by: on-demand per
// region and type (the AWS Pricing API, or the table Karpenter ships when that API cannot be
// reached), spot per type and zone (EC2's spot price history), and reserved offerings priced as
// Karpenter prices them. Pure: the AWS adapter fills a Prices, the planner reads it.
package pricing

import (
	"maps"
	"math"
)

// Capacity types an offering is priced for.
const (
	OnDemand = "on-demand"
	Spot     = "spot"
	Reserved = "reserved"
)

// ReservedDivisor is what Karpenter divides a type's on-demand price by to price a capacity
// reservation's offering: nearly free, so reserved capacity orders first, yet still ordered by
// the on-demand price among reservations.
const ReservedDivisor = 10_000_000.0

// Where the prices came from.
const (
	SourcePricingAPI = "AWS Pricing API"
	SourceSpotAPI    = "EC2 spot price history"
	SourceFallback   = "Karpenter's embedded on-demand table"
)

// Prices are one region's hourly prices in USD (CNY in the China regions, as AWS bills them).
// A nil *Prices knows no price.
type Prices struct {
	Region string
	// OnDemand is USD per hour by instance type.
	OnDemand map[string]float64
	// Spot is USD per hour by instance type, then zone: the newest price EC2 reports for each.
	Spot map[string]map[string]float64
	// SpotFromOnDemand is set when spot prices could not be read: like Karpenter before its first
	// spot update, every zone's spot price is then the type's on-demand price.
	SpotFromOnDemand bool

	// OnDemandSource and SpotSource name where each side came from (Source* values).
	OnDemandSource, SpotSource string
	// Fallback is set when the on-demand side is the embedded table: its provenance and why.
	Fallback *FallbackInfo
	// SpotError says why spot prices could not be read ("" when they were).
	SpotError string
}

// FallbackInfo says which embedded table stood in for the Pricing API, and why.
type FallbackInfo struct {
	KarpenterVersion string // the Karpenter release whose generated table this is
	Generated        string // when Karpenter generated it (RFC 3339 date)
	TableRegion      string // the region whose prices were used (us-east-1 when the region has none)
	Reason           string // why the Pricing API was not used
}

// Price is the hourly price of one offering: a type as a capacity type in a zone, and whether
// it has one at all (Karpenter treats an offering without a price as unavailable).
func (p *Prices) Price(instanceType, capacityType, zone string) (float64, bool) {
	return p.Of(instanceType).Price(capacityType, zone)
}

// TypePrices are one instance type's prices, looked up once for all its offerings: a launch
// plan asks for every capacity type in every zone of each type.
type TypePrices struct {
	known                 bool // false without a price table
	onDemand              float64
	hasOnDemand, spotFrom bool
	spot                  map[string]float64
}

// Of is the prices of one instance type.
func (p *Prices) Of(instanceType string) TypePrices {
	if p == nil {
		return TypePrices{}
	}
	t := TypePrices{known: true, spotFrom: p.SpotFromOnDemand}
	t.onDemand, t.hasOnDemand = p.OnDemand[instanceType]
	if !p.SpotFromOnDemand {
		t.spot = p.Spot[instanceType]
	}
	return t
}

// Price is Prices.Price for the type.
func (t TypePrices) Price(capacityType, zone string) (float64, bool) {
	if !t.known {
		return 0, false
	}
	switch capacityType {
	case OnDemand:
		return t.onDemand, t.hasOnDemand
	case Reserved:
		if !t.hasOnDemand {
			return 0, true // Karpenter keeps a reservation without a price, at zero
		}
		return t.onDemand / ReservedDivisor, true
	case Spot:
		if t.spotFrom {
			return t.onDemand, t.hasOnDemand
		}
		v, ok := t.spot[zone]
		return v, ok
	}
	return 0, false
}

// Offering is one (capacity type, zone) a type may launch as.
type Offering struct {
	CapacityType, Zone string
}

// Cheapest is the cheapest priced offering among offerings, with its price; ok is false when
// none has a price. Ties keep the first offering given.
func (p *Prices) Cheapest(instanceType string, offerings []Offering) (best Offering, price float64, ok bool) {
	price = math.MaxFloat64
	for _, o := range offerings {
		v, has := p.Price(instanceType, o.CapacityType, o.Zone)
		if has && v < price {
			best, price, ok = o, v, true
		}
	}
	return best, price, ok
}

// CheapestIn is the lowest price of instanceType as capacityType over zones; ok is false when
// no zone has one.
func (p *Prices) CheapestIn(instanceType, capacityType string, zones []string) (price float64, ok bool) {
	offerings := make([]Offering, len(zones))
	for i, z := range zones {
		offerings[i] = Offering{CapacityType: capacityType, Zone: z}
	}
	_, price, ok = p.Cheapest(instanceType, offerings)
	return price, ok
}

// FallbackOnDemand returns the embedded on-demand table for region — the region's own when
// Karpenter's table has it, else us-east-1's, as Karpenter falls back — and its provenance.
// The map is shared: callers must not modify it.
func FallbackOnDemand(region string) (map[string]float64, FallbackInfo) {
	info := FallbackInfo{KarpenterVersion: FallbackKarpenterVersion, Generated: FallbackGenerated, TableRegion: region}
	t, ok := fallbackOnDemand[region]
	if !ok {
		info.TableRegion = "us-east-1"
		t = fallbackOnDemand["us-east-1"]
	}
	return t, info
}

// FromPricingAPI builds the on-demand side of Prices from the Pricing API's answer as Karpenter's
// pricing provider holds it: it starts from the embedded table and assigns every price the API
// returns over it, keeping the table's price of a type the answer leaves out (the table of
// Karpenter v1.15.2: older releases start from their own, which may lack newer types).
func FromPricingAPI(region string, onDemand map[string]float64) *Prices {
	table, _ := FallbackOnDemand(region)
	merged := make(map[string]float64, max(len(table), len(onDemand)))
	maps.Copy(merged, table)
	maps.Copy(merged, onDemand)
	return &Prices{Region: region, OnDemand: merged, OnDemandSource: SourcePricingAPI}
}

// Fallback builds Prices from the embedded table alone, as Karpenter starts before its first
// pricing update: on-demand from the table, spot equal to on-demand.
func Fallback(region, reason string) *Prices {
	od, info := FallbackOnDemand(region)
	info.Reason = reason
	return &Prices{Region: region, OnDemand: od, SpotFromOnDemand: true, OnDemandSource: SourceFallback,
		SpotSource: SourceFallback, Fallback: &info, SpotError: reason}
}
