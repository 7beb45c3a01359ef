package awsclient

import (
	"context"
	"sync"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// DiscoveryCache remembers, for one provider process (one Terraform command), the answer to
// each distinct subnet or security-group filter set, so node classes and data sources that
// share selectors cost one Describe call between them. Concurrent askers share one call; a
// failed call is not remembered. A new command starts a new process and asks EC2 again, so a
// tag changed between plans is always seen.
type DiscoveryCache struct {
	mu      sync.Mutex
	entries map[string]*discoveryEntry
}

type discoveryEntry struct {
	done    chan struct{}
	subnets []discovery.Subnet
	groups  []discovery.SecurityGroup
	err     error
}

// NewDiscoveryCache returns an empty cache.
func NewDiscoveryCache() *DiscoveryCache {
	return &DiscoveryCache{entries: map[string]*discoveryEntry{}}
}

// do runs fill once per key among concurrent and later callers.
func (c *DiscoveryCache) do(ctx context.Context, key string, fill func(*discoveryEntry)) (*discoveryEntry, error) {
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok {
		e = &discoveryEntry{done: make(chan struct{})}
		c.entries[key] = e
		c.mu.Unlock()
		fill(e)
		if e.err != nil {
			c.mu.Lock()
			delete(c.entries, key)
			c.mu.Unlock()
		}
		close(e.done)
		return e, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Discovery returns the client's discovery adapter, sharing the client's cache.
func (c *Client) Discovery() Discovery {
	return Discovery{EC2: c.EC2, Cache: c.discoveryCache}
}

// cachedSubnets answers FindSubnets from the cache when there is one.
func (d Discovery) cachedSubnets(ctx context.Context, fs discovery.FilterSet) ([]discovery.Subnet, error) {
	e, err := d.Cache.do(ctx, "subnets|"+fs.Key(), func(e *discoveryEntry) {
		e.subnets, e.err = d.findSubnets(ctx, fs)
	})
	if err != nil {
		return nil, err
	}
	return append([]discovery.Subnet(nil), e.subnets...), nil
}

// cachedSecurityGroups answers FindSecurityGroups from the cache when there is one.
func (d Discovery) cachedSecurityGroups(ctx context.Context, fs discovery.FilterSet) ([]discovery.SecurityGroup, error) {
	e, err := d.Cache.do(ctx, "groups|"+fs.Key(), func(e *discoveryEntry) {
		e.groups, e.err = d.findSecurityGroups(ctx, fs)
	})
	if err != nil {
		return nil, err
	}
	return append([]discovery.SecurityGroup(nil), e.groups...), nil
}
