package launchplan

import (
	"context"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// The karpenter_instance_types read: the catalog's listing (catalog.List) with prices.

// InstanceTypesQuery is a karpenter_instance_types configuration, decoded by its attribute
// names; the shell marks the entries known only after apply.
type InstanceTypesQuery struct {
	Requirements []requirements.Requirement `tfsdk:"requirements"`
	Zones        []string                   `tfsdk:"zones"`
	capacity.Input
	// UnknownRequirements and UnknownZones are the indexes of the entries not known yet, which
	// Check leaves alone until they are.
	UnknownRequirements, UnknownZones map[int]bool
	// The read's answer (InstanceTypesResult), not part of the query.
	_ struct{} `tfsdk:"instance_types"`
	_ struct{} `tfsdk:"names"`
	_ struct{} `tfsdk:"prices"`
}

// Check reports the query's problems: the requirements' (on requirements[i].<field>), the
// zones' (zones[i]) and the CNI inputs'.
func (q InstanceTypesQuery) Check() []attrpath.Finding {
	errs := attrpath.WithSummary("Invalid requirement",
		attrpath.Under(attrpath.Of("requirements"), requirements.ValidateKnown(q.Requirements, q.UnknownRequirements)))
	errs = append(errs, catalog.CheckZoneNames(q.Zones, q.UnknownZones)...)
	return append(errs, capacity.InputFindings(q.Settings())...)
}

// InstanceTypesResult is what a karpenter_instance_types read computes, shaped as its schema.
type InstanceTypesResult struct {
	AMIFamily     string               `tfsdk:"ami_family"`
	InstanceTypes []catalog.TypeOutput `tfsdk:"instance_types"`
	Names         []string             `tfsdk:"names"`
	Prices        string               `tfsdk:"prices"`
}

// CatalogSource is where the read finds the region's catalog and prices (awsclient.Client).
type CatalogSource interface {
	catalog.Source
	Prices(context.Context) *pricing.Prices
}

// ReadInstanceTypes answers a karpenter_instance_types read: the query's problems (Check), a
// catalog that cannot be read or the listing's errors; else the listed types with their
// prices (InstanceTypes), and the listing's warnings. Prices are read only for a listing.
func ReadInstanceTypes(ctx context.Context, src CatalogSource, region string, q InstanceTypesQuery) (InstanceTypesResult, []attrpath.Finding, []attrpath.Finding) {
	if errs := q.Check(); len(errs) > 0 {
		return InstanceTypesResult{}, errs, nil
	}
	cat, errs := catalog.Load(ctx, src)
	if cat == nil {
		return InstanceTypesResult{}, errs, nil
	}
	s := q.Settings()
	listing := cat.List(catalog.ListQuery{Requirements: q.Requirements, Zones: q.Zones, Region: region, Settings: s,
		WindowsBuild: WindowsBuild(s.AMIFamily)})
	if len(listing.Errors) > 0 {
		return InstanceTypesResult{}, listing.Errors, nil
	}
	return InstanceTypes(listing.Types, src.Prices(ctx), s.AMIFamily), nil, listing.Warnings
}

// InstanceTypes are the listed types as the read reports them: each with its cheapest
// on-demand and spot price over its zones (nil without one), their names in the same order,
// the AMI family resolved and where the prices came from.
func InstanceTypes(types []catalog.Listed, prices *pricing.Prices, family string) InstanceTypesResult {
	out := InstanceTypesResult{AMIFamily: capacity.ResolveFamily(family), Prices: PriceSource(prices),
		InstanceTypes: make([]catalog.TypeOutput, 0, len(types)), Names: make([]string, 0, len(types))}
	for _, t := range types {
		o := t.Output()
		o.OnDemandPrice = priceOrNil(prices.CheapestIn(t.Type.Name, pricing.OnDemand, t.Zones))
		o.SpotPrice = priceOrNil(prices.CheapestIn(t.Type.Name, pricing.Spot, t.Zones))
		out.InstanceTypes = append(out.InstanceTypes, o)
		out.Names = append(out.Names, t.Type.Name)
	}
	return out
}

// priceOrNil is a price, or nil (null) when there is none.
func priceOrNil(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}
