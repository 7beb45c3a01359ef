package awsfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
)

// status is the HTTP status of an error an SDK client received (0: none).
func status(err error) int {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func httpEC2(t *testing.T, f *EC2) *ec2.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return ec2.New(ec2.Options{Region: "ap-southeast-1", BaseEndpoint: aws.String(srv.URL), Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
}

// The Describe calls internal/acctest's capacity stub serves, as the SDK sends them: EC2's
// query lists and filters in, its XML out, its errors with their codes.
func TestEC2HTTPCapacity(t *testing.T) {
	end := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	f := &EC2{
		CapacityReservations: []ec2types.CapacityReservation{
			{CapacityReservationId: aws.String("cr-0a"), OwnerId: aws.String("111111111111"), InstanceType: aws.String("p5.48xlarge"),
				InstancePlatform: ec2types.CapacityReservationInstancePlatformLinuxUnix, AvailabilityZone: aws.String("za"),
				Tenancy: ec2types.CapacityReservationTenancyDefault, TotalInstanceCount: aws.Int32(2), AvailableInstanceCount: aws.Int32(0),
				State: ec2types.CapacityReservationStateActive, EndDate: aws.Time(end), EndDateType: ec2types.EndDateTypeLimited,
				InstanceMatchCriteria: ec2types.InstanceMatchCriteriaTargeted, ReservationType: ec2types.CapacityReservationTypeCapacityBlock,
				Tags: tags("team", "ml")},
			{CapacityReservationId: aws.String("cr-0b"), InstanceType: aws.String("m5.large"), AvailabilityZone: aws.String("zb"),
				State: ec2types.CapacityReservationStateExpired, InstanceMatchCriteria: ec2types.InstanceMatchCriteriaOpen},
		},
		PlacementGroups: []ec2types.PlacementGroup{
			{GroupId: aws.String("pg-1"), GroupName: aws.String("parts"), Strategy: ec2types.PlacementStrategyPartition,
				State: ec2types.PlacementGroupStateAvailable, PartitionCount: aws.Int32(5)},
			{GroupId: aws.String("pg-2"), GroupName: aws.String("old"), Strategy: ec2types.PlacementStrategyCluster,
				State: ec2types.PlacementGroupStateDeleting, Tags: tags("k", "v")},
		},
	}
	c := httpEC2(t, f)
	ctx := context.Background()

	tagged, err := c.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{MaxResults: aws.Int32(1000),
		Filters: []ec2types.Filter{filter("tag-key", "team"), filter("state", "active", "pending")}})
	if err != nil || len(tagged.CapacityReservations) != 1 {
		t.Fatalf("by tag and state: %+v, %v", tagged, err)
	}
	// Every field comes back as it is held (the SDK's answer is the fake's object).
	if got, want := tagged.CapacityReservations[0], f.CapacityReservations[0]; !reflect.DeepEqual(jsonOf(got), jsonOf(want)) {
		t.Errorf("over HTTP:\n got %s\nwant %s", jsonOf(got), jsonOf(want))
	}
	byID, err := c.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0b"}})
	if err != nil || len(byID.CapacityReservations) != 1 || byID.CapacityReservations[0].State != "expired" || byID.CapacityReservations[0].EndDate != nil {
		t.Errorf("by id: %+v, %v", byID, err)
	}
	_, err = c.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0b", "cr-0z"}})
	if code(err) != "InvalidCapacityReservationId.NotFound" || status(err) != 400 {
		t.Errorf("an unknown id: %v", err)
	}
	paged, err := c.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{MaxResults: aws.Int32(1)})
	if err != nil || len(paged.CapacityReservations) != 1 || aws.ToString(paged.NextToken) != "1" {
		t.Errorf("a page: %+v, %v", paged, err)
	}

	groups, err := c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{GroupNames: []string{"parts"}})
	if err != nil || len(groups.PlacementGroups) != 1 || aws.ToInt32(groups.PlacementGroups[0].PartitionCount) != 5 ||
		groups.PlacementGroups[0].Strategy != "partition" || groups.PlacementGroups[0].Tags != nil {
		t.Errorf("by name: %+v, %v", groups, err)
	}
	groups, err = c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{Filters: []ec2types.Filter{filter("strategy", "cluster")}})
	if err != nil || len(groups.PlacementGroups) != 1 || groups.PlacementGroups[0].PartitionCount != nil ||
		!reflect.DeepEqual(jsonOf(groups.PlacementGroups[0].Tags), jsonOf(tags("k", "v"))) {
		t.Errorf("by filter: %+v, %v", groups, err)
	}
	if _, err := c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{GroupNames: []string{"none"}}); code(err) != "InvalidPlacementGroup.Unknown" {
		t.Errorf("an unknown name: %v", err)
	}
	if _, err := c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{GroupIds: []string{"pg-9"}}); code(err) != "InvalidPlacementGroupId.NotFound" {
		t.Errorf("an unknown id: %v", err)
	}

	// The requests went through the fake's calls, decoded into the SDK's inputs.
	in := Inputs[ec2.DescribeCapacityReservationsInput](f)[0]
	if aws.ToInt32(in.MaxResults) != 1000 || !reflect.DeepEqual(jsonOf(in.Filters), jsonOf([]ec2types.Filter{filter("tag-key", "team"), filter("state", "active", "pending")})) {
		t.Errorf("the request as decoded: %s", jsonOf(in))
	}
	if f.Calls("DescribeCapacityReservations") != 4 || f.Calls("DescribePlacementGroups") != 4 {
		t.Errorf("calls: %v", f.Log())
	}
}

// The spot price history internal/acctest's pricing stub serves: pages, the last one with an
// empty token, and a failure with its code.
func TestEC2HTTPSpotPriceHistory(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	price := func(typ, zone, p string, at time.Time) ec2types.SpotPrice {
		return ec2types.SpotPrice{InstanceType: ec2types.InstanceType(typ), AvailabilityZone: aws.String(zone), SpotPrice: aws.String(p),
			ProductDescription: ec2types.RIProductDescriptionLinuxUnix, Timestamp: aws.Time(at)}
	}
	f := &EC2{PageSize: map[string]int{"DescribeSpotPriceHistory": 2}, SpotPrices: []ec2types.SpotPrice{
		price("c5.xlarge", "za", "0.069000", at), price("c5.xlarge", "za", "1.690000", at.Add(-3*time.Hour)),
		price("m5.large", "za", "0.035000", at), price("m5.large", "zb", "0.041000", at),
	}}
	c := httpEC2(t, f)
	ctx := context.Background()

	var got []ec2types.SpotPrice
	pages := 0
	p := ec2.NewDescribeSpotPriceHistoryPaginator(c, &ec2.DescribeSpotPriceHistoryInput{ProductDescriptions: []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"},
		StartTime: aws.Time(at), MaxResults: aws.Int32(1000)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, out.SpotPriceHistory...)
	}
	if pages != 2 || !reflect.DeepEqual(jsonOf(got), jsonOf(f.SpotPrices)) {
		t.Errorf("%d pages:\n got %s\nwant %s", pages, jsonOf(got), jsonOf(f.SpotPrices))
	}
	if in := Inputs[ec2.DescribeSpotPriceHistoryInput](f)[0]; !aws.ToTime(in.StartTime).Equal(at) || len(in.ProductDescriptions) != 2 {
		t.Errorf("the request as decoded: %s", jsonOf(in))
	}
	last, err := c.DescribeSpotPriceHistory(ctx, &ec2.DescribeSpotPriceHistoryInput{InstanceTypes: []ec2types.InstanceType{"m5.large"}, AvailabilityZone: aws.String("zb")})
	if err != nil || len(last.SpotPriceHistory) != 1 || last.NextToken == nil || *last.NextToken != "" {
		t.Errorf("one type in one zone: %+v, %v", last, err)
	}
	f.Fail = map[string]error{"DescribeSpotPriceHistory": apiError("UnauthorizedOperation", "no")}
	if _, err := c.DescribeSpotPriceHistory(ctx, &ec2.DescribeSpotPriceHistoryInput{}); code(err) != "UnauthorizedOperation" || status(err) != 400 {
		t.Errorf("a failure: %v", err)
	}
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func httpPricing(t *testing.T, f *Pricing) *awspricing.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return awspricing.New(awspricing.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
}

// GetProducts over the API's JSON protocol, with OnDemandProduct's documents: Karpenter's
// filters, pages, the API's page limit, and errors as the SDK reads them.
func TestPricingHTTP(t *testing.T) {
	f := &Pricing{PageSize: map[string]int{"GetProducts": 2}}
	for _, p := range []struct {
		region, typ string
		price       float64
	}{{"us-east-1", "c5.xlarge", 0.17}, {"us-east-1", "m5.large", 0.096}, {"us-east-1", "m5.metal", 4.608}, {"us-east-1", "t3.micro", 0.0104},
		{"cn-north-1", "m5.large", 0.861}} {
		f.Products = append(f.Products, OnDemandProduct(p.region, p.typ, p.price))
	}
	c := httpPricing(t, f)
	ctx := context.Background()
	query := func(region, tenancy, family string) (types []string, prices []string, pages int, err error) {
		p := awspricing.NewGetProductsPaginator(c, &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), Filters: []pricingtypes.Filter{
			term("regionCode", region), term("serviceCode", "AmazonEC2"), term("preInstalledSw", "NA"), term("operatingSystem", "Linux"),
			term("capacitystatus", "Used"), term("marketoption", "OnDemand"), term("tenancy", tenancy), term("productFamily", family)}})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				return nil, nil, pages, err
			}
			pages++
			for _, doc := range out.PriceList {
				var d struct {
					Product struct{ Attributes map[string]string }
					Terms   struct {
						OnDemand map[string]struct {
							PriceDimensions map[string]struct{ PricePerUnit map[string]string }
						}
					}
				}
				if err := json.Unmarshal([]byte(doc), &d); err != nil {
					return nil, nil, pages, err
				}
				types = append(types, d.Product.Attributes["instanceType"])
				for _, term := range d.Terms.OnDemand {
					for _, dim := range term.PriceDimensions {
						for cur, v := range dim.PricePerUnit {
							prices = append(prices, cur+" "+v)
						}
					}
				}
			}
		}
		return types, prices, pages, nil
	}
	types, prices, pages, err := query("us-east-1", "Shared", "Compute Instance")
	if err != nil || strings.Join(types, " ") != "c5.xlarge m5.large t3.micro" || pages != 2 || prices[1] != "USD 0.0960000000" {
		t.Errorf("shared: %v %v in %d pages, %v", types, prices, pages, err)
	}
	types, _, _, err = query("us-east-1", "Dedicated", "Compute Instance (bare metal)")
	if err != nil || strings.Join(types, " ") != "m5.metal" {
		t.Errorf("bare metal: %v, %v", types, err)
	}
	_, prices, _, err = query("cn-north-1", "Shared", "Compute Instance")
	if err != nil || len(prices) != 1 || prices[0] != "CNY 0.8610000000" {
		t.Errorf("China: %v, %v", prices, err)
	}

	// A page holds at most 100 documents, MaxResults or not.
	f.PageSize, f.Products = nil, nil
	for i := range 150 {
		f.Products = append(f.Products, OnDemandProduct("eu-west-1", fmt.Sprintf("m5.%dxlarge", i), 1))
	}
	for _, size := range []*int32{nil, aws.Int32(500)} {
		out, err := c.GetProducts(ctx, &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), MaxResults: size})
		if err != nil {
			t.Errorf("MaxResults %v: %v", aws.ToInt32(size), err)
			continue
		}
		if len(out.PriceList) != 100 || out.NextToken == nil {
			t.Errorf("MaxResults %v: %d documents, next token %v", aws.ToInt32(size), len(out.PriceList), out.NextToken)
		}
	}

	_, err = c.GetProducts(ctx, &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), NextToken: aws.String("x")})
	if code(err) != "InvalidNextTokenException" || status(err) != 400 {
		t.Errorf("a bad token: %v", err)
	}
	f.Fail = map[string]error{"GetProducts": &pricingtypes.AccessDeniedException{Message: aws.String("not authorized to perform: pricing:GetProducts")}}
	_, err = c.GetProducts(ctx, &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2")})
	var denied *pricingtypes.AccessDeniedException
	if !errors.As(err, &denied) || !strings.Contains(aws.ToString(denied.Message), "pricing:GetProducts") || status(err) != 400 {
		t.Errorf("denied: %v", err)
	}
	if _, err := c.DescribeServices(ctx, &awspricing.DescribeServicesInput{}); code(err) != "InvalidParameterException" {
		t.Errorf("an operation the front does not serve: %v", err)
	}
	if n := f.Calls("GetProducts"); n != 8 {
		t.Errorf("%d GetProducts calls recorded, want 8", n)
	}
}
