package awsclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	smithy "github.com/aws/smithy-go"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
)

// m5LargeDoc is one GetProducts PriceList entry in the shape AWS answers (trimmed attributes,
// the real nesting: product.attributes, terms.OnDemand.<offer>.priceDimensions.<rate>).
const m5LargeDoc = `{
  "product": {
    "productFamily": "Compute Instance",
    "attributes": {
      "enhancedNetworkingSupported": "Yes",
      "intelTurboAvailable": "Yes",
      "memory": "8 GiB",
      "vcpu": "2",
      "capacitystatus": "Used",
      "locationType": "AWS Region",
      "storage": "EBS only",
      "instanceFamily": "General purpose",
      "operatingSystem": "Linux",
      "regionCode": "us-east-1",
      "physicalProcessor": "Intel Xeon Platinum 8175",
      "servicename": "Amazon Elastic Compute Cloud",
      "instanceType": "m5.large",
      "tenancy": "Shared",
      "usagetype": "BoxUsage:m5.large",
      "normalizationSizeFactor": "4",
      "preInstalledSw": "NA",
      "location": "US East (N. Virginia)",
      "servicecode": "AmazonEC2",
      "licenseModel": "No License required",
      "operation": "RunInstances",
      "marketoption": "OnDemand"
    },
    "sku": "2WTMTR9HDDT7AA73"
  },
  "serviceCode": "AmazonEC2",
  "terms": {
    "OnDemand": {
      "2WTMTR9HDDT7AA73.JRTCKXETXF": {
        "priceDimensions": {
          "2WTMTR9HDDT7AA73.JRTCKXETXF.6YS6EN2CT7": {
            "unit": "Hrs",
            "endRange": "Inf",
            "description": "$0.096 per On Demand Linux m5.large Instance Hour",
            "appliesTo": [],
            "rateCode": "2WTMTR9HDDT7AA73.JRTCKXETXF.6YS6EN2CT7",
            "beginRange": "0",
            "pricePerUnit": {"USD": "0.0960000000"}
          }
        },
        "sku": "2WTMTR9HDDT7AA73",
        "effectiveDate": "2025-11-01T00:00:00Z",
        "offerTermCode": "JRTCKXETXF",
        "termAttributes": {}
      }
    }
  },
  "version": "20251120184325",
  "publicationDate": "2025-11-20T18:43:25Z"
}`

// priceDoc is a compact PriceList entry of the same shape: a shared Linux instance in us-east-1.
func priceDoc(instanceType, currency, price string) string {
	return priceDocFor("us-east-1", "Shared", "Compute Instance", instanceType, currency, price)
}

// priceDocFor is a compact entry of a Linux on-demand product of the region, tenancy and
// product family (the attributes Karpenter's queries filter on).
func priceDocFor(region, tenancy, family, instanceType, currency, price string) string {
	return fmt.Sprintf(`{"product":{"productFamily":%q,"attributes":{"instanceType":%q,"operatingSystem":"Linux","regionCode":%q,"tenancy":%q,`+
		`"preInstalledSw":"NA","capacitystatus":"Used","marketoption":"OnDemand"},"sku":"SKU"},`+
		`"serviceCode":"AmazonEC2","terms":{"OnDemand":{"SKU.T":{"priceDimensions":{"SKU.T.R":{"unit":"Hrs","pricePerUnit":{%q:%q}}},`+
		`"sku":"SKU","offerTermCode":"T"}}}}`, family, instanceType, region, tenancy, currency, price)
}

func TestParsePriceListItem(t *testing.T) {
	for _, tc := range []struct {
		name, doc, currency string
		wantType            string
		want                float64
		wantOK              bool
	}{
		{"real shape", m5LargeDoc, "USD", "m5.large", 0.096, true},
		{"compact", priceDoc("c5.xlarge", "USD", "0.17"), "USD", "c5.xlarge", 0.17, true},
		{"CNY region", priceDoc("m5.large", "CNY", "0.861"), "CNY", "m5.large", 0.861, true},
		{"other currency only", priceDoc("m5.large", "CNY", "0.861"), "USD", "", 0, false},
		{"zero price", priceDoc("t2.nano", "USD", "0.0000000000"), "USD", "", 0, false},
		{"unparsable price", priceDoc("t2.nano", "USD", "n/a"), "USD", "", 0, false},
		{"no instance type", priceDoc("", "USD", "0.1"), "USD", "", 0, false},
		{"not JSON", `{"product":`, "USD", "", 0, false},
		{"no terms", `{"product":{"attributes":{"instanceType":"m5.large"}}}`, "USD", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ, v, ok := parsePriceListItem(tc.doc, tc.currency)
			if typ != tc.wantType || v != tc.want || ok != tc.wantOK {
				t.Fatalf("got (%q, %v, %v), want (%q, %v, %v)", typ, v, ok, tc.wantType, tc.want, tc.wantOK)
			}
		})
	}
}

// newPricingFake holds us-east-1's shared products (two pages of two) and one dedicated one.
func newPricingFake() *awsfake.Pricing {
	return &awsfake.Pricing{PageSize: map[string]int{"GetProducts": 2}, Products: []string{
		m5LargeDoc, priceDoc("c5.xlarge", "USD", "0.17"),
		priceDoc("t3.micro", "USD", "0.0104"), priceDoc("t2.nano", "USD", "0"),
		priceDocFor("us-east-1", "Dedicated", "Compute Instance (bare metal)", "m5.metal", "USD", "4.608"),
	}}
}

var spotNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func spotRecord(typ, zone, price string, age time.Duration) ec2types.SpotPrice {
	ts := spotNow.Add(-age)
	return ec2types.SpotPrice{InstanceType: ec2types.InstanceType(typ), AvailabilityZone: aws.String(zone),
		ProductDescription: ec2types.RIProductDescriptionLinuxUnix, SpotPrice: aws.String(price), Timestamp: &ts}
}

// newSpotFake is an EC2 with a spot price history of two pages.
func newSpotFake() *awsfake.EC2 {
	return &awsfake.EC2{PageSize: map[string]int{"DescribeSpotPriceHistory": 2}, SpotPrices: []ec2types.SpotPrice{
		spotRecord("m5.large", "us-east-1a", "0.0350", time.Minute), spotRecord("m5.large", "us-east-1b", "0.0410", time.Minute),
		spotRecord("c5.xlarge", "us-east-1a", "0.0690", time.Minute),
	}}
}

func pricesTestClient(region string, p PricingAPI, ec EC2API) *Client {
	return &Client{EC2: ec, Pricing: p, Region: region, Calls: NewCallCounter()}
}

func TestLoadOnDemandPricesQueriesFiltersAndPages(t *testing.T) {
	f := newPricingFake()
	got, err := LoadOnDemandPrices(context.Background(), f, "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"m5.large": 0.096, "c5.xlarge": 0.17, "t3.micro": 0.0104, "m5.metal": 4.608}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("prices %v, want %v", got, want)
	}
	// Shared: two pages; Dedicated: one.
	if f.Calls("GetProducts") != 3 {
		t.Fatalf("%d GetProducts calls, want 3", f.Calls("GetProducts"))
	}
	base := []string{"TERM_MATCH regionCode=us-east-1", "TERM_MATCH serviceCode=AmazonEC2", "TERM_MATCH preInstalledSw=NA",
		"TERM_MATCH operatingSystem=Linux", "TERM_MATCH capacitystatus=Used", "TERM_MATCH marketoption=OnDemand"}
	wantFilters := map[string][]string{
		"Shared":    append(slices.Clone(base), "TERM_MATCH tenancy=Shared", "TERM_MATCH productFamily=Compute Instance"),
		"Dedicated": append(slices.Clone(base), "TERM_MATCH tenancy=Dedicated", "TERM_MATCH productFamily=Compute Instance (bare metal)"),
	}
	tokens := map[string][]string{}
	for _, in := range awsfake.Inputs[awspricing.GetProductsInput](f) {
		if aws.ToString(in.ServiceCode) != "AmazonEC2" || aws.ToInt32(in.MaxResults) != 100 {
			t.Errorf("ServiceCode %q, MaxResults %d", aws.ToString(in.ServiceCode), aws.ToInt32(in.MaxResults))
		}
		var filters []string
		tenancy := ""
		for _, fl := range in.Filters {
			filters = append(filters, fmt.Sprintf("%s %s=%s", fl.Type, aws.ToString(fl.Field), aws.ToString(fl.Value)))
			if aws.ToString(fl.Field) == "tenancy" {
				tenancy = aws.ToString(fl.Value)
			}
		}
		if !reflect.DeepEqual(filters, wantFilters[tenancy]) {
			t.Errorf("filters %q\nwant %q", filters, wantFilters[tenancy])
		}
		tokens[tenancy] = append(tokens[tenancy], aws.ToString(in.NextToken))
	}
	if !reflect.DeepEqual(tokens, map[string][]string{"Shared": {"", "1"}, "Dedicated": {""}}) {
		t.Errorf("page tokens %v", tokens)
	}
}

func TestLoadOnDemandPricesCNY(t *testing.T) {
	f := &awsfake.Pricing{Products: []string{
		priceDocFor("cn-north-1", "Shared", "Compute Instance", "m5.large", "CNY", "0.861"),
		priceDocFor("cn-north-1", "Shared", "Compute Instance", "c5.large", "USD", "0.1"),
		priceDocFor("cn-north-1", "Dedicated", "Compute Instance (bare metal)", "m5.metal", "CNY", "41.3"),
	}}
	got, err := LoadOnDemandPrices(context.Background(), f, "cn-north-1")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]float64{"m5.large": 0.861, "m5.metal": 41.3}; !reflect.DeepEqual(got, want) {
		t.Fatalf("prices %v, want %v", got, want)
	}
}

func TestLoadSpotPricesNewestWinsAndPages(t *testing.T) {
	f := &awsfake.EC2{PageSize: map[string]int{"DescribeSpotPriceHistory": 5}, SpotPrices: []ec2types.SpotPrice{
		// First page.
		spotRecord("m5.large", "us-east-1a", "0.0900", 3*time.Hour), // stale, seen first
		spotRecord("m5.large", "us-east-1a", "0.0350", time.Minute),
		spotRecord("m5.large", "us-east-1b", "0.0410", time.Minute),
		{InstanceType: "m5.large", AvailabilityZone: aws.String("us-east-1c"), ProductDescription: ec2types.RIProductDescriptionLinuxUnix,
			SpotPrice: aws.String("0.01")}, // no timestamp
		spotRecord("c5.xlarge", "us-east-1c", "not-a-price", time.Minute),
		// Second page.
		spotRecord("m5.large", "us-east-1b", "0.5000", 2*time.Hour), // stale, on a later page
		spotRecord("c5.xlarge", "us-east-1a", "0.0690", time.Minute),
	}}
	got, err := LoadSpotPrices(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]float64{
		"m5.large":  {"us-east-1a": 0.035, "us-east-1b": 0.041},
		"c5.xlarge": {"us-east-1a": 0.069},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("spot %v, want %v", got, want)
	}
	inputs := awsfake.Inputs[ec2.DescribeSpotPriceHistoryInput](f)
	if len(inputs) != 2 || aws.ToString(inputs[1].NextToken) != "1" {
		t.Fatalf("want two pages, got %d calls", len(inputs))
	}
	in := inputs[0]
	if !reflect.DeepEqual(in.ProductDescriptions, []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"}) ||
		aws.ToInt32(in.MaxResults) != 2000 || in.StartTime == nil || time.Since(*in.StartTime) > time.Minute {
		t.Errorf("request %+v", in)
	}
}

func TestPricesLive(t *testing.T) {
	c := pricesTestClient("us-east-1", newPricingFake(), newSpotFake())
	p := c.Prices(context.Background())
	if p.Fallback != nil || p.SpotFromOnDemand || p.SpotError != "" ||
		p.OnDemandSource != pricing.SourcePricingAPI || p.SpotSource != pricing.SourceSpotAPI || p.Region != "us-east-1" {
		t.Fatalf("prices %+v", p)
	}
	if v, ok := p.Price("m5.large", pricing.Spot, "us-east-1b"); !ok || v != 0.041 {
		t.Errorf("spot m5.large us-east-1b = %v, %v", v, ok)
	}
	if v, ok := p.Price("m5.metal", pricing.OnDemand, ""); !ok || v != 4.608 {
		t.Errorf("on-demand m5.metal = %v, %v", v, ok)
	}
}

func TestPricesFallback(t *testing.T) {
	denied := &smithy.GenericAPIError{Code: "AccessDeniedException",
		Message: "User: arn:aws:sts::123456789012:assumed-role/plan/x is not authorized to perform: pricing:GetProducts\nwith an explicit deny"}
	for _, tc := range []struct {
		name       string
		region     string
		pricing    PricingAPI
		wantReason string
		wantCalls  int
	}{
		{"denied", "us-east-1", &awsfake.Pricing{Fail: map[string]error{"GetProducts": denied}}, "pricing:GetProducts failed: AccessDeniedException", 2},
		{"not implemented", "ap-southeast-1", &awsfake.Pricing{Fail: map[string]error{"GetProducts": &smithy.GenericAPIError{Code: "InternalFailure",
			Message: "The GetProducts action has not been implemented"}}}, "pricing:GetProducts failed: InternalFailure", 2},
		{"empty", "eu-west-1", &awsfake.Pricing{Products: []string{priceDocFor("eu-west-1", "Shared", "Compute Instance", "m5.large", "USD", "0.107")}},
			`pricing:GetProducts returned no on-demand prices for eu-west-1 (tenancy Dedicated, product family "Compute Instance (bare metal)")`, 2},
		{"GovCloud", "us-gov-west-1", newPricingFake(), "the AWS Pricing API is not available in GovCloud regions (us-gov-west-1)", 0},
		{"no client", "us-east-1", nil, "no AWS Pricing API client is configured", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spot := newSpotFake()
			c := pricesTestClient(tc.region, tc.pricing, spot)
			p := c.Prices(context.Background())
			if p.Fallback == nil || p.Fallback.Reason != tc.wantReason || p.OnDemandSource != pricing.SourceFallback {
				t.Fatalf("fallback %+v, source %q; want reason %q", p.Fallback, p.OnDemandSource, tc.wantReason)
			}
			if p.Region != tc.region || len(p.OnDemand) == 0 {
				t.Errorf("region %q, %d on-demand types", p.Region, len(p.OnDemand))
			}
			if f, ok := tc.pricing.(*awsfake.Pricing); ok && f.Calls("GetProducts") != tc.wantCalls {
				t.Errorf("%d GetProducts calls, want %d", f.Calls("GetProducts"), tc.wantCalls)
			}
			// Spot still came from EC2.
			if p.SpotFromOnDemand || p.SpotSource != pricing.SourceSpotAPI || p.SpotError != "" || spot.Calls("DescribeSpotPriceHistory") != 2 {
				t.Errorf("spot side %+v after %d calls", p, spot.Calls("DescribeSpotPriceHistory"))
			}
			// Kept in-process: a second call asks nothing.
			if again := c.Prices(context.Background()); again != p || spot.Calls("DescribeSpotPriceHistory") != 2 {
				t.Errorf("second call: same %v, %d spot calls", again == p, spot.Calls("DescribeSpotPriceHistory"))
			}
		})
	}
}

func TestPricesSpotUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ec2        EC2API
		wantReason string
	}{
		{"denied", &awsfake.EC2{Fail: map[string]error{"DescribeSpotPriceHistory": &smithy.GenericAPIError{Code: "UnauthorizedOperation",
			Message: "You are not authorized to perform this operation."}}}, "ec2:DescribeSpotPriceHistory failed: UnauthorizedOperation"},
		{"empty", &awsfake.EC2{}, "ec2:DescribeSpotPriceHistory returned no spot prices"},
		// Only EC2API: the fake's DescribeSpotPriceHistory is out of sight.
		{"not implemented by the client", struct{ EC2API }{&awsfake.EC2{}}, "ec2:DescribeSpotPriceHistory is not available on this EC2 client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pricesTestClient("us-east-1", newPricingFake(), tc.ec2)
			p := c.Prices(context.Background())
			if p.Fallback != nil || p.OnDemandSource != pricing.SourcePricingAPI {
				t.Fatalf("on-demand side should be live: %+v", p)
			}
			if !p.SpotFromOnDemand || p.SpotError != tc.wantReason || p.SpotSource != pricing.SourcePricingAPI || p.Spot != nil {
				t.Fatalf("spot side %+v, want reason %q", p, tc.wantReason)
			}
			if v, ok := p.Price("m5.large", pricing.Spot, "us-east-1a"); !ok || v != 0.096 {
				t.Errorf("spot priced as on-demand: %v, %v", v, ok)
			}
		})
	}
}

// Concurrent callers of one client share one load.
func TestPricesSingleFlight(t *testing.T) {
	pf, sf := newPricingFake(), newSpotFake()
	c := pricesTestClient("us-east-1", pf, sf)
	var wg sync.WaitGroup
	results := make([]*pricing.Prices, 16)
	for i := range results {
		wg.Go(func() { results[i] = c.Prices(context.Background()) })
	}
	wg.Wait()
	for _, p := range results {
		if p != results[0] {
			t.Fatal("callers got different Prices")
		}
	}
	if pf.Calls("GetProducts") != 3 || sf.Calls("DescribeSpotPriceHistory") != 2 {
		t.Errorf("%d GetProducts and %d DescribeSpotPriceHistory calls, want 3 and 2", pf.Calls("GetProducts"), sf.Calls("DescribeSpotPriceHistory"))
	}
}

// A caller whose context is done gets a fallback, and it is not kept: the next caller loads.
func TestPricesCancelledLoadNotKept(t *testing.T) {
	pf, sf := newPricingFake(), newSpotFake()
	c := pricesTestClient("us-east-1", pf, sf)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p := c.Prices(ctx); p.Fallback == nil || p.Fallback.Reason != "pricing:GetProducts failed: cancelled" {
		t.Fatalf("cancelled load: %+v", p.Fallback)
	}
	p := c.Prices(context.Background())
	if p.Fallback != nil || pf.Calls("GetProducts") != 2+3 {
		t.Errorf("the load after a cancelled one: fallback %+v, %d calls in total", p.Fallback, pf.Calls("GetProducts"))
	}
}

func diskPricesKey(account string) pricesKey {
	return pricesKey{ec2Endpoint: "http://127.0.0.1:4566", pricingEndpoint: "http://127.0.0.1:4566", region: "us-east-1", account: account}
}

// A second provider process (another client, same key) reads the file instead of the APIs.
func TestPricesDiskSecondProcessReadsFile(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	disk := &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour, now: func() time.Time { return now }}

	first := pricesTestClient("us-east-1", newPricingFake(), newSpotFake())
	first.CatalogDisk = disk
	cold := first.pricesThroughDisk(ctx, diskPricesKey("000000000000"))
	files, _ := filepath.Glob(filepath.Join(disk.Dir, "prices-*.gob"))
	if len(files) != 1 {
		t.Fatalf("want one prices file, got %v", files)
	}

	now = now.Add(59 * time.Minute)
	pf, sf := newPricingFake(), newSpotFake()
	second := pricesTestClient("us-east-1", pf, sf)
	second.CatalogDisk = disk
	warm := second.pricesThroughDisk(ctx, diskPricesKey("000000000000"))
	if pf.Calls("GetProducts") != 0 || sf.Calls("DescribeSpotPriceHistory") != 0 {
		t.Errorf("the second process called the APIs: %d GetProducts, %d DescribeSpotPriceHistory", pf.Calls("GetProducts"), sf.Calls("DescribeSpotPriceHistory"))
	}
	if !reflect.DeepEqual(warm, cold) {
		t.Fatalf("warm %+v\ncold %+v", warm, cold)
	}

	// Expired, or another account: the APIs again.
	now = now.Add(time.Minute)
	second.pricesThroughDisk(ctx, diskPricesKey("000000000000"))
	second.pricesThroughDisk(ctx, diskPricesKey("111111111111"))
	if pf.Calls("GetProducts") != 6 {
		t.Errorf("%d GetProducts calls after an expired file and another account, want 6", pf.Calls("GetProducts"))
	}
}

// An answer with a fallback on either side goes to disk too (spot prices take seconds to read),
// but is used for degradedPricesTTL only, so a granted permission shows soon.
func TestPricesDiskKeepsFallbackBriefly(t *testing.T) {
	for name, mk := range map[string]func() *Client{
		"on-demand denied": func() *Client {
			return pricesTestClient("us-east-1", &awsfake.Pricing{Fail: map[string]error{"GetProducts": &smithy.GenericAPIError{Code: "AccessDeniedException"}}}, newSpotFake())
		},
		"spot denied": func() *Client {
			return pricesTestClient("us-east-1", newPricingFake(), &awsfake.EC2{Fail: map[string]error{"DescribeSpotPriceHistory": &smithy.GenericAPIError{Code: "UnauthorizedOperation"}}})
		},
		"GovCloud": func() *Client { return pricesTestClient("us-gov-east-1", newPricingFake(), newSpotFake()) },
	} {
		t.Run(name, func(t *testing.T) {
			now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
			disk := &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour, now: func() time.Time { return now }}
			c := mk()
			c.CatalogDisk = disk
			key := diskPricesKey("000000000000")
			key.region = c.Region
			p := c.pricesThroughDisk(context.Background(), key)
			if p.Fallback == nil && !p.SpotFromOnDemand {
				t.Fatalf("want a fallback, got %+v", p)
			}
			again, ok := readPrices(context.Background(), disk, key)
			if !ok {
				t.Fatal("the fallback answer was not kept on disk")
			}
			if (again.Fallback == nil) != (p.Fallback == nil) || again.SpotFromOnDemand != p.SpotFromOnDemand ||
				(p.Fallback != nil && again.Fallback.Reason != p.Fallback.Reason) || again.SpotError != p.SpotError ||
				again.OnDemandSource != p.OnDemandSource || again.SpotSource != p.SpotSource || len(again.OnDemand) != len(p.OnDemand) {
				t.Errorf("read back %+v, wrote %+v", again, p)
			}
			now = now.Add(degradedPricesTTL)
			if _, ok := readPrices(context.Background(), disk, key); ok {
				t.Errorf("a fallback answer is used after %v", degradedPricesTTL)
			}
		})
	}
}

// A client whose key is not shared (fakes, or no account id) never uses the disk.
func TestPricesDiskNeedsSharedKey(t *testing.T) {
	dir := t.TempDir()
	c := pricesTestClient("us-east-1", newPricingFake(), newSpotFake())
	c.AccountID = "000000000000"
	c.CatalogDisk = &CatalogDisk{Dir: dir, TTL: time.Hour}
	if p := c.Prices(context.Background()); p.Fallback != nil {
		t.Fatal(p.Fallback.Reason)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Errorf("files written for an unshared key: %v", files)
	}
}

func TestPricesDiskCorruptFile(t *testing.T) {
	disk := &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour}
	key := diskPricesKey("000000000000")
	if err := os.WriteFile(pricesPath(disk, key), []byte("not gob"), 0o600); err != nil {
		t.Fatal(err)
	}
	pf := newPricingFake()
	c := pricesTestClient("us-east-1", pf, newSpotFake())
	c.CatalogDisk = disk
	if p := c.pricesThroughDisk(context.Background(), key); p.Fallback != nil || pf.Calls("GetProducts") != 3 {
		t.Fatalf("corrupt file: %+v after %d calls", p.Fallback, pf.Calls("GetProducts"))
	}
	if _, ok := readPrices(context.Background(), disk, key); !ok {
		t.Error("the load did not rewrite the corrupt file")
	}
}

func TestPricingAPIRegion(t *testing.T) {
	for region, want := range map[string]string{
		"us-east-1": "us-east-1", "us-west-2": "us-east-1", "ap-southeast-1": "ap-south-1", "ap-northeast-1": "ap-south-1",
		"eu-west-1": "eu-central-1", "eu-north-1": "eu-central-1", "cn-north-1": "cn-northwest-1", "sa-east-1": "us-east-1",
		"me-central-1": "us-east-1", "ca-central-1": "us-east-1", "us-gov-west-1": "us-east-1",
	} {
		if got := PricingAPIRegion(region); got != want {
			t.Errorf("PricingAPIRegion(%q) = %q, want %q", region, got, want)
		}
	}
}

func TestNewPricingClientOptions(t *testing.T) {
	cfg := aws.Config{Region: "ap-southeast-1", Credentials: credentials.NewStaticCredentialsProvider("a", "b", "")}
	o := newPricingClient(cfg, "http://127.0.0.1:4566", DefaultMaxRetries).Options()
	if o.Region != "ap-south-1" || aws.ToString(o.BaseEndpoint) != "http://127.0.0.1:4566" || o.Retryer.MaxAttempts() != pricingMaxAttempts {
		t.Errorf("region %q, endpoint %q, attempts %d", o.Region, aws.ToString(o.BaseEndpoint), o.Retryer.MaxAttempts())
	}
	if o := newPricingClient(cfg, "", 1).Options(); o.BaseEndpoint != nil || o.Retryer.MaxAttempts() != 1 {
		t.Errorf("endpoint %v, attempts %d", o.BaseEndpoint, o.Retryer.MaxAttempts())
	}
}

// The reason of an unreachable endpoint is the network error, not the SDK's request dump.
func TestPricesUnreachableReason(t *testing.T) {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("a", "b", "")}
	c := pricesTestClient("us-east-1", newPricingClient(cfg, "http://127.0.0.1:1", 1), newSpotFake())
	p := c.Prices(context.Background())
	if p.Fallback == nil {
		t.Fatal("want a fallback")
	}
	r := p.Fallback.Reason
	t.Log(r)
	if !strings.HasPrefix(r, "pricing:GetProducts failed: ") || !strings.Contains(r, "127.0.0.1:1") ||
		strings.Contains(r, "RequestID") || strings.Contains(r, "\n") {
		t.Errorf("reason %q", r)
	}
}

func TestFailureReasonIsShort(t *testing.T) {
	long := strings.Repeat("very long message ", 40)
	// An API error is told by its code: the message stays in the log.
	r := failureReason(&apiFailure{action: "pricing:GetProducts", err: &smithy.GenericAPIError{Code: "AccessDeniedException", Message: long}})
	if r != "pricing:GetProducts failed: AccessDeniedException" {
		t.Errorf("%q", r)
	}
	// Anything else is clipped.
	r = failureReason(&apiFailure{action: "pricing:GetProducts", err: errors.New(long)})
	if n := len([]rune(r)); n > maxReasonRunes || !strings.HasSuffix(r, "…") {
		t.Errorf("%d runes: %q", n, r)
	}
	if r := failureReason(&apiFailure{action: "pricing:GetProducts", err: fmt.Errorf("wrapped: %w", context.DeadlineExceeded)}); r != "pricing:GetProducts failed: timed out" {
		t.Errorf("%q", r)
	}
	if r := failureReason(errors.New("plain")); r != "plain" {
		t.Errorf("%q", r)
	}
}
