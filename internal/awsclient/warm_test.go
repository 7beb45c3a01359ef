package awsclient

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
)

// warmTestClient is an SDK client whose keys are shared (so the disk cache serves it) and whose
// endpoint answers nothing: any AWS call fails.
func warmTestClient(t *testing.T, disk *CatalogDisk) *Client {
	endpoint := "http://127.0.0.1:1/" + t.Name() // a key of its own in the process-wide entries
	return &Client{
		EC2:     ec2.New(ec2.Options{Region: "ap-southeast-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1}),
		Pricing: awspricing.New(awspricing.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1}),
		Region:  "ap-southeast-1", AccountID: "000000000000", CatalogDisk: disk,
	}
}

// The class's warm-up puts the disk's catalog and prices in memory: the pools' Catalog and
// Prices then answer from there, with no AWS call (the client's endpoint answers nothing).
func TestWarmFromDiskLoadsTheFiles(t *testing.T) {
	ctx := context.Background()
	disk := &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour}
	c := warmTestClient(t, disk)
	types, err := loadCatalogTypes(ctx, newCatalogFake(250, 100, 300))
	if err != nil {
		t.Fatal(err)
	}
	disk.write(ctx, catalogKeyFor(c), types)
	prices := pricesTestClient("ap-southeast-1", newPricingFake(), newSpotFake()).loadPrices(ctx)
	writePrices(ctx, disk, pricesKeyFor(c), prices)

	c.warmFromDisk(ctx)
	if !entryFor(c).kept || !pricesLoads.entry(pricesKeyFor(c), nil).kept {
		t.Fatal("after the warm-up the catalog or the prices are not in memory")
	}
	cat, err := c.Catalog(ctx)
	if err != nil || cat.Len() != 250 {
		t.Fatalf("catalog of %v types, %v; want the file's 250", cat.Len(), err)
	}
	if got := c.Prices(ctx); !reflect.DeepEqual(got, prices) {
		t.Errorf("prices %+v, want the file's %+v", got, prices)
	}
}

// Without fresh files the warm-up keeps nothing: the first pool loads.
func TestWarmFromDiskWithoutFiles(t *testing.T) {
	ctx := context.Background()
	disk := &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour}
	c := warmTestClient(t, disk)
	c.warmFromDisk(ctx)
	if entryFor(c).kept || pricesLoads.entry(pricesKeyFor(c), nil).kept {
		t.Error("the warm-up kept a value without a file")
	}
	(&Client{}).WarmFromDisk(ctx) // no disk cache: nothing to do, and no panic
	var nilClient *Client
	nilClient.WarmFromDisk(ctx)
}
