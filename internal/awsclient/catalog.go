package awsclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"weak"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient/ec2catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// Page sizes: DescribeInstanceTypes allows at most 100, DescribeInstanceTypeOfferings 1000.
const (
	instanceTypesPageSize = 100
	offeringsPageSize     = 1000
)

// LoadCatalog reads every instance type of the region and the availability zones that offer
// each, following pagination on both calls (AWS pages them; LocalStack returns one page).
// The two listings are read concurrently.
func LoadCatalog(ctx context.Context, api EC2API) (*catalog.Catalog, error) {
	types, err := loadCatalogTypes(ctx, api)
	if err != nil {
		return nil, err
	}
	return catalog.New(types), nil
}

// loadCatalogTypes is LoadCatalog before catalog.New: the converted types with their zones.
func loadCatalogTypes(ctx context.Context, api EC2API) ([]catalog.InstanceType, error) {
	var (
		wg        sync.WaitGroup
		infos     []ec2types.InstanceTypeInfo
		offerings map[string][]string
		typesErr  error
		offerErr  error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		if offerings, offerErr = loadOfferings(ctx, api); offerErr != nil {
			cancel()
		}
	}()
	if infos, typesErr = loadInstanceTypes(ctx, api); typesErr != nil {
		cancel() // no point finishing the offerings
	}
	wg.Wait()
	if typesErr != nil || offerErr != nil {
		// Report the failure that cancelled the other listing, not the cancellation.
		err := typesErr
		if err == nil || (isContextError(err) && offerErr != nil && !isContextError(offerErr)) {
			err = offerErr
		}
		return nil, err
	}
	types := make([]catalog.InstanceType, len(infos))
	for i := range infos {
		types[i] = ec2catalog.InstanceType(&infos[i])
		types[i].Zones = offerings[types[i].Name]
	}
	return types, nil
}

func loadInstanceTypes(ctx context.Context, api EC2API) ([]ec2types.InstanceTypeInfo, error) {
	p := ec2.NewDescribeInstanceTypesPaginator(api, &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(instanceTypesPageSize)})
	var out []ec2types.InstanceTypeInfo
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing instance types: %w", err)
		}
		out = append(out, page.InstanceTypes...)
	}
	return out, nil
}

// loadOfferings maps instance type name -> zones that offer it.
func loadOfferings(ctx context.Context, api EC2API) (map[string][]string, error) {
	p := ec2.NewDescribeInstanceTypeOfferingsPaginator(api, &ec2.DescribeInstanceTypeOfferingsInput{
		LocationType: ec2types.LocationTypeAvailabilityZone,
		MaxResults:   aws.Int32(offeringsPageSize),
	})
	out := map[string][]string{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing instance type offerings: %w", err)
		}
		for _, o := range page.InstanceTypeOfferings {
			name := string(o.InstanceType)
			out[name] = append(out[name], aws.ToString(o.Location))
		}
	}
	return out, nil
}

// The catalog cache is process-wide, keyed by what decides the answer: EC2 endpoint, region
// and account. A Terraform provider process configures once, so the catalog is loaded at most
// once per process, however many data sources read it and however parallel; in-process test
// harnesses that configure many clients against one endpoint share one load too. When the
// account is unknown (skip_requesting_account_id) or the EC2 client is not the SDK's, the
// entry belongs to the one client, held by a weak pointer and dropped with it.
var catalogs sharedLoads[catalogKey, *catalog.Catalog]

type catalogKey struct {
	endpoint, region, account string
	client                    weak.Pointer[Client] // zero for shared keys
}

func catalogKeyFor(c *Client) catalogKey {
	if ec, ok := c.EC2.(*ec2.Client); ok && c.AccountID != "" {
		o := ec.Options()
		return catalogKey{endpoint: aws.ToString(o.BaseEndpoint), region: o.Region, account: c.AccountID}
	}
	return catalogKey{client: weak.Make(c)}
}

// entryFor is the catalog entry of c's key.
func entryFor(c *Client) *sharedEntry[*catalog.Catalog] {
	key := catalogKeyFor(c)
	var owner *Client
	if key.client != (weak.Pointer[Client]{}) {
		owner = c
	}
	return catalogs.entry(key, owner)
}

// Catalog returns the region's instance-type catalog, loading it on first use. Concurrent
// callers share one load (single flight). A successful load is kept for the process (or the
// client's lifetime, see catalogKeyFor); a failed one is not: callers that waited on it get its error, and the next
// caller loads again. A caller whose own context ends stops waiting; if the loading caller's
// context ends, waiters with live contexts start a new load instead of inheriting that error.
func (c *Client) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	cat, err := entryFor(c).get(ctx, func() (*catalog.Catalog, error) { return c.loadCatalog(ctx) })
	if errors.Is(err, errLoadIncomplete) {
		return nil, fmt.Errorf("instance-type catalog: %w", err)
	}
	return cat, err
}

// loadCatalog reads the catalog from the disk cache when one is configured and the key is
// shared (endpoint, region and account known), and from EC2 otherwise.
func (c *Client) loadCatalog(ctx context.Context) (*catalog.Catalog, error) {
	key := catalogKeyFor(c)
	if key.client != (weak.Pointer[Client]{}) {
		return LoadCatalog(ctx, c.EC2)
	}
	return loadThroughDisk(ctx, c.CatalogDisk, key, c.EC2)
}

// loadThroughDisk uses a fresh cache file of key when there is one, and otherwise loads from
// EC2 and refreshes the file. A nil or disabled disk is a plain LoadCatalog.
func loadThroughDisk(ctx context.Context, disk *CatalogDisk, key catalogKey, api EC2API) (*catalog.Catalog, error) {
	if !disk.enabled() {
		return LoadCatalog(ctx, api)
	}
	if types, ok := disk.read(ctx, key); ok {
		return catalog.New(types), nil
	}
	types, err := loadCatalogTypes(ctx, api)
	if err != nil {
		return nil, err
	}
	disk.write(ctx, key, types) // before catalog.New takes ownership of types
	return catalog.New(types), nil
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
