package awsfake

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// OnDemandProduct is the PriceList document the Pricing API answers for a Linux on-demand EC2
// instance type in a region (the price per hour in USD; in CNY for the China regions), with the
// attributes Karpenter's GetProducts filters read. A type whose name contains ".metal" is bare
// metal: tenancy Dedicated, product family "Compute Instance (bare metal)"; the others are
// Shared "Compute Instance". The SKU is derived from the region and type.
func OnDemandProduct(region, instanceType string, price float64) string {
	tenancy, family := "Shared", "Compute Instance"
	if strings.Contains(instanceType, ".metal") {
		tenancy, family = "Dedicated", "Compute Instance (bare metal)"
	}
	attrs := map[string]string{
		"instanceType": instanceType, "instanceFamily": "General purpose", "regionCode": region, "location": region,
		"locationType": "AWS Region", "tenancy": tenancy, "servicecode": "AmazonEC2", "servicename": "Amazon Elastic Compute Cloud",
		"operatingSystem": "Linux", "preInstalledSw": "NA", "capacitystatus": "Used", "marketoption": "OnDemand",
		"licenseModel": "No License required", "usagetype": "BoxUsage:" + instanceType, "operation": "RunInstances",
	}
	sum := sha256.Sum256([]byte(region + "/" + instanceType))
	sku := strings.ToUpper(fmt.Sprintf("%x", sum[:8]))
	currency := "USD"
	if strings.HasPrefix(region, "cn-") {
		currency = "CNY"
	}
	const term, rate = "JRTCKXETXF", "6YS6EN2CT7"
	offer, dimension := sku+"."+term, sku+"."+term+"."+rate
	doc := map[string]any{
		"product":     map[string]any{"productFamily": family, "attributes": attrs, "sku": sku},
		"serviceCode": "AmazonEC2",
		"terms": map[string]any{"OnDemand": map[string]any{offer: map[string]any{
			"priceDimensions": map[string]any{dimension: map[string]any{
				"unit": "Hrs", "endRange": "Inf", "beginRange": "0", "appliesTo": []string{}, "rateCode": dimension,
				"description":  fmt.Sprintf("%s %.4f per On Demand Linux %s Instance Hour", currency, price, instanceType),
				"pricePerUnit": map[string]string{currency: strconv.FormatFloat(price, 'f', 10, 64)},
			}},
			"sku": sku, "effectiveDate": "2026-01-01T00:00:00Z", "offerTermCode": term, "termAttributes": map[string]string{},
		}}},
		"version":         "20260101000000",
		"publicationDate": "2026-01-01T00:00:00Z",
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(fmt.Sprintf("awsfake: OnDemandProduct: %v", err))
	}
	return string(b)
}
