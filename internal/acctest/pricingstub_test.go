package acctest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	smithy "github.com/aws/smithy-go"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
)

// ec2Upstream stands in for LocalStack behind the stub: it records the EC2 actions forwarded
// to it and answers each with an empty response of that action.
type ec2Upstream struct {
	mu    sync.Mutex
	forms []url.Values
}

func (u *ec2Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	u.mu.Lock()
	u.forms = append(u.forms, form)
	u.mu.Unlock()
	action := form.Get("Action")
	extra := ""
	if action == "CreateFleet" {
		extra = "<fleetId>fleet-0123456789abcdef0</fleetId>"
	}
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<%sResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>upstream</requestId>%s</%sResponse>`, action, extra, action)
}

func (u *ec2Upstream) actions() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, f := range u.forms {
		out = append(out, f.Get("Action"))
	}
	return out
}

// newTestPricingStub starts a stub in front of a fake upstream (no LocalStack needed).
func newTestPricingStub(t *testing.T) (*PricingStub, *ec2Upstream) {
	up := &ec2Upstream{}
	srv := httptest.NewServer(up)
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ENDPOINT_URL_EC2", srv.URL)
	s := NewPricingStub(t)
	s.SetOnDemand("us-east-1", map[string]float64{"m5.large": 0.096, "c5.xlarge": 0.17, "t3.micro": 0.0104, "m5.metal": 4.608, "c6i.metal": 5.44})
	s.SetOnDemand("cn-north-1", map[string]float64{"m5.large": 0.861, "m5.metal": 41.3})
	s.SetSpot(map[string]map[string]float64{
		"m5.large":  {"us-east-1a": 0.035, "us-east-1b": 0.041},
		"c5.xlarge": {"us-east-1a": 0.069, "us-east-1c": 0.071},
	})
	return s, up
}

func stubTestConfig(region string) aws.Config {
	return aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}
}

func stubPricingClient(s *PricingStub) *awspricing.Client {
	return awspricing.NewFromConfig(stubTestConfig("us-east-1"), func(o *awspricing.Options) { o.BaseEndpoint = aws.String(s.URL()) })
}

func stubEC2Client(s *PricingStub) *ec2.Client {
	return ec2.NewFromConfig(stubTestConfig("us-east-1"), func(o *ec2.Options) { o.BaseEndpoint = aws.String(s.URL()) })
}

func TestPricingStubGetProducts(t *testing.T) {
	s, _ := newTestPricingStub(t)
	s.SetPageSize(2)
	api := stubPricingClient(s)
	ctx := context.Background()

	got, err := awsclient.LoadOnDemandPrices(ctx, api, "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"m5.large": 0.096, "c5.xlarge": 0.17, "t3.micro": 0.0104, "m5.metal": 4.608, "c6i.metal": 5.44}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("prices %v, want %v", got, want)
	}
	// Shared: 3 types in pages of 2; Dedicated: 2 types in one page.
	if n := s.Calls("GetProducts"); n != 3 {
		t.Errorf("%d GetProducts calls, want 3", n)
	}

	// Each query answers its own products only.
	for _, q := range []struct{ tenancy, family, want string }{
		{"Shared", "Compute Instance", "c5.xlarge m5.large t3.micro"},
		{"Dedicated", "Compute Instance (bare metal)", "c6i.metal m5.metal"},
		{"Shared", "Compute Instance (bare metal)", ""},
	} {
		var types []string
		p := awspricing.NewGetProductsPaginator(api, &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"),
			Filters: awsclient.OnDemandFilters("us-east-1", q.tenancy, q.family)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, doc := range page.PriceList {
				var d struct {
					Product struct {
						ProductFamily string
						Attributes    map[string]string
					}
				}
				if err := json.Unmarshal([]byte(doc), &d); err != nil {
					t.Fatal(err)
				}
				if d.Product.ProductFamily != q.family || d.Product.Attributes["tenancy"] != q.tenancy {
					t.Errorf("%s/%s answered %s/%s", q.tenancy, q.family, d.Product.Attributes["tenancy"], d.Product.ProductFamily)
				}
				types = append(types, d.Product.Attributes["instanceType"])
			}
		}
		if strings.Join(types, " ") != q.want {
			t.Errorf("%s/%q: %v, want %q", q.tenancy, q.family, types, q.want)
		}
	}

	// The China regions are priced in CNY; other regions' products do not leak in.
	cn, err := awsclient.LoadOnDemandPrices(ctx, api, "cn-north-1")
	if err != nil || !reflect.DeepEqual(cn, map[string]float64{"m5.large": 0.861, "m5.metal": 41.3}) {
		t.Errorf("cn-north-1: %v, %v", cn, err)
	}
	// A region without products answers nothing: the caller's error.
	if _, err := awsclient.LoadOnDemandPrices(ctx, api, "eu-west-1"); err == nil {
		t.Error("eu-west-1 has no prices: want an error")
	}
}

func TestPricingStubDenied(t *testing.T) {
	s, _ := newTestPricingStub(t)
	s.DenyPricing(true)
	_, err := stubPricingClient(s).GetProducts(context.Background(), &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2")})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "AccessDeniedException" || !strings.Contains(ae.ErrorMessage(), "pricing:GetProducts") {
		t.Fatalf("want AccessDeniedException, got %v", err)
	}
	s.DenyPricing(false)
	if _, err := stubPricingClient(s).GetProducts(context.Background(), &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2")}); err != nil {
		t.Fatal(err)
	}
}

func TestPricingStubSpotHistory(t *testing.T) {
	s, up := newTestPricingStub(t)
	s.SetStaleSpotRecords(true)
	s.SetPageSize(3)
	api := stubEC2Client(s)
	got, err := awsclient.LoadSpotPrices(context.Background(), api)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]float64{
		"m5.large":  {"us-east-1a": 0.035, "us-east-1b": 0.041},
		"c5.xlarge": {"us-east-1a": 0.069, "us-east-1c": 0.071},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("spot %v, want %v (the newest record of each type and zone)", got, want)
	}
	// 8 records (4 current, 4 stale) in pages of 3.
	if n := s.Calls("DescribeSpotPriceHistory"); n != 3 {
		t.Errorf("%d DescribeSpotPriceHistory calls, want 3", n)
	}

	// The raw answer carries both records of a type and zone, the stale one after.
	out, err := api.DescribeSpotPriceHistory(context.Background(), &ec2.DescribeSpotPriceHistoryInput{
		InstanceTypes: []ec2types.InstanceType{"m5.large"}, AvailabilityZone: aws.String("us-east-1a")})
	if err != nil {
		t.Fatal(err)
	}
	if h := out.SpotPriceHistory; len(h) != 2 || !h[0].Timestamp.After(*h[1].Timestamp) || aws.ToString(h[1].SpotPrice) != "1.350000" {
		t.Errorf("history %+v", h)
	}

	s.FailSpot("UnauthorizedOperation")
	_, err = awsclient.LoadSpotPrices(context.Background(), api)
	if awsclient.ErrCode(err) != "UnauthorizedOperation" {
		t.Errorf("want UnauthorizedOperation, got %v", err)
	}
	if len(up.actions()) != 0 {
		t.Errorf("stubbed calls reached the upstream: %v", up.actions())
	}
}

func TestPricingStubRecordsAndForwardsCreateFleet(t *testing.T) {
	s, up := newTestPricingStub(t)
	api := stubEC2Client(s)
	ctx := context.Background()
	out, err := api.CreateFleet(ctx, &ec2.CreateFleetInput{
		Type: ec2types.FleetTypeInstant,
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: aws.String("lt"), Version: aws.String("$Latest")},
			Overrides: []ec2types.FleetLaunchTemplateOverridesRequest{
				{InstanceType: "m5.large", SubnetId: aws.String("subnet-a")},
				{InstanceType: "c5.xlarge", SubnetId: aws.String("subnet-b")},
			},
		}},
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(1),
			DefaultTargetCapacityType: ec2types.DefaultTargetCapacityTypeSpot},
		OnDemandOptions: &ec2types.OnDemandOptionsRequest{AllocationStrategy: ec2types.FleetOnDemandAllocationStrategyLowestPrice},
		SpotOptions:     &ec2types.SpotOptionsRequest{AllocationStrategy: ec2types.SpotAllocationStrategyPriceCapacityOptimized},
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.FleetId) != "fleet-0123456789abcdef0" {
		t.Errorf("the upstream's answer did not come back: %+v", out)
	}
	if _, err := api.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{}); err != nil {
		t.Fatal(err)
	}

	reqs := s.CreateFleetRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d CreateFleet requests recorded", len(reqs))
	}
	f := reqs[0]
	for k, want := range map[string]string{
		"LaunchTemplateConfigs.1.Overrides.1.InstanceType": "m5.large",
		"LaunchTemplateConfigs.1.Overrides.2.InstanceType": "c5.xlarge",
		"LaunchTemplateConfigs.1.Overrides.2.SubnetId":     "subnet-b",
		"OnDemandOptions.AllocationStrategy":               "lowest-price",
		"SpotOptions.AllocationStrategy":                   "price-capacity-optimized",
	} {
		if got := f.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if got := up.actions(); !reflect.DeepEqual(got, []string{"CreateFleet", "DescribeSubnets"}) {
		t.Errorf("forwarded %v", got)
	}
	if s.Calls("CreateFleet") != 1 || s.Calls("DescribeSubnets") != 1 {
		t.Errorf("calls: CreateFleet %d, DescribeSubnets %d", s.Calls("CreateFleet"), s.Calls("DescribeSubnets"))
	}
}

// The provider's client against the stub: live prices from both APIs, then the embedded table
// when the Pricing API denies.
func TestPricingStubWithProviderClient(t *testing.T) {
	s, _ := newTestPricingStub(t)
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_PRICING", "AWS_PROFILE", "AWS_MAX_ATTEMPTS"} {
		t.Setenv(k, "")
		_ = os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	ctx := context.Background()
	newClient := func() *awsclient.Client {
		c, err := awsclient.New(ctx, awsclient.Settings{Region: "us-east-1", AccessKey: "test", SecretKey: "test",
			EC2Endpoint: s.URL(), PricingEndpoint: s.URL(), SkipCredentialsValidation: true, SkipRequestingAccountID: true})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	c := newClient()
	p := c.Prices(ctx)
	if p.Fallback != nil || p.SpotFromOnDemand || p.OnDemandSource != pricing.SourcePricingAPI || p.SpotSource != pricing.SourceSpotAPI {
		t.Fatalf("want live prices, got %+v", p)
	}
	if v, ok := p.Price("m5.metal", pricing.OnDemand, ""); !ok || v != 4.608 {
		t.Errorf("on-demand m5.metal = %v, %v", v, ok)
	}
	if v, ok := p.Price("c5.xlarge", pricing.Spot, "us-east-1c"); !ok || v != 0.071 {
		t.Errorf("spot c5.xlarge us-east-1c = %v, %v", v, ok)
	}
	if calls := c.Calls.Snapshot(); calls["Pricing.GetProducts"] != 2 || calls["EC2.DescribeSpotPriceHistory"] != 1 {
		t.Errorf("calls %v", calls)
	}

	s.DenyPricing(true)
	s.FailSpot("UnauthorizedOperation")
	before := s.Calls("GetProducts")
	p = newClient().Prices(ctx)
	if p.Fallback == nil || p.Fallback.Reason != "pricing:GetProducts failed: AccessDeniedException" ||
		p.OnDemandSource != pricing.SourceFallback {
		t.Fatalf("want the embedded table, got %+v", p.Fallback)
	}
	if !p.SpotFromOnDemand || !strings.HasPrefix(p.SpotError, "ec2:DescribeSpotPriceHistory failed: UnauthorizedOperation") {
		t.Errorf("spot: from on-demand %v, error %q", p.SpotFromOnDemand, p.SpotError)
	}
	// AccessDeniedException is not retried: at most one call per query (the first denial may
	// cancel the other query before it is sent).
	if n := s.Calls("GetProducts") - before; n < 1 || n > 2 {
		t.Errorf("%d GetProducts calls when denied, want 1 or 2", n)
	}
}
