package awsclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// listingFake serves DescribeLaunchTemplates and DescribeInstances from fixed objects, applying
// tag filters like EC2, and counts the calls.
type listingFake struct {
	EC2API
	templates []ec2types.LaunchTemplate
	instances []ec2types.Instance
	ltCalls   atomic.Int32
	iCalls    atomic.Int32
	fail      atomic.Int32 // the next fail calls of either kind fail
	gate      chan struct{}
}

func matches(tags []ec2types.Tag, filters []ec2types.Filter) bool {
	have := tagMap(tags)
	for _, f := range filters {
		key, ok := strings.CutPrefix(aws.ToString(f.Name), "tag:")
		if !ok {
			continue
		}
		if v, ok := have[key]; !ok || v != f.Values[0] {
			return false
		}
	}
	return true
}

func (f *listingFake) DescribeLaunchTemplates(ctx context.Context, in *ec2.DescribeLaunchTemplatesInput, _ ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplatesOutput, error) {
	f.ltCalls.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	if f.fail.Load() > 0 {
		f.fail.Add(-1)
		return nil, errors.New("throttled")
	}
	out := &ec2.DescribeLaunchTemplatesOutput{}
	for _, t := range f.templates {
		if matches(t.Tags, in.Filters) {
			out.LaunchTemplates = append(out.LaunchTemplates, t)
		}
	}
	return out, nil
}

func (f *listingFake) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	f.iCalls.Add(1)
	var r ec2types.Reservation
	for _, i := range f.instances {
		if matches(i.Tags, in.Filters) {
			r.Instances = append(r.Instances, i)
		}
	}
	return &ec2.DescribeInstancesOutput{Reservations: []ec2types.Reservation{r}}, nil
}

func poolTags(cluster, pool string) map[string]string {
	return map[string]string{"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter", "karpenter.k8s.aws/cluster": cluster, "karpenter.sh/nodepool": pool}
}

func scopeOf(cluster string) map[string]string {
	return map[string]string{"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter", "karpenter.k8s.aws/cluster": cluster}
}

// newListingFake holds pools p0..p(n-1) of cluster c1 with two templates and one instance
// each, plus the same for another cluster that no read of c1 may see.
func newListingFake(n int) (*listingFake, map[string]LaunchTemplate) {
	f := &listingFake{}
	known := map[string]LaunchTemplate{}
	for _, cluster := range []string{"c1", "c2"} {
		for p := range n {
			pool := fmt.Sprintf("p%d", p)
			for g := range 2 {
				name := fmt.Sprintf("%s/%s/g%d", cluster, pool, g)
				id := "lt-" + name
				f.templates = append(f.templates, ec2types.LaunchTemplate{LaunchTemplateId: aws.String(id), LaunchTemplateName: aws.String(name),
					DefaultVersionNumber: aws.Int64(1), Tags: tagList(poolTags(cluster, pool))})
				known[name] = LaunchTemplate{ID: id, Name: name, DefaultVersion: 1, Fingerprint: "fp-" + name}
			}
			f.instances = append(f.instances, ec2types.Instance{InstanceId: aws.String("i-" + cluster + pool),
				State: &ec2types.InstanceState{Name: ec2types.InstanceStateNameRunning}, Tags: tagList(poolTags(cluster, pool))})
		}
	}
	return f, known
}

// The reads of one client (one Terraform walk) share one listing per scope: N pools read
// concurrently make one DescribeLaunchTemplates and one DescribeInstances, and each pool gets
// exactly its own objects.
func TestReadsShareOneListing(t *testing.T) {
	const pools = 25
	f, known := newListingFake(pools)
	f.gate = make(chan struct{})
	c := &Client{EC2: f}
	var wg sync.WaitGroup
	errs := make([]error, pools)
	for p := range pools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool := fmt.Sprintf("p%d", p)
			lts, err := c.ReadTemplates(context.Background(), scopeOf("c1"), poolTags("c1", pool), known)
			if err == nil && (len(lts) != 2 || lts[0].Name != "c1/"+pool+"/g0" || lts[0].Fingerprint != "fp-c1/"+pool+"/g0") {
				err = fmt.Errorf("pool %s: templates %+v", pool, lts)
			}
			if err == nil {
				var is []Instance
				is, err = c.ReadInstances(context.Background(), scopeOf("c1"), poolTags("c1", pool))
				if err == nil && (len(is) != 1 || is[0].ID != "i-c1"+pool) {
					err = fmt.Errorf("pool %s: instances %+v", pool, is)
				}
			}
			errs[p] = err
		}()
	}
	close(f.gate)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if lt, i := f.ltCalls.Load(), f.iCalls.Load(); lt != 1 || i != 1 {
		t.Errorf("%d pools made %d DescribeLaunchTemplates and %d DescribeInstances calls; want 1 and 1", pools, lt, i)
	}
	// Another scope (another cluster) is its own listing.
	if lts, err := c.ReadTemplates(context.Background(), scopeOf("c2"), poolTags("c2", "p3"), known); err != nil || len(lts) != 2 {
		t.Fatalf("c2: %v, %v", lts, err)
	}
	if lt := f.ltCalls.Load(); lt != 2 {
		t.Errorf("a second scope: %d DescribeLaunchTemplates calls in total, want 2", lt)
	}
	// A new client (the next walk) lists again.
	if _, err := (&Client{EC2: f}).ReadTemplates(context.Background(), scopeOf("c1"), poolTags("c1", "p0"), known); err != nil {
		t.Fatal(err)
	}
	if lt := f.ltCalls.Load(); lt != 3 {
		t.Errorf("a new client: %d DescribeLaunchTemplates calls in total, want 3", lt)
	}
}

// A failed listing is returned to the reads that waited on it but not kept.
func TestFailedListingIsNotKept(t *testing.T) {
	f, known := newListingFake(2)
	f.fail.Store(1)
	c := &Client{EC2: f}
	if _, err := c.ReadTemplates(context.Background(), scopeOf("c1"), poolTags("c1", "p0"), known); err == nil {
		t.Fatal("want the listing's error")
	}
	lts, err := c.ReadTemplates(context.Background(), scopeOf("c1"), poolTags("c1", "p0"), known)
	if err != nil || len(lts) != 2 {
		t.Fatalf("after a failure the next read lists again: %v, %v", lts, err)
	}
	if lt := f.ltCalls.Load(); lt != 2 {
		t.Errorf("%d calls, want 2", lt)
	}
}
