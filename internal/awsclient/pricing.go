package awsclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"weak"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	smithy "github.com/aws/smithy-go"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
)

// PricingAPI is the one AWS Pricing API call the provider makes; *pricing.Client satisfies it.
type PricingAPI interface {
	GetProducts(context.Context, *awspricing.GetProductsInput, ...func(*awspricing.Options)) (*awspricing.GetProductsOutput, error)
}

var _ PricingAPI = (*awspricing.Client)(nil)

// SpotPriceAPI is EC2's spot price history. It is kept out of EC2API so that the test fakes of
// that interface need not implement it: Prices type-asserts Client.EC2 to it, and an EC2 client
// without it has no spot prices (spot is then priced as on-demand).
type SpotPriceAPI interface {
	DescribeSpotPriceHistory(context.Context, *ec2.DescribeSpotPriceHistoryInput, ...func(*ec2.Options)) (*ec2.DescribeSpotPriceHistoryOutput, error)
}

var _ SpotPriceAPI = (*ec2.Client)(nil)

// The Pricing API client's budget: a plan must not wait long on an API that is unreachable
// (an isolated VPC) or denied; the embedded table stands in then.
const (
	pricingMaxAttempts = 3
	pricingMaxBackoff  = 2 * time.Second
	pricingDialTimeout = 5 * time.Second
	pricingCallTimeout = 30 * time.Second // one HTTP attempt, response body included
	pricesLoadTimeout  = time.Minute      // both sides of one Prices load
)

const (
	getProductsPageSize = 100  // the Pricing API's maximum
	spotHistoryPageSize = 2000 // as Karpenter asks
	maxReasonRunes      = 180  // of a fallback reason: one line of a plan warning
	pricingServiceCode  = "AmazonEC2"
)

// PricingAPIRegion is the region whose Pricing API endpoint serves region, as Karpenter picks
// it: the API has endpoints in a few regions only.
func PricingAPIRegion(region string) string {
	switch {
	case strings.HasPrefix(region, "ap-"):
		return "ap-south-1"
	case strings.HasPrefix(region, "cn-"):
		return "cn-northwest-1"
	case strings.HasPrefix(region, "eu-"):
		return "eu-central-1"
	}
	return "us-east-1"
}

// newPricingClient builds the Pricing API client from the provider's config: the Pricing API
// region of cfg.Region, endpoint (when set) as the base endpoint, and a small retry and
// connect budget of its own.
func newPricingClient(cfg aws.Config, endpoint string, maxAttempts int) *awspricing.Client {
	pcfg := cfg.Copy()
	pcfg.Region = PricingAPIRegion(cfg.Region)
	attempts := min(max(maxAttempts, 1), pricingMaxAttempts)
	return awspricing.NewFromConfig(pcfg, func(o *awspricing.Options) {
		overrideEndpoint(&o.BaseEndpoint, endpoint)
		o.RetryMaxAttempts = 0 // AWS_MAX_ATTEMPTS must not lift the budget below
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = attempts
			so.MaxBackoff = pricingMaxBackoff
		})
		if hc, ok := o.HTTPClient.(*awshttp.BuildableClient); ok { // keeps a configured CA bundle or proxy
			o.HTTPClient = hc.WithDialerOptions(func(d *net.Dialer) { d.Timeout = pricingDialTimeout }).WithTimeout(pricingCallTimeout)
		}
	})
}

// isGovCloud reports whether region is an AWS GovCloud (US) region, where the Pricing API is
// not offered.
func isGovCloud(region string) bool { return strings.HasPrefix(region, "us-gov-") }

// Prices returns the region's hourly prices, loading them on first use; it never fails. When the
// Pricing API cannot be used (denied, unreachable, not implemented, answering nothing, or the
// region is GovCloud), the on-demand side is Karpenter's embedded table (Prices.Fallback says
// why); when the spot price history cannot be read, spot is priced as on-demand
// (Prices.SpotFromOnDemand, Prices.SpotError), as Karpenter prices it before its first spot
// update.
//
// Loads are shared like the catalog's (see catalogKeyFor): one per process and key, concurrent
// callers waiting on the one in flight. The result is also kept on disk with the catalog cache
// (Client.CatalogDisk): for its TTL when both sides are live, for degradedPricesTTL at most when
// either fell back. The returned Prices is shared: callers must not modify it.
func (c *Client) Prices(ctx context.Context) *pricing.Prices {
	key := pricesKeyFor(c)
	var owner *Client
	if !key.shared() {
		owner = c
	}
	p, err := pricesLoads.entry(key, owner).get(ctx, func() (*pricing.Prices, error) {
		return c.pricesThroughDisk(ctx, key), ctx.Err() // a load its caller cancelled is not kept
	})
	switch {
	case p != nil:
		return p
	case errors.Is(err, errLoadIncomplete):
		return pricing.Fallback(c.Region, "the price lookup did not complete")
	default: // this caller's own context ended while it waited
		return pricing.Fallback(c.Region, "the price lookup was interrupted: "+err.Error())
	}
}

// The prices cache is process-wide, keyed by what decides the answer: the EC2 and Pricing API
// endpoints, the region and the account. Clients whose key is not shared (no account id, or
// clients that are not the SDK's) keep their own entry, dropped with the client.
var pricesLoads sharedLoads[pricesKey, *pricing.Prices]

type pricesKey struct {
	ec2Endpoint, pricingEndpoint, region, account string
	client                                        weak.Pointer[Client] // zero for shared keys
}

func (k pricesKey) shared() bool { return k.client == (weak.Pointer[Client]{}) }

func pricesKeyFor(c *Client) pricesKey {
	ec, okEC2 := c.EC2.(*ec2.Client)
	pc, okPricing := c.Pricing.(*awspricing.Client)
	if !okEC2 || !okPricing || c.AccountID == "" {
		return pricesKey{client: weak.Make(c)}
	}
	eo := ec.Options()
	region := c.Region
	if region == "" {
		region = eo.Region
	}
	return pricesKey{ec2Endpoint: aws.ToString(eo.BaseEndpoint), pricingEndpoint: aws.ToString(pc.Options().BaseEndpoint),
		region: region, account: c.AccountID}
}

// pricesThroughDisk reads a fresh cache file of key when key is shared and the disk cache is
// on, and otherwise asks the APIs and refreshes the file (see degradedPricesTTL for answers
// with a fallback).
func (c *Client) pricesThroughDisk(ctx context.Context, key pricesKey) *pricing.Prices {
	disk := c.CatalogDisk
	useDisk := key.shared() && disk.enabled()
	if useDisk {
		if p, ok := readPrices(ctx, disk, key); ok {
			return p
		}
	}
	p := c.loadPrices(ctx)
	if useDisk && ctx.Err() == nil {
		writePrices(ctx, disk, key, p)
	}
	return p
}

// degradedPricesTTL bounds how long a file holding a fallback (either side) is used: long
// enough that the provider processes of one workflow do not ask again (reading spot prices
// takes seconds), short enough that a granted permission or a recovered API shows soon.
// Karpenter itself refreshes on-demand prices every 12 hours.
const degradedPricesTTL = 10 * time.Minute

// loadPrices asks the Pricing API (on-demand) and EC2 (spot) concurrently.
func (c *Client) loadPrices(ctx context.Context) *pricing.Prices {
	region := c.Region
	ctx, cancel := context.WithTimeout(ctx, pricesLoadTimeout)
	defer cancel()

	var (
		wg                   sync.WaitGroup
		onDemand             map[string]float64
		spot                 map[string]map[string]float64
		onDemandWhy, spotWhy string
	)
	wg.Go(func() {
		switch {
		case isGovCloud(region):
			onDemandWhy = "the AWS Pricing API is not available in GovCloud regions (" + region + ")"
		case c.Pricing == nil:
			onDemandWhy = "no AWS Pricing API client is configured"
		default:
			var err error
			if onDemand, err = LoadOnDemandPrices(ctx, c.Pricing, region); err != nil {
				onDemandWhy = failureReason(err)
				tflog.Info(ctx, "the AWS Pricing API could not be read", map[string]any{"region": region, "error": err.Error()})
			}
		}
	})
	wg.Go(func() {
		api, ok := c.EC2.(SpotPriceAPI)
		if !ok {
			spotWhy = "ec2:DescribeSpotPriceHistory is not available on this EC2 client"
			return
		}
		var err error
		if spot, err = LoadSpotPrices(ctx, api); err != nil {
			spotWhy = failureReason(err)
			tflog.Info(ctx, "the spot price history could not be read", map[string]any{"region": region, "error": err.Error()})
		}
	})
	wg.Wait()

	var p *pricing.Prices
	if onDemandWhy != "" {
		p = pricing.Fallback(region, onDemandWhy)
		tflog.Info(ctx, "on-demand prices from Karpenter's embedded table", map[string]any{"region": region, "reason": onDemandWhy,
			"table_region": p.Fallback.TableRegion, "types": len(p.OnDemand)})
	} else {
		p = pricing.FromPricingAPI(region, onDemand)
		tflog.Debug(ctx, "on-demand prices from the AWS Pricing API", map[string]any{"region": region, "types": len(onDemand)})
	}
	if spotWhy != "" {
		p.Spot, p.SpotFromOnDemand, p.SpotSource, p.SpotError = nil, true, p.OnDemandSource, spotWhy
		tflog.Info(ctx, "spot prices unavailable, spot priced as on-demand", map[string]any{"region": region, "reason": spotWhy})
	} else {
		p.Spot, p.SpotFromOnDemand, p.SpotSource, p.SpotError = spot, false, pricing.SourceSpotAPI, ""
		tflog.Debug(ctx, "spot prices from the EC2 spot price history", map[string]any{"region": region, "types": len(spot)})
	}
	return p
}

// apiFailure is an error of one API action, told in a short line (failureReason).
type apiFailure struct {
	action string // IAM-style, e.g. pricing:GetProducts
	err    error  // nil: the call answered, but with nothing usable
	empty  string // what was missing when err is nil
}

func (f *apiFailure) Error() string {
	if f.err == nil {
		return f.action + " " + f.empty
	}
	return f.action + " failed: " + f.err.Error()
}

func (f *apiFailure) Unwrap() error { return f.err }

// failureReason is err as one short readable line: the action, then the API's error code and
// message, or the network error, without the SDK's request details.
func failureReason(err error) string {
	var f *apiFailure
	if !errors.As(err, &f) {
		return clip(oneLine(err.Error()))
	}
	if f.err == nil {
		return clip(oneLine(f.Error()))
	}
	return clip(oneLine(f.action + " failed: " + briefError(f.err)))
}

func briefError(err error) string {
	// The code says what went wrong (denied, not implemented, throttled); the message, often a
	// principal's ARN or an emulator's excuse, would fill the plan warning it ends up in, so it
	// goes to the debug log only.
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	if errors.Is(err, context.Canceled) {
		return "cancelled"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxReasonRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxReasonRunes-1]) + "…"
}

// On-demand queries: Karpenter's two, the shared-tenancy instances and the bare-metal ones.
var onDemandQueries = []struct {
	tenancy, productFamily string
}{
	{"Shared", "Compute Instance"},
	{"Dedicated", "Compute Instance (bare metal)"},
}

// OnDemandFilters are the GetProducts filters of one of Karpenter's on-demand queries.
func OnDemandFilters(region, tenancy, productFamily string) []pricingtypes.Filter {
	term := func(field, value string) pricingtypes.Filter {
		return pricingtypes.Filter{Field: aws.String(field), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String(value)}
	}
	return []pricingtypes.Filter{
		term("regionCode", region),
		term("serviceCode", pricingServiceCode),
		term("preInstalledSw", "NA"),
		term("operatingSystem", "Linux"),
		term("capacitystatus", "Used"),
		term("marketoption", "OnDemand"),
		term("tenancy", tenancy),
		term("productFamily", productFamily),
	}
}

// LoadOnDemandPrices reads the region's Linux on-demand prices (USD per hour; CNY in the China
// regions) with Karpenter's two GetProducts queries, run concurrently and paginated. Either
// query answering no price is an error, as it is for Karpenter.
func LoadOnDemandPrices(ctx context.Context, api PricingAPI, region string) (map[string]float64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]map[string]float64, len(onDemandQueries))
	errs := make([]error, len(onDemandQueries))
	var wg sync.WaitGroup
	for i, q := range onDemandQueries {
		wg.Go(func() {
			results[i], errs[i] = loadOnDemandQuery(ctx, api, region, q.tenancy, q.productFamily)
			if errs[i] != nil {
				cancel() // no point finishing the other query
			}
		})
	}
	wg.Wait()
	// Report the failure that cancelled the other query, not the cancellation.
	var firstErr error
	for _, err := range errs {
		if err != nil && (firstErr == nil || (isContextError(firstErr) && !isContextError(err))) {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	out := make(map[string]float64, len(results[0])+len(results[1]))
	for _, r := range results {
		for t, v := range r {
			out[t] = v
		}
	}
	return out, nil
}

func loadOnDemandQuery(ctx context.Context, api PricingAPI, region, tenancy, family string) (map[string]float64, error) {
	in := &awspricing.GetProductsInput{
		ServiceCode: aws.String(pricingServiceCode),
		Filters:     OnDemandFilters(region, tenancy, family),
		MaxResults:  aws.Int32(getProductsPageSize),
	}
	currency := "USD"
	if strings.HasPrefix(region, "cn-") {
		currency = "CNY"
	}
	out := map[string]float64{}
	p := awspricing.NewGetProductsPaginator(api, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, &apiFailure{action: "pricing:GetProducts", err: err}
		}
		for _, doc := range page.PriceList {
			if t, v, ok := parsePriceListItem(doc, currency); ok {
				out[t] = v
			}
		}
	}
	if len(out) == 0 {
		return nil, &apiFailure{action: "pricing:GetProducts",
			empty: fmt.Sprintf("returned no on-demand prices for %s (tenancy %s, product family %q)", region, tenancy, family)}
	}
	return out, nil
}

// priceListItem is the part of one GetProducts PriceList document the provider reads.
type priceListItem struct {
	Product struct {
		Attributes struct {
			InstanceType string `json:"instanceType"`
		} `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]struct {
			PriceDimensions map[string]struct {
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
		} `json:"OnDemand"`
	} `json:"terms"`
}

// parsePriceListItem returns the instance type and hourly price in currency of one PriceList
// document; ok is false for a document that does not parse or has no non-zero price. Of
// several priced dimensions (not seen in practice), the first in key order wins.
func parsePriceListItem(doc, currency string) (instanceType string, price float64, ok bool) {
	var item priceListItem
	if err := json.Unmarshal([]byte(doc), &item); err != nil || item.Product.Attributes.InstanceType == "" {
		return "", 0, false
	}
	for _, tk := range slices.Sorted(maps.Keys(item.Terms.OnDemand)) {
		dims := item.Terms.OnDemand[tk].PriceDimensions
		for _, dk := range slices.Sorted(maps.Keys(dims)) {
			v, err := strconv.ParseFloat(dims[dk].PricePerUnit[currency], 64)
			if err == nil && v > 0 {
				return item.Product.Attributes.InstanceType, v, true
			}
		}
	}
	return "", 0, false
}

// LoadSpotPrices reads the current Linux spot price of every instance type in every zone of
// the region from EC2's spot price history (Karpenter's query: StartTime now, so EC2 answers the
// price in force per type and zone), keeping per type and zone the record with the newest
// timestamp. An empty history is an error, as it is for Karpenter.
func LoadSpotPrices(ctx context.Context, api SpotPriceAPI) (map[string]map[string]float64, error) {
	in := &ec2.DescribeSpotPriceHistoryInput{
		ProductDescriptions: []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"},
		StartTime:           aws.Time(time.Now()),
		MaxResults:          aws.Int32(spotHistoryPageSize),
	}
	type stamped struct {
		price float64
		at    time.Time
	}
	newest := map[string]map[string]stamped{}
	p := ec2.NewDescribeSpotPriceHistoryPaginator(api, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, &apiFailure{action: "ec2:DescribeSpotPriceHistory", err: err}
		}
		for _, r := range page.SpotPriceHistory {
			v, err := strconv.ParseFloat(aws.ToString(r.SpotPrice), 64)
			if err != nil || r.Timestamp == nil || r.InstanceType == "" || aws.ToString(r.AvailabilityZone) == "" {
				continue
			}
			t, zone := string(r.InstanceType), aws.ToString(r.AvailabilityZone)
			zones := newest[t]
			if zones == nil {
				zones = map[string]stamped{}
				newest[t] = zones
			}
			if old, seen := zones[zone]; !seen || r.Timestamp.After(old.at) {
				zones[zone] = stamped{v, *r.Timestamp}
			}
		}
	}
	if len(newest) == 0 {
		return nil, &apiFailure{action: "ec2:DescribeSpotPriceHistory", empty: "returned no spot prices"}
	}
	out := make(map[string]map[string]float64, len(newest))
	for t, zones := range newest {
		m := make(map[string]float64, len(zones))
		for z, s := range zones {
			m[z] = s.price
		}
		out[t] = m
	}
	return out, nil
}

// pricesFileVersion changes whenever pricesFile or what it holds changes meaning; files of
// another version are ignored (and overwritten).
const pricesFileVersion = 2

// pricesFile is what a prices cache file holds: the live prices of each side, or why a side
// fell back (the embedded table is not copied: it is rebuilt from the binary).
type pricesFile struct {
	Version                                       int
	EC2Endpoint, PricingEndpoint, Region, Account string
	Written                                       time.Time
	OnDemand                                      map[string]float64 // nil when FallbackReason is set
	Spot                                          map[string]map[string]float64
	FallbackReason                                string // why on-demand is the embedded table
	SpotError                                     string // why spot is priced as on-demand
}

func (f *pricesFile) degraded() bool { return f.FallbackReason != "" || f.SpotError != "" }

// prices rebuilds what loadPrices returned.
func (f *pricesFile) prices() *pricing.Prices {
	var p *pricing.Prices
	if f.FallbackReason != "" {
		p = pricing.Fallback(f.Region, f.FallbackReason)
	} else {
		p = pricing.FromPricingAPI(f.Region, f.OnDemand)
	}
	if f.SpotError != "" {
		p.Spot, p.SpotFromOnDemand, p.SpotSource, p.SpotError = nil, true, p.OnDemandSource, f.SpotError
	} else {
		p.Spot, p.SpotFromOnDemand, p.SpotSource, p.SpotError = f.Spot, false, pricing.SourceSpotAPI, ""
	}
	return p
}

// pricesPath is the prices file of k in the catalog cache's directory: a hash, so that
// endpoints and account ids never become paths.
func pricesPath(d *CatalogDisk, k pricesKey) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "prices\x00%d\x00%s\x00%s\x00%s\x00%s", pricesFileVersion, k.ec2Endpoint, k.pricingEndpoint, k.region, k.account))
	return filepath.Join(d.Dir, "prices-"+hex.EncodeToString(sum[:12])+".gob")
}

// readPrices returns the cached prices of k when a fresh file of this version and key exists.
func readPrices(ctx context.Context, d *CatalogDisk, k pricesKey) (*pricing.Prices, bool) {
	p := pricesPath(d, k)
	b, err := os.ReadFile(p)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			tflog.Debug(ctx, "prices cache unreadable", map[string]any{"path": p, "error": err.Error()})
		}
		return nil, false
	}
	var f pricesFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		tflog.Debug(ctx, "prices cache corrupt, asking the APIs", map[string]any{"path": p, "error": err.Error()})
		return nil, false
	}
	age := d.clock().Sub(f.Written)
	ttl := d.TTL
	if f.degraded() {
		ttl = min(ttl, degradedPricesTTL)
	}
	switch {
	case f.Version != pricesFileVersion || f.EC2Endpoint != k.ec2Endpoint || f.PricingEndpoint != k.pricingEndpoint ||
		f.Region != k.region || f.Account != k.account:
		tflog.Debug(ctx, "prices cache belongs to another version or key, asking the APIs", map[string]any{"path": p})
		return nil, false
	case age < 0 || age >= ttl || (f.FallbackReason == "" && len(f.OnDemand) == 0) || (f.SpotError == "" && len(f.Spot) == 0):
		tflog.Debug(ctx, "prices cache expired, asking the APIs", map[string]any{"path": p, "age": age.String()})
		return nil, false
	}
	tflog.Debug(ctx, "prices from the disk cache", map[string]any{"path": p, "age": age.Round(time.Second).String(),
		"on_demand_types": len(f.OnDemand), "spot_types": len(f.Spot), "fallback": f.FallbackReason, "spot_error": f.SpotError})
	return f.prices(), true
}

// writePrices stores p for k atomically (temporary file, then rename).
func writePrices(ctx context.Context, d *CatalogDisk, k pricesKey, p *pricing.Prices) {
	path := pricesPath(d, k)
	f := pricesFile{Version: pricesFileVersion, EC2Endpoint: k.ec2Endpoint, PricingEndpoint: k.pricingEndpoint,
		Region: k.region, Account: k.account, Written: d.clock(), OnDemand: p.OnDemand, Spot: p.Spot, SpotError: p.SpotError}
	if p.Fallback != nil {
		f.OnDemand, f.FallbackReason = nil, p.Fallback.Reason
	}
	if p.SpotFromOnDemand && f.SpotError == "" {
		f.SpotError = "spot priced as on-demand"
	}
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(f)
	if err == nil {
		err = writeFileAtomic(path, buf.Bytes())
	}
	if err != nil {
		tflog.Debug(ctx, "prices cache not written", map[string]any{"path": path, "error": err.Error()})
		return
	}
	tflog.Debug(ctx, "prices written to the disk cache", map[string]any{"path": path, "bytes": buf.Len()})
}
