package awsclient

import (
	"context"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/memo"
)

// DiscoveryCache remembers, for one provider process (one Terraform command), the answer to
// each distinct subnet or security-group filter set, so node classes and data sources that
// share selectors cost one Describe call between them. Concurrent askers share one call; a
// failed call is not remembered. A new command starts a new process and asks EC2 again, so a
// tag changed between plans is always seen. The rules of each security group described are kept
// with it, for the connectivity checks (FindSecurityGroupRules).
type DiscoveryCache struct {
	m      memo.Memo
	groups groupRules
}

// NewDiscoveryCache returns an empty cache.
func NewDiscoveryCache() *DiscoveryCache { return &DiscoveryCache{} }

// Discovery returns the client's discovery adapter, sharing the client's cache.
func (c *Client) Discovery() Discovery {
	return Discovery{EC2: c.EC2, SSM: c.SSM, Cache: c.discoveryCache}
}

// cachedSubnets answers FindSubnets from the cache when there is one.
func (d Discovery) cachedSubnets(ctx context.Context, fs discovery.FilterSet) ([]discovery.Subnet, error) {
	subnets, err := memo.Do(ctx, &d.Cache.m, "subnets|"+fs.Key(), func() ([]discovery.Subnet, error) {
		return d.findSubnets(ctx, fs)
	})
	if err != nil {
		return nil, err
	}
	return append([]discovery.Subnet(nil), subnets...), nil
}

// cachedSecurityGroups answers FindSecurityGroups from the cache when there is one.
func (d Discovery) cachedSecurityGroups(ctx context.Context, fs discovery.FilterSet) ([]discovery.SecurityGroup, error) {
	groups, err := memo.Do(ctx, &d.Cache.m, "groups|"+fs.Key(), func() ([]discovery.SecurityGroup, error) {
		return d.findSecurityGroups(ctx, fs)
	})
	if err != nil {
		return nil, err
	}
	return append([]discovery.SecurityGroup(nil), groups...), nil
}
