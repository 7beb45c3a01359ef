package awsclient

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/memo"
)

// Shared listings: a refresh reads every node pool, and each pool used to list its own launch
// templates (and, for static pools, its instances) by tag: N calls for N pools. The reads of one
// provider configuration now share one listing per scope (the ownership tags every pool of the
// cluster has), filtered per pool in memory: a refresh of N pools makes one paginated
// DescribeLaunchTemplates and one DescribeInstances, however large N is.
//
// A listing lives as long as the Client, which Terraform configures anew for every walk
// (validate, plan, apply, import): the reads of one refresh see one snapshot, and nothing the
// provider writes in an apply walk can be hidden by a listing taken before it. Only resource
// reads use listings; writes and deletes always list afresh.

func scopeKey(kind string, scope map[string]string) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, k := range slices.Sorted(maps.Keys(scope)) {
		b.WriteString("\x00" + k + "=" + scope[k])
	}
	return b.String()
}

// hasTags reports whether have carries every tag of want.
func hasTags(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// ReadTemplates is LaunchTemplates.FindByTags(tags, known) over the client's shared listing of
// scope (a subset of tags that many reads have in common). A nil scope lists by tags directly.
func (c *Client) ReadTemplates(ctx context.Context, scope, tags map[string]string, known map[string]fleet.LaunchTemplate) ([]fleet.LaunchTemplate, error) {
	lts := LaunchTemplates{EC2: c.EC2}
	if scope == nil {
		return lts.FindByTags(ctx, tags, known)
	}
	listed, err := memo.Do(ctx, &c.listings, scopeKey("launch-templates", scope), func() ([]ec2types.LaunchTemplate, error) {
		return lts.list(ctx, scope)
	})
	if err != nil {
		return nil, err
	}
	var mine []ec2types.LaunchTemplate
	for _, t := range listed {
		if hasTags(tagMap(t.Tags), tags) {
			mine = append(mine, t)
		}
	}
	return lts.withContents(ctx, mine, known)
}

// ListTemplates lists the templates carrying every tag, without reading their content (id,
// name and tags only), over the client's shared listing of scope; a nil scope lists afresh.
func (c *Client) ListTemplates(ctx context.Context, scope, tags map[string]string) ([]fleet.LaunchTemplate, error) {
	lts := LaunchTemplates{EC2: c.EC2}
	var listed []ec2types.LaunchTemplate
	var err error
	if scope == nil {
		listed, err = lts.list(ctx, tags)
	} else {
		listed, err = memo.Do(ctx, &c.listings, scopeKey("launch-templates", scope), func() ([]ec2types.LaunchTemplate, error) {
			return lts.list(ctx, scope)
		})
	}
	if err != nil {
		return nil, err
	}
	var out []fleet.LaunchTemplate
	for _, t := range listed {
		if m := tagMap(t.Tags); hasTags(m, tags) {
			out = append(out, fleet.LaunchTemplate{ID: aws.ToString(t.LaunchTemplateId), Name: aws.ToString(t.LaunchTemplateName),
				DefaultVersion: aws.ToInt64(t.DefaultVersionNumber), Tags: m})
		}
	}
	return out, nil
}

// ReadInstances is Instances.FindByTags(tags) over the client's shared listing of scope. A nil
// scope lists by tags directly.
func (c *Client) ReadInstances(ctx context.Context, scope, tags map[string]string) ([]fleet.Instance, error) {
	x := Instances{EC2: c.EC2}
	if scope == nil {
		return x.FindByTags(ctx, tags)
	}
	listed, err := memo.Do(ctx, &c.listings, scopeKey("instances", scope), func() ([]fleet.Instance, error) {
		return x.FindByTags(ctx, scope)
	})
	if err != nil {
		return nil, err
	}
	var mine []fleet.Instance
	for _, i := range listed {
		if hasTags(i.Tags, tags) {
			mine = append(mine, i)
		}
	}
	return mine, nil
}

// LaunchTemplates are the client's launch-template calls (the apply stage's fleet.Templates).
func (c *Client) LaunchTemplates() LaunchTemplates { return LaunchTemplates{EC2: c.EC2} }

// Instances are the client's instance calls (the apply stage's fleet.Instances).
func (c *Client) Instances() Instances { return Instances{EC2: c.EC2} }

// InstanceSubnets is the subnet of each instance id; ids EC2 no longer knows are left out.
func (c *Client) InstanceSubnets(ctx context.Context, ids []string) (map[string]string, error) {
	found, err := c.Instances().Describe(ctx, ids)
	subnets := make(map[string]string, len(found))
	for _, in := range found {
		subnets[in.ID] = in.SubnetID
	}
	return subnets, err
}
