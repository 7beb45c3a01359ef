package awsfake

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
)

// Pricing is the fake AWS Pricing API: every call of awsclient.PricingAPI. GetProducts answers
// the PriceList documents it holds (JSON, as the API answers them) of the service asked for
// whose product matches every filter: a field is a product attribute, or productFamily, sku or
// serviceCode; TERM_MATCH and EQUALS compare, CONTAINS finds a substring, ANY_OF and NONE_OF
// take comma-separated values. Pages hold MaxResults documents (at most 100, the API's default
// and limit; and PageSize["GetProducts"]). ServeHTTP serves it over the API's JSON protocol, and
// OnDemandProduct writes the documents of EC2 on-demand prices.
type Pricing struct {
	Products []string

	// Fail makes an operation ("GetProducts") answer the error, every call.
	Fail map[string]error
	// FailNext queues errors for the next calls of an operation, one per call.
	FailNext map[string][]error
	// Hook sees every call first (see Hook).
	Hook Hook
	// PageSize bounds the pages of an operation below MaxResults.
	PageSize map[string]int

	recorder
}

// maxProductsPage is GetProducts' default and largest page.
const maxProductsPage = 100

// priceListItem is the part of a PriceList document the filters read.
type priceListItem struct {
	ServiceCode string `json:"serviceCode"`
	Product     struct {
		ProductFamily string            `json:"productFamily"`
		SKU           string            `json:"sku"`
		Attributes    map[string]string `json:"attributes"`
	} `json:"product"`
}

func (p priceListItem) field(name string) string {
	switch {
	case strings.EqualFold(name, "productFamily"):
		return p.Product.ProductFamily
	case strings.EqualFold(name, "sku"):
		return p.Product.SKU
	case strings.EqualFold(name, "serviceCode") && p.ServiceCode != "":
		return p.ServiceCode
	}
	for k, v := range p.Product.Attributes {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func filterMatches(p priceListItem, flt pricingtypes.Filter) bool {
	have, want := p.field(aws.ToString(flt.Field)), aws.ToString(flt.Value)
	switch flt.Type {
	case pricingtypes.FilterTypeTermMatch, pricingtypes.FilterTypeEquals:
		return have != "" && have == want
	case pricingtypes.FilterTypeContains:
		return have != "" && strings.Contains(have, want)
	case pricingtypes.FilterTypeAnyOf:
		return slices.Contains(strings.Split(want, ","), have)
	case pricingtypes.FilterTypeNoneOf:
		return !slices.Contains(strings.Split(want, ","), have)
	}
	panic(fmt.Sprintf("awsfake: GetProducts: filter type %q is not implemented", flt.Type))
}

// GetProducts answers the matching documents.
func (f *Pricing) GetProducts(ctx context.Context, in *awspricing.GetProductsInput, _ ...func(*awspricing.Options)) (*awspricing.GetProductsOutput, error) {
	return serve(ctx, &f.recorder, levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook}, "GetProducts", in,
		func(in *awspricing.GetProductsInput) (*awspricing.GetProductsOutput, error) {
			if aws.ToString(in.ServiceCode) == "" {
				return nil, &pricingtypes.InvalidParameterException{Message: aws.String("ServiceCode is required")}
			}
			var match []string
			for _, doc := range f.Products {
				var p priceListItem
				if err := json.Unmarshal([]byte(doc), &p); err != nil {
					panic(fmt.Sprintf("awsfake: a Pricing product is not a PriceList document: %v", err))
				}
				if svc := p.field("serviceCode"); svc != aws.ToString(in.ServiceCode) {
					continue
				}
				if !slices.ContainsFunc(in.Filters, func(flt pricingtypes.Filter) bool { return !filterMatches(p, flt) }) {
					match = append(match, doc)
				}
			}
			size := in.MaxResults
			if n := aws.ToInt32(size); n <= 0 || n > maxProductsPage {
				size = aws.Int32(maxProductsPage)
			}
			items, next, err := page("GetProducts", match, f.PageSize, size, in.NextToken)
			if err != nil {
				return nil, &pricingtypes.InvalidNextTokenException{Message: aws.String(err.Error())}
			}
			return &awspricing.GetProductsOutput{FormatVersion: aws.String("aws_v1"), PriceList: items, NextToken: next}, nil
		})
}
