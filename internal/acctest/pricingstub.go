package acctest

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	smithy "github.com/aws/smithy-go"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
)

// PricingStub is one loopback endpoint for both the AWS Pricing API and EC2, for tests of
// price-ordered launch plans. LocalStack serves neither real on-demand prices (GetProducts) nor
// a spot price history worth ordering by; the stub answers both from the prices a test seeds,
// with internal/awsfake's Pricing and EC2 fakes (the Pricing API's JSON 1.1 protocol and its
// GetProducts filters and pages; EC2's query protocol for DescribeSpotPriceHistory). It records
// every EC2 CreateFleet request (so a test can read the overrides and allocation strategies a
// plan sent) and forwards it, and every other EC2 call, to LocalStack (Endpoint()). Point both
// `endpoints.ec2` and `endpoints.pricing` at URL().
type PricingStub struct {
	front *fakeFront

	// Guarded by front.mu.
	onDemand   map[string]map[string]float64 // region -> type -> price per hour
	spot       map[string]map[string]float64 // type -> zone -> price per hour
	staleSpot  bool
	spotNow    time.Time // when the spot records are dated from: the first DescribeSpotPriceHistory
	fleetForms []url.Values
}

// NewPricingStub starts a stub in front of Endpoint() for the test.
func NewPricingStub(t testing.TB) *PricingStub {
	t.Helper()
	s, err := StartPricingStub()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// StartPricingStub starts a stub in front of Endpoint() outside a test (cmd/bench); Close
// stops it.
func StartPricingStub() (*PricingStub, error) {
	front, err := startFakeFront("pricing stub", "DescribeSpotPriceHistory")
	if err != nil {
		return nil, err
	}
	s := &PricingStub{front: front, onDemand: map[string]map[string]float64{}, spot: map[string]map[string]float64{}}
	s.front.pricing = &awsfake.Pricing{}
	s.front.observe = func(action string, form url.Values) {
		switch action {
		case "CreateFleet":
			s.fleetForms = append(s.fleetForms, cloneForm(form))
		case "DescribeSpotPriceHistory":
			if s.spotNow.IsZero() {
				// One clock per stub: the pages of one listing agree.
				s.spotNow = time.Now().UTC().Truncate(time.Second)
				s.setSpotRecords()
			}
		}
	}
	return s, nil
}

// Close stops the stub.
func (s *PricingStub) Close() { s.front.server.Close() }

// URL is the stub's endpoint, for the provider's `endpoints.ec2` and `endpoints.pricing`.
func (s *PricingStub) URL() string { return s.front.URL() }

// SetOnDemand replaces the on-demand prices (USD per hour; CNY is answered for cn-* regions)
// GetProducts serves for region. Types whose name contains ".metal" are bare metal: they answer
// Karpenter's Dedicated / "Compute Instance (bare metal)" query, the others its Shared /
// "Compute Instance" one (awsfake.OnDemandProduct).
func (s *PricingStub) SetOnDemand(region string, prices map[string]float64) {
	s.front.change(func() {
		s.onDemand[region] = maps.Clone(prices)
		var docs []string
		for _, r := range slices.Sorted(maps.Keys(s.onDemand)) {
			for _, typ := range slices.Sorted(maps.Keys(s.onDemand[r])) {
				docs = append(docs, awsfake.OnDemandProduct(r, typ, s.onDemand[r][typ]))
			}
		}
		s.front.pricing.Products = docs
	})
}

// SetSpot replaces the spot prices (type -> zone -> price per hour) DescribeSpotPriceHistory
// serves: one record per type and zone, a minute old.
func (s *PricingStub) SetSpot(prices map[string]map[string]float64) {
	s.front.change(func() {
		s.spot = make(map[string]map[string]float64, len(prices))
		for t, zones := range prices {
			s.spot[t] = maps.Clone(zones)
		}
		s.setSpotRecords()
	})
}

// SetStaleSpotRecords makes DescribeSpotPriceHistory answer, after each current record, an
// older one of the same type and zone at another price (ten times the current plus 1): a reader
// that does not keep the newest timestamp picks the stale price.
func (s *PricingStub) SetStaleSpotRecords(on bool) {
	s.front.change(func() {
		s.staleSpot = on
		s.setSpotRecords()
	})
}

// setSpotRecords writes the seeded spot prices into the EC2 fake, sorted by type and zone
// (front.mu held). Before the first DescribeSpotPriceHistory they wait for its clock.
func (s *PricingStub) setSpotRecords() {
	if s.spotNow.IsZero() {
		return
	}
	record := func(typ, zone string, price float64, at time.Time) ec2types.SpotPrice {
		return ec2types.SpotPrice{InstanceType: ec2types.InstanceType(typ), ProductDescription: ec2types.RIProductDescriptionLinuxUnix,
			AvailabilityZone: aws.String(zone), SpotPrice: aws.String(strconv.FormatFloat(price, 'f', 6, 64)), Timestamp: aws.Time(at)}
	}
	var records []ec2types.SpotPrice
	for _, typ := range slices.Sorted(maps.Keys(s.spot)) {
		for _, z := range slices.Sorted(maps.Keys(s.spot[typ])) {
			p := s.spot[typ][z]
			records = append(records, record(typ, z, p, s.spotNow.Add(-time.Minute)))
			if s.staleSpot {
				records = append(records, record(typ, z, 10*p+1, s.spotNow.Add(-3*time.Hour)))
			}
		}
	}
	s.front.ec2.SpotPrices = records
}

// DenyPricing makes GetProducts answer AccessDeniedException (as for a role without
// pricing:GetProducts), to test the fallback to the embedded table.
func (s *PricingStub) DenyPricing(on bool) {
	s.front.change(func() {
		s.front.pricing.Fail = nil
		if on {
			s.front.pricing.Fail = map[string]error{"GetProducts": &pricingtypes.AccessDeniedException{Message: aws.String(
				"User: arn:aws:sts::000000000000:assumed-role/stub/stub is not authorized to perform: pricing:GetProducts")}}
		}
	})
}

// FailSpot makes DescribeSpotPriceHistory answer the EC2 error code (e.g.
// "UnauthorizedOperation"); "" answers normally again.
func (s *PricingStub) FailSpot(code string) {
	s.front.change(func() {
		s.front.ec2.Fail = nil
		if code != "" {
			s.front.ec2.Fail = map[string]error{"DescribeSpotPriceHistory": &smithy.GenericAPIError{Code: code, Message: "stub: " + code, Fault: smithy.FaultClient}}
		}
	})
}

// SetPageSize caps the page size of both stubbed calls below what the request asks (0: the
// request's MaxResults, or the API's default), to exercise pagination.
func (s *PricingStub) SetPageSize(n int) {
	s.front.change(func() {
		s.front.pricing.PageSize = map[string]int{"GetProducts": n}
		s.front.ec2.PageSize = map[string]int{"DescribeSpotPriceHistory": n}
	})
}

// Calls is how many requests of action the stub received ("GetProducts",
// "DescribeSpotPriceHistory", "CreateFleet", and every forwarded EC2 action).
func (s *PricingStub) Calls(action string) int { return s.front.Calls(action) }

// CreateFleetRequests are the forms of the CreateFleet requests received, in order (keys such
// as LaunchTemplateConfigs.1.Overrides.2.InstanceType, OnDemandOptions.AllocationStrategy,
// SpotOptions.AllocationStrategy, TargetCapacitySpecification.DefaultTargetCapacityType).
func (s *PricingStub) CreateFleetRequests() []url.Values {
	s.front.mu.Lock()
	defer s.front.mu.Unlock()
	out := make([]url.Values, len(s.fleetForms))
	for i, f := range s.fleetForms {
		out[i] = cloneForm(f)
	}
	return out
}

// String describes the stub for failure messages.
func (s *PricingStub) String() string {
	return fmt.Sprintf("pricing stub at %s in front of %s", s.URL(), Endpoint())
}

func cloneForm(f url.Values) url.Values {
	out := make(url.Values, len(f))
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}
