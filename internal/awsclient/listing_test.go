package awsclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
)

func poolTags(cluster, pool string) map[string]string {
	return map[string]string{"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter", "karpenter.k8s.aws/cluster": cluster, "karpenter.sh/nodepool": pool}
}

func scopeOf(cluster string) map[string]string {
	return map[string]string{"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter", "karpenter.k8s.aws/cluster": cluster}
}

// newListingFake holds pools p0..p(n-1) of cluster c1 with two templates and one instance
// each, plus the same for another cluster that no read of c1 may see.
func newListingFake(n int) (*awsfake.EC2, map[string]fleet.LaunchTemplate) {
	f := &awsfake.EC2{}
	known := map[string]fleet.LaunchTemplate{}
	for _, cluster := range []string{"c1", "c2"} {
		for p := range n {
			pool := fmt.Sprintf("p%d", p)
			for g := range 2 {
				name := fmt.Sprintf("%s/%s/g%d", cluster, pool, g)
				id := "lt-" + name
				f.LaunchTemplates = append(f.LaunchTemplates, ec2types.LaunchTemplate{LaunchTemplateId: aws.String(id), LaunchTemplateName: aws.String(name),
					DefaultVersionNumber: aws.Int64(1), Tags: tagList(poolTags(cluster, pool))})
				known[name] = fleet.LaunchTemplate{ID: id, Name: name, DefaultVersion: 1, Fingerprint: "fp-" + name}
			}
			f.Instances = append(f.Instances, ec2types.Instance{InstanceId: aws.String("i-" + cluster + pool),
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
	gate := make(chan struct{})
	f.Hook = func(_ context.Context, op string, _ any) (any, error) {
		if op == "DescribeLaunchTemplates" {
			<-gate
		}
		return nil, nil
	}
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
				var is []fleet.Instance
				is, err = c.ReadInstances(context.Background(), scopeOf("c1"), poolTags("c1", pool))
				if err == nil && (len(is) != 1 || is[0].ID != "i-c1"+pool) {
					err = fmt.Errorf("pool %s: instances %+v", pool, is)
				}
			}
			errs[p] = err
		}()
	}
	close(gate)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if lt, i := f.Calls("DescribeLaunchTemplates"), f.Calls("DescribeInstances"); lt != 1 || i != 1 {
		t.Errorf("%d pools made %d DescribeLaunchTemplates and %d DescribeInstances calls; want 1 and 1", pools, lt, i)
	}
	// Another scope (another cluster) is its own listing.
	if lts, err := c.ReadTemplates(context.Background(), scopeOf("c2"), poolTags("c2", "p3"), known); err != nil || len(lts) != 2 {
		t.Fatalf("c2: %v, %v", lts, err)
	}
	if lt := f.Calls("DescribeLaunchTemplates"); lt != 2 {
		t.Errorf("a second scope: %d DescribeLaunchTemplates calls in total, want 2", lt)
	}
	// A new client (the next walk) lists again.
	if _, err := (&Client{EC2: f}).ReadTemplates(context.Background(), scopeOf("c1"), poolTags("c1", "p0"), known); err != nil {
		t.Fatal(err)
	}
	if lt := f.Calls("DescribeLaunchTemplates"); lt != 3 {
		t.Errorf("a new client: %d DescribeLaunchTemplates calls in total, want 3", lt)
	}
}

// A failed listing is returned to the reads that waited on it but not kept.
func TestFailedListingIsNotKept(t *testing.T) {
	f, known := newListingFake(2)
	f.FailNext = map[string][]error{"DescribeLaunchTemplates": {errors.New("throttled")}}
	c := &Client{EC2: f}
	if _, err := c.ReadTemplates(context.Background(), scopeOf("c1"), poolTags("c1", "p0"), known); err == nil {
		t.Fatal("want the listing's error")
	}
	lts, err := c.ReadTemplates(context.Background(), scopeOf("c1"), poolTags("c1", "p0"), known)
	if err != nil || len(lts) != 2 {
		t.Fatalf("after a failure the next read lists again: %v, %v", lts, err)
	}
	if lt := f.Calls("DescribeLaunchTemplates"); lt != 2 {
		t.Errorf("%d calls, want 2", lt)
	}
}
