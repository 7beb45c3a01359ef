package awsclient

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

type countingSubnets struct {
	EC2API
	calls atomic.Int32
	fail  atomic.Bool
}

func (f *countingSubnets) DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	f.calls.Add(1)
	if f.fail.Load() {
		return nil, errors.New("boom")
	}
	return &ec2.DescribeSubnetsOutput{Subnets: []ec2types.Subnet{{SubnetId: aws.String("subnet-1"), AvailabilityZone: aws.String("a")}}}, nil
}

func TestDiscoveryCacheSharesOneCallPerFilterSet(t *testing.T) {
	fake := &countingSubnets{}
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
	if n := fake.calls.Load(); n != 1 {
		t.Fatalf("20 lookups of one filter set made %d calls, want 1", n)
	}
	if _, err := d.FindSubnets(ctx, other); err != nil {
		t.Fatal(err)
	}
	if n := fake.calls.Load(); n != 2 {
		t.Fatalf("a second filter set must be asked: %d calls", n)
	}

	// A failure is not remembered: the next asker calls again.
	fresh := Discovery{EC2: fake, Cache: NewDiscoveryCache()}
	fake.fail.Store(true)
	if _, err := fresh.FindSubnets(ctx, same); err == nil {
		t.Fatal("expected the error")
	}
	fake.fail.Store(false)
	if _, err := fresh.FindSubnets(ctx, same); err != nil {
		t.Fatalf("retry after a failure: %v", err)
	}
	if n := fake.calls.Load(); n != 4 {
		t.Fatalf("calls = %d, want 4", n)
	}

	// Without a cache every lookup asks EC2.
	plain := Discovery{EC2: fake}
	_, _ = plain.FindSubnets(ctx, same)
	_, _ = plain.FindSubnets(ctx, same)
	if n := fake.calls.Load(); n != 6 {
		t.Fatalf("uncached calls = %d, want 6", n)
	}
}
