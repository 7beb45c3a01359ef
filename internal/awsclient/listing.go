package awsclient

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
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
type listings struct {
	mu      sync.Mutex
	entries map[string]*listingEntry
}

type listingEntry struct {
	done      chan struct{}
	finished  bool // under listings.mu, after done is closed
	templates []ec2types.LaunchTemplate
	instances []Instance
	err       error
}

func scopeKey(kind string, scope map[string]string) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, k := range slices.Sorted(maps.Keys(scope)) {
		b.WriteString("\x00" + k + "=" + scope[k])
	}
	return b.String()
}

// shared runs load once per key among concurrent and later callers of this client; a failed
// load is not kept, so the next caller tries again.
func (c *Client) shared(ctx context.Context, key string, load func(context.Context, *listingEntry)) (*listingEntry, error) {
	c.listingsMu.Lock()
	if c.listings == nil {
		c.listings = &listings{entries: map[string]*listingEntry{}}
	}
	l := c.listings
	c.listingsMu.Unlock()

	l.mu.Lock()
	e, ok := l.entries[key]
	if ok && (!e.finished || e.err == nil) {
		l.mu.Unlock()
		select {
		case <-e.done:
			return e, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e = &listingEntry{done: make(chan struct{})}
	l.entries[key] = e
	l.mu.Unlock()
	func() {
		defer func() {
			close(e.done)
			l.mu.Lock()
			e.finished = true
			l.mu.Unlock()
		}()
		load(ctx, e)
	}()
	return e, e.err
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
// scope (a subset of tags that many reads have in common).
func (c *Client) ReadTemplates(ctx context.Context, scope, tags map[string]string, known map[string]LaunchTemplate) ([]LaunchTemplate, error) {
	lts := LaunchTemplates{EC2: c.EC2}
	e, err := c.shared(ctx, scopeKey("launch-templates", scope), func(ctx context.Context, e *listingEntry) {
		e.templates, e.err = lts.list(ctx, scope)
	})
	if err != nil {
		return nil, err
	}
	var mine []ec2types.LaunchTemplate
	for _, t := range e.templates {
		if hasTags(tagMap(t.Tags), tags) {
			mine = append(mine, t)
		}
	}
	return lts.withContents(ctx, mine, known)
}

// ReadInstances is Instances.FindByTags(tags) over the client's shared listing of scope.
func (c *Client) ReadInstances(ctx context.Context, scope, tags map[string]string) ([]Instance, error) {
	e, err := c.shared(ctx, scopeKey("instances", scope), func(ctx context.Context, e *listingEntry) {
		e.instances, e.err = Instances{EC2: c.EC2}.FindByTags(ctx, scope)
	})
	if err != nil {
		return nil, err
	}
	var mine []Instance
	for _, i := range e.instances {
		if hasTags(i.Tags, tags) {
			mine = append(mine, i)
		}
	}
	return mine, nil
}
