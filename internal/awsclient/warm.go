package awsclient

import (
	"context"
	"sync"
	"weak"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// WarmFromDisk starts, in the background, loading the catalog and the prices from fresh disk
// cache files, so that the first pool of a plan finds them in memory. It never asks AWS: a
// missing or stale file leaves the load to the first caller of Catalog or Prices, and a load
// already in flight or done is left alone. The node class calls it while its own AWS calls are
// on the wire (its pools plan after it), which takes the files' decoding off the pools' path.
func (c *Client) WarmFromDisk(ctx context.Context) {
	if c == nil || !c.CatalogDisk.enabled() {
		return
	}
	go c.warmFromDisk(context.WithoutCancel(ctx)) // the class's request ends before the pools read them
}

// warmFromDisk is WarmFromDisk's work, returning when both files are read (or found missing).
func (c *Client) warmFromDisk(ctx context.Context) {
	disk := c.CatalogDisk
	var wg sync.WaitGroup
	if key := catalogKeyFor(c); key.client == (weak.Pointer[Client]{}) {
		wg.Go(func() {
			if types, ok := disk.read(ctx, key); ok {
				entryFor(c).offer(catalog.New(types))
			}
		})
	}
	if key := pricesKeyFor(c); key.shared() {
		wg.Go(func() {
			if p, ok := readPrices(ctx, disk, key); ok {
				pricesLoads.entry(key, nil).offer(p)
			}
		})
	}
	wg.Wait()
}
