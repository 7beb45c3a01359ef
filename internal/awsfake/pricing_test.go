package awsfake

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
)

func product(typ, region, tenancy, family string) string {
	return fmt.Sprintf(`{"product":{"productFamily":%q,"attributes":{"instanceType":%q,"regionCode":%q,"tenancy":%q},"sku":"S-%s"},"serviceCode":"AmazonEC2"}`,
		family, typ, region, tenancy, typ)
}

func term(field, value string) pricingtypes.Filter {
	return pricingtypes.Filter{Field: aws.String(field), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String(value)}
}

func TestPricing(t *testing.T) {
	ctx := context.Background()
	f := &Pricing{PageSize: map[string]int{"GetProducts": 2}, Products: []string{
		product("m5.large", "us-east-1", "Shared", "Compute Instance"),
		product("c5.large", "us-east-1", "Shared", "Compute Instance"),
		product("t3.micro", "us-east-1", "Shared", "Compute Instance"),
		product("m5.metal", "us-east-1", "Dedicated", "Compute Instance (bare metal)"),
		product("m5.large", "eu-west-1", "Shared", "Compute Instance"),
	}}
	query := func(filters ...pricingtypes.Filter) (docs int, tokens []string) {
		p := awspricing.NewGetProductsPaginator(f, &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), Filters: filters, MaxResults: aws.Int32(100)})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			docs += len(out.PriceList)
			tokens = append(tokens, aws.ToString(out.NextToken))
		}
		return docs, tokens
	}
	if n, tokens := query(term("regionCode", "us-east-1"), term("tenancy", "Shared"), term("productFamily", "Compute Instance")); n != 3 || !slices.Equal(tokens, []string{"1", ""}) {
		t.Errorf("shared us-east-1: %d documents, tokens %q", n, tokens)
	}
	if n, _ := query(term("regionCode", "us-east-1"), term("serviceCode", "AmazonEC2"), term("tenancy", "Dedicated")); n != 1 {
		t.Errorf("dedicated: %d documents", n)
	}
	if n, _ := query(term("regionCode", "us-east-1"), term("operatingSystem", "Linux")); n != 0 {
		t.Errorf("an attribute the products lack matched %d", n)
	}
	if n, _ := query(pricingtypes.Filter{Field: aws.String("instanceType"), Type: pricingtypes.FilterTypeAnyOf, Value: aws.String("m5.large,t3.micro")}); n != 3 {
		t.Errorf("ANY_OF: %d documents", n)
	}
	if n, _ := query(pricingtypes.Filter{Field: aws.String("productFamily"), Type: pricingtypes.FilterTypeContains, Value: aws.String("bare metal")}); n != 1 {
		t.Errorf("CONTAINS: %d documents", n)
	}
	out, err := f.GetProducts(ctx, &awspricing.GetProductsInput{ServiceCode: aws.String("AmazonRDS")})
	if err != nil || len(out.PriceList) != 0 {
		t.Errorf("another service: %v, %v", out, err)
	}
}
