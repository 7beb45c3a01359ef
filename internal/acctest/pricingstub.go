package acctest

import (
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// PricingStub is one loopback endpoint for both the AWS Pricing API and EC2, for tests of
// price-ordered launch plans. LocalStack serves neither real on-demand prices (GetProducts) nor
// a spot price history worth ordering by; the stub answers both from the prices a test seeds,
// the way AWS does (the Pricing API's JSON 1.1 protocol and its GetProducts filters and pages;
// EC2's query protocol for DescribeSpotPriceHistory). It records every EC2 CreateFleet request
// (so a test can read the overrides and allocation strategies a plan sent) and forwards it, and
// every other EC2 call, to LocalStack (Endpoint()). Point both `endpoints.ec2` and
// `endpoints.pricing` at URL().
type PricingStub struct {
	server *httptest.Server
	proxy  *httputil.ReverseProxy

	mu         sync.Mutex
	onDemand   map[string]map[string]float64 // region -> type -> price per hour
	spot       map[string]map[string]float64 // type -> zone -> price per hour
	staleSpot  bool
	denied     bool
	spotFault  string
	pageSize   int
	spotNow    time.Time
	calls      map[string]int
	fleetForms []url.Values
}

// Target header prefix of the Pricing API's operations (AWS JSON 1.1).
const pricingTargetPrefix = "AWSPriceListService."

// NewPricingStub starts a stub in front of Endpoint() for the test.
func NewPricingStub(t testing.TB) *PricingStub {
	t.Helper()
	s := &PricingStub{proxy: emulatorProxy(t, "pricing stub"), onDemand: map[string]map[string]float64{},
		spot: map[string]map[string]float64{}, calls: map[string]int{}}
	s.server = httptest.NewServer(s)
	t.Cleanup(s.server.Close)
	return s
}

// URL is the stub's endpoint, for the provider's `endpoints.ec2` and `endpoints.pricing`.
func (s *PricingStub) URL() string { return s.server.URL }

// SetOnDemand replaces the on-demand prices (USD per hour; CNY is answered for cn-* regions)
// GetProducts serves for region. Types whose name contains ".metal" are bare metal: they answer
// Karpenter's Dedicated / "Compute Instance (bare metal)" query, the others its Shared /
// "Compute Instance" one.
func (s *PricingStub) SetOnDemand(region string, prices map[string]float64) {
	s.mu.Lock()
	s.onDemand[region] = cloneFlat(prices)
	s.mu.Unlock()
}

// SetSpot replaces the spot prices (type -> zone -> price per hour) DescribeSpotPriceHistory
// serves: one record per type and zone, a minute old.
func (s *PricingStub) SetSpot(prices map[string]map[string]float64) {
	s.mu.Lock()
	s.spot = make(map[string]map[string]float64, len(prices))
	for t, zones := range prices {
		s.spot[t] = cloneFlat(zones)
	}
	s.mu.Unlock()
}

// SetStaleSpotRecords makes DescribeSpotPriceHistory answer, after each current record, an
// older one of the same type and zone at another price (ten times the current plus 1): a reader
// that does not keep the newest timestamp picks the stale price.
func (s *PricingStub) SetStaleSpotRecords(on bool) {
	s.mu.Lock()
	s.staleSpot = on
	s.mu.Unlock()
}

// DenyPricing makes GetProducts answer AccessDeniedException (as for a role without
// pricing:GetProducts), to test the fallback to the embedded table.
func (s *PricingStub) DenyPricing(on bool) {
	s.mu.Lock()
	s.denied = on
	s.mu.Unlock()
}

// FailSpot makes DescribeSpotPriceHistory answer the EC2 error code (e.g.
// "UnauthorizedOperation"); "" answers normally again.
func (s *PricingStub) FailSpot(code string) {
	s.mu.Lock()
	s.spotFault = code
	s.mu.Unlock()
}

// SetPageSize caps the page size of both stubbed calls below what the request asks (0: the
// request's MaxResults, or the API's default), to exercise pagination.
func (s *PricingStub) SetPageSize(n int) {
	s.mu.Lock()
	s.pageSize = n
	s.mu.Unlock()
}

// Calls is how many requests of action the stub received ("GetProducts",
// "DescribeSpotPriceHistory", "CreateFleet", and every forwarded EC2 action).
func (s *PricingStub) Calls(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[action]
}

// CreateFleetRequests are the forms of the CreateFleet requests received, in order (keys such
// as LaunchTemplateConfigs.1.Overrides.2.InstanceType, OnDemandOptions.AllocationStrategy,
// SpotOptions.AllocationStrategy, TargetCapacitySpecification.DefaultTargetCapacityType).
func (s *PricingStub) CreateFleetRequests() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
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

func (s *PricingStub) count(action string) {
	s.mu.Lock()
	s.calls[action]++
	s.mu.Unlock()
}

func (s *PricingStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if target := r.Header.Get("X-Amz-Target"); strings.HasPrefix(target, pricingTargetPrefix) {
		op := strings.TrimPrefix(target, pricingTargetPrefix)
		s.count(op)
		if op != "GetProducts" {
			writeJSONError(w, "InvalidParameterException", "stub: only GetProducts is implemented, not "+op)
			return
		}
		s.getProducts(w, body)
		return
	}
	form, _ := url.ParseQuery(string(body))
	action := form.Get("Action")
	s.count(action)
	switch action {
	case "DescribeSpotPriceHistory":
		s.describeSpotPriceHistory(w, form)
		return
	case "CreateFleet":
		s.mu.Lock()
		s.fleetForms = append(s.fleetForms, cloneForm(form))
		s.mu.Unlock()
	}
	forward(s.proxy, w, r, body)
}

// writeJSONError answers an AWS JSON 1.1 client error (HTTP 400), as the Pricing API does.
func writeJSONError(w http.ResponseWriter, code, msg string) {
	b, _ := json.Marshal(map[string]string{"__type": code, "Message": msg})
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.Header().Set("X-Amzn-RequestId", "stub")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

type getProductsRequest struct {
	ServiceCode string
	Filters     []struct{ Type, Field, Value string }
	NextToken   string
	MaxResults  int
}

// getProducts answers GetProducts from the seeded on-demand prices: a product per type with the
// attributes Karpenter filters on, matched by every filter of the request.
func (s *PricingStub) getProducts(w http.ResponseWriter, body []byte) {
	var req getProductsRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSONError(w, "InvalidParameterException", "stub: "+err.Error())
		return
	}
	s.mu.Lock()
	denied, pageSize := s.denied, s.pageSize
	var docs []string
	if !denied {
		docs = s.matchingProducts(req)
	}
	s.mu.Unlock()
	if denied {
		writeJSONError(w, "AccessDeniedException",
			"User: arn:aws:sts::000000000000:assumed-role/stub/stub is not authorized to perform: pricing:GetProducts")
		return
	}
	size := req.MaxResults
	if size <= 0 || size > 100 {
		size = 100
	}
	if pageSize > 0 {
		size = min(size, pageSize)
	}
	start, ok := pageStart(req.NextToken, len(docs))
	if !ok {
		writeJSONError(w, "InvalidNextTokenException", "stub: invalid NextToken")
		return
	}
	end := min(start+size, len(docs))
	resp := struct {
		FormatVersion string
		PriceList     []string
		NextToken     string `json:",omitempty"`
	}{FormatVersion: "aws_v1", PriceList: docs[start:end]}
	if end < len(docs) {
		resp.NextToken = "stub-" + strconv.Itoa(end)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_, _ = w.Write(b)
}

// pageStart decodes the stub's page tokens ("" is the first page).
func pageStart(token string, n int) (int, bool) {
	if token == "" {
		return 0, true
	}
	i, err := strconv.Atoi(strings.TrimPrefix(token, "stub-"))
	if err != nil || !strings.HasPrefix(token, "stub-") || i < 0 || i > n {
		return 0, false
	}
	return i, true
}

// matchingProducts are the PriceList documents of the request, sorted by type (s.mu held).
func (s *PricingStub) matchingProducts(req getProductsRequest) []string {
	if req.ServiceCode != "AmazonEC2" {
		return nil
	}
	var docs []string
	for _, region := range slices.Sorted(maps.Keys(s.onDemand)) {
		prices := s.onDemand[region]
		for _, typ := range slices.Sorted(maps.Keys(prices)) {
			fields := productFields(region, typ)
			if productMatches(req.Filters, fields) {
				docs = append(docs, priceListDocument(fields, prices[typ]))
			}
		}
	}
	return docs
}

// productFields are the filterable fields of the stub's product for a type: its attributes,
// and the product's family and service code.
func productFields(region, typ string) map[string]string {
	tenancy, family := "Shared", "Compute Instance"
	if strings.Contains(typ, ".metal") {
		tenancy, family = "Dedicated", "Compute Instance (bare metal)"
	}
	return map[string]string{
		"instanceType": typ, "instanceFamily": "General purpose", "regionCode": region, "location": region,
		"locationType": "AWS Region", "tenancy": tenancy, "productFamily": family, "serviceCode": "AmazonEC2",
		"servicecode": "AmazonEC2", "servicename": "Amazon Elastic Compute Cloud", "operatingSystem": "Linux",
		"preInstalledSw": "NA", "capacitystatus": "Used", "marketoption": "OnDemand", "licenseModel": "No License required",
		"usagetype": "BoxUsage:" + typ, "operation": "RunInstances",
	}
}

// productMatches applies the Pricing API's filter types to one product.
func productMatches(filters []struct{ Type, Field, Value string }, fields map[string]string) bool {
	for _, f := range filters {
		v, known := fields[f.Field]
		switch f.Type {
		case "TERM_MATCH", "EQUALS":
			if !known || !strings.EqualFold(v, f.Value) {
				return false
			}
		case "CONTAINS":
			if !known || !strings.Contains(strings.ToLower(v), strings.ToLower(f.Value)) {
				return false
			}
		case "ANY_OF":
			if !known || !slices.ContainsFunc(strings.Split(f.Value, ","), func(x string) bool { return strings.EqualFold(strings.TrimSpace(x), v) }) {
				return false
			}
		case "NONE_OF":
			if known && slices.ContainsFunc(strings.Split(f.Value, ","), func(x string) bool { return strings.EqualFold(strings.TrimSpace(x), v) }) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// priceListDocument is one product in the shape of the Pricing API's PriceList entries.
func priceListDocument(fields map[string]string, price float64) string {
	sum := sha256.Sum256([]byte(fields["regionCode"] + "/" + fields["instanceType"]))
	sku := strings.ToUpper(fmt.Sprintf("%x", sum[:8]))
	currency := "USD"
	if strings.HasPrefix(fields["regionCode"], "cn-") {
		currency = "CNY"
	}
	attrs := map[string]string{}
	for k, v := range fields {
		if k != "productFamily" && k != "serviceCode" {
			attrs[k] = v
		}
	}
	const term, rate = "JRTCKXETXF", "6YS6EN2CT7"
	doc := map[string]any{
		"product": map[string]any{
			"productFamily": fields["productFamily"],
			"attributes":    attrs,
			"sku":           sku,
		},
		"serviceCode": "AmazonEC2",
		"terms": map[string]any{
			"OnDemand": map[string]any{
				sku + "." + term: map[string]any{
					"priceDimensions": map[string]any{
						sku + "." + term + "." + rate: map[string]any{
							"unit":         "Hrs",
							"endRange":     "Inf",
							"description":  fmt.Sprintf("%s %.4f per On Demand Linux %s Instance Hour", currency, price, fields["instanceType"]),
							"appliesTo":    []string{},
							"rateCode":     sku + "." + term + "." + rate,
							"beginRange":   "0",
							"pricePerUnit": map[string]string{currency: strconv.FormatFloat(price, 'f', 10, 64)},
						},
					},
					"sku":            sku,
					"effectiveDate":  "2026-01-01T00:00:00Z",
					"offerTermCode":  term,
					"termAttributes": map[string]string{},
				},
			},
		},
		"version":         "20260101000000",
		"publicationDate": "2026-01-01T00:00:00Z",
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

type xmlSpotPrice struct {
	InstanceType       string `xml:"instanceType"`
	ProductDescription string `xml:"productDescription"`
	SpotPrice          string `xml:"spotPrice"`
	Timestamp          string `xml:"timestamp"`
	Zone               string `xml:"availabilityZone"`
}

type xmlSpotPriceHistoryResponse struct {
	XMLName   xml.Name       `xml:"http://ec2.amazonaws.com/doc/2016-11-15/ DescribeSpotPriceHistoryResponse"`
	RequestID string         `xml:"requestId"`
	History   []xmlSpotPrice `xml:"spotPriceHistorySet>item"`
	NextToken string         `xml:"nextToken"`
}

// describeSpotPriceHistory answers from the seeded spot prices, honouring the product
// descriptions, instance types and zone asked for, and paginating by MaxResults and NextToken.
func (s *PricingStub) describeSpotPriceHistory(w http.ResponseWriter, form url.Values) {
	s.mu.Lock()
	fault, stale, pageSize := s.spotFault, s.staleSpot, s.pageSize
	now := s.spotNow
	if now.IsZero() {
		now = time.Now().UTC().Truncate(time.Second)
		s.spotNow = now // one clock per stub: the pages of one listing agree
	}
	descs, types, zone := indexed(form, "ProductDescription"), indexed(form, "InstanceType"), form.Get("AvailabilityZone")
	var records []xmlSpotPrice
	const desc = "Linux/UNIX"
	if fault == "" && (len(descs) == 0 || slices.Contains(descs, desc)) {
		for _, typ := range slices.Sorted(maps.Keys(s.spot)) {
			if len(types) > 0 && !slices.Contains(types, typ) {
				continue
			}
			zones := s.spot[typ]
			for _, z := range slices.Sorted(maps.Keys(zones)) {
				if zone != "" && z != zone {
					continue
				}
				p := zones[z]
				records = append(records, xmlSpotPrice{InstanceType: typ, ProductDescription: desc, Zone: z,
					SpotPrice: strconv.FormatFloat(p, 'f', 6, 64), Timestamp: now.Add(-time.Minute).Format(time.RFC3339)})
				if stale {
					records = append(records, xmlSpotPrice{InstanceType: typ, ProductDescription: desc, Zone: z,
						SpotPrice: strconv.FormatFloat(10*p+1, 'f', 6, 64), Timestamp: now.Add(-3 * time.Hour).Format(time.RFC3339)})
				}
			}
		}
	}
	s.mu.Unlock()
	if fault != "" {
		writeAWSError(w, "ec2", http.StatusBadRequest, fault, "stub: "+fault)
		return
	}
	size, _ := strconv.Atoi(form.Get("MaxResults"))
	if size <= 0 {
		size = 1000
	}
	if pageSize > 0 {
		size = min(size, pageSize)
	}
	start, ok := pageStart(form.Get("NextToken"), len(records))
	if !ok {
		writeAWSError(w, "ec2", http.StatusBadRequest, "InvalidNextToken", "stub: invalid NextToken")
		return
	}
	end := min(start+size, len(records))
	resp := xmlSpotPriceHistoryResponse{RequestID: "stub", History: records[start:end]}
	if end < len(records) {
		resp.NextToken = "stub-" + strconv.Itoa(end)
	}
	out, err := xml.Marshal(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	_, _ = w.Write(append([]byte(xml.Header), out...))
}

func cloneFlat(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func cloneForm(f url.Values) url.Values {
	out := make(url.Values, len(f))
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}
