package awsclient

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

func TestDiscoveryCacheSharesOneCallPerFilterSet(t *testing.T) {
	// One subnet that both filter sets below match.
	fake := &awsfake.EC2{Subnets: []ec2types.Subnet{{SubnetId: aws.String("subnet-1"), AvailabilityZone: aws.String("a"),
		Tags: []ec2types.Tag{{Key: aws.String("karpenter.sh/discovery"), Value: aws.String("my-cluster")}, {Key: aws.String("purpose"), Value: aws.String("hpc")}}}}}
	calls := func() int { return fake.Calls("DescribeSubnets") }
	d := Discovery{EC2: fake, Cache: NewDiscoveryCache()}
	ctx := context.Background()
	same := discovery.FilterSet{{Name: "tag:karpenter.sh/discovery", Values: []string{"my-cluster"}}}
	other := discovery.FilterSet{{Name: "tag:purpose", Values: []string{"hpc"}}}

	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := d.FindSubnets(ctx, same)
			if err != nil || len(got) != 1 || got[0].ID != "subnet-1" {
				t.Errorf("FindSubnets = %v, %v", got, err)
			}
		}()
	}
	wg.Wait()
	if n := calls(); n != 1 {
		t.Fatalf("20 lookups of one filter set made %d calls, want 1", n)
	}
	if _, err := d.FindSubnets(ctx, other); err != nil {
		t.Fatal(err)
	}
	if n := calls(); n != 2 {
		t.Fatalf("a second filter set must be asked: %d calls", n)
	}

	// A failure is not remembered: the next asker calls again.
	fresh := Discovery{EC2: fake, Cache: NewDiscoveryCache()}
	fake.FailNext = map[string][]error{"DescribeSubnets": {errors.New("boom")}}
	if _, err := fresh.FindSubnets(ctx, same); err == nil {
		t.Fatal("expected the error")
	}
	if _, err := fresh.FindSubnets(ctx, same); err != nil {
		t.Fatalf("retry after a failure: %v", err)
	}
	if n := calls(); n != 4 {
		t.Fatalf("calls = %d, want 4", n)
	}

	// Without a cache every lookup asks EC2.
	plain := Discovery{EC2: fake}
	_, _ = plain.FindSubnets(ctx, same)
	_, _ = plain.FindSubnets(ctx, same)
	if n := calls(); n != 6 {
		t.Fatalf("uncached calls = %d, want 6", n)
	}
}
