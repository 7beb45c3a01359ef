package launchplan

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// catalogSource answers a catalog (or err) and prices, counting the reads.
type catalogSource struct {
	cat                *catalog.Catalog
	err                error
	prices             *pricing.Prices
	catReads, priceGet int
}

func (s *catalogSource) Catalog(context.Context) (*catalog.Catalog, error) {
	s.catReads++
	return s.cat, s.err
}

func (s *catalogSource) Prices(context.Context) *pricing.Prices {
	s.priceGet++
	return s.prices
}

func findingPaths(t *testing.T, q InstanceTypesQuery) []string {
	t.Helper()
	var out []string
	for _, f := range q.Check() {
		out = append(out, f.Path.String()+"|"+f.Summary)
	}
	return out
}

func TestInstanceTypesQueryCheck(t *testing.T) {
	bad := -2
	q := InstanceTypesQuery{
		Requirements: []requirements.Requirement{req("karpenter.k8s.aws/instance-cpu", "Gt", "four"), req("kubernetes.io/arch", "Inn", "arm64"),
			req("karpenter.k8s.aws/instance-cpu", "Gt")},
		Zones: []string{zoneA, "", zoneA, ""},
		Input: capacity.Input{KubeletMaxPods: &bad},
	}
	want := []string{"requirements[0].values|Invalid requirement", "requirements[1].operator|Invalid requirement",
		"requirements[2].values|Invalid requirement", "zones[1]|Invalid zone", "zones[2]|Duplicate zone", "zones[3]|Invalid zone",
		"kubelet_max_pods|Invalid kubelet_max_pods"}
	if got := findingPaths(t, q); !slices.Equal(got, want) {
		t.Errorf("findings\n got %q\nwant %q", got, want)
	}
	// Entries not known yet are left alone, and so is a list of interfaces.
	q.UnknownRequirements, q.UnknownZones = map[int]bool{2: true}, map[int]bool{3: true}
	q.Input = capacity.Input{NetworkInterfaces: []capacity.Interface{{}}, NetworkInterfacesUnknown: true}
	want = append(want[:2:2], want[3:5]...)
	if got := findingPaths(t, q); !slices.Equal(got, want) {
		t.Errorf("with unknowns\n got %q\nwant %q", got, want)
	}
}

func TestReadInstanceTypes(t *testing.T) {
	ctx := context.Background()
	src := &catalogSource{cat: fixtureCatalog(), prices: fixturePrices()}
	out, errs, warnings := ReadInstanceTypes(ctx, src, "us-west-2", InstanceTypesQuery{Zones: []string{zoneC},
		Requirements: []requirements.Requirement{req("kubernetes.io/arch", requirements.OpIn, "amd64")}})
	if len(errs) != 0 || len(warnings) != 0 || out.AMIFamily != capacity.DefaultFamily ||
		out.Prices != pricing.SourcePricingAPI+" and "+pricing.SourceSpotAPI {
		t.Fatalf("read: %+v, %v, %v", out, errs, warnings)
	}
	wantNames := []string{"c5n.18xlarge", "m4.large", "m5.large", "m5.xlarge", "p5.48xlarge", "t3.micro"} // sorted; no c7g (arm64, not in C)
	if !slices.Equal(out.Names, wantNames) || len(out.InstanceTypes) != len(wantNames) {
		t.Fatalf("names %v", out.Names)
	}
	for i, o := range out.InstanceTypes {
		od := fixturePrices().OnDemand[o.Name]
		if o.Name != out.Names[i] || o.OnDemandPrice == nil || *o.OnDemandPrice != od || o.SpotPrice == nil || *o.SpotPrice != od*0.5 ||
			!slices.Equal(o.Zones, []string{zoneC}) || o.MaxPods == 0 {
			t.Errorf("%s: %+v", o.Name, o)
		}
	}
	if src.catReads != 1 || src.priceGet != 1 {
		t.Errorf("%d catalog reads, %d price reads", src.catReads, src.priceGet)
	}

	// A type without a price has nil prices; Windows lists amd64 types only.
	prices := fixturePrices()
	delete(prices.OnDemand, "m5.large")
	delete(prices.Spot, "m5.large")
	out = InstanceTypes(fixtureCatalog().List(catalog.ListQuery{Region: "us-west-2"}).Types, prices, "Windows2022")
	if i := slices.Index(out.Names, "m5.large"); i < 0 || out.InstanceTypes[i].OnDemandPrice != nil || out.InstanceTypes[i].SpotPrice != nil ||
		out.AMIFamily != "Windows2022" {
		t.Errorf("unpriced: %+v", out)
	}
	out, _, _ = ReadInstanceTypes(ctx, src, "us-west-2", InstanceTypesQuery{Input: capacity.Input{AMIFamily: "Windows2022"},
		Requirements: []requirements.Requirement{req("kubernetes.io/os", requirements.OpIn, "windows")}})
	if slices.Contains(out.Names, "c7g.large") || len(out.Names) == 0 {
		t.Errorf("windows: %v", out.Names)
	}
	// No prices at all: every price nil, the source empty.
	if out := InstanceTypes(fixtureCatalog().List(catalog.ListQuery{Region: "us-west-2"}).Types, nil, ""); out.Prices != "" ||
		out.InstanceTypes[0].OnDemandPrice != nil || out.AMIFamily != capacity.DefaultFamily {
		t.Errorf("no prices: %+v", out.InstanceTypes[0])
	}
}

func TestReadInstanceTypesErrors(t *testing.T) {
	ctx := context.Background()
	src := &catalogSource{cat: fixtureCatalog(), prices: fixturePrices()}
	// An invalid query reads nothing.
	if _, errs, _ := ReadInstanceTypes(ctx, src, "us-west-2", InstanceTypesQuery{Zones: []string{""}}); len(errs) != 1 ||
		src.catReads != 0 {
		t.Errorf("invalid query: %v, %d reads", errs, src.catReads)
	}
	// The listing's errors stop the read before the prices.
	_, errs, _ := ReadInstanceTypes(ctx, src, "us-west-2", InstanceTypesQuery{Zones: []string{"us-west-2z"}})
	if len(errs) != 1 || errs[0].Path.String() != "zones[0]" || !strings.Contains(errs[0].Message, "is not an availability zone") ||
		src.priceGet != 0 {
		t.Errorf("unknown zone: %v, %d price reads", errs, src.priceGet)
	}
	_, errs, _ = ReadInstanceTypes(ctx, &catalogSource{err: errors.New("throttled")}, "us-west-2", InstanceTypesQuery{})
	if len(errs) != 1 || errs[0].Summary != "Cannot read EC2 instance types" {
		t.Errorf("catalog error: %v", errs)
	}
	// A requirement the listing does not evaluate is a warning.
	_, errs, warnings := ReadInstanceTypes(ctx, src, "us-west-2", InstanceTypesQuery{
		Requirements: []requirements.Requirement{req("topology.k8s.aws/zone-id", requirements.OpIn, "usw2-az1")}})
	if len(errs) != 0 || len(warnings) != 1 || warnings[0].Path.String() != "requirements[0].key" {
		t.Errorf("not evaluated: %v, %v", errs, warnings)
	}
}
