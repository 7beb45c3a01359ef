package awsfake

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestWildcard(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"amazon-eks-node-*", "amazon-eks-node-1.33-v20250101", true},
		{"amazon-eks-node-*", "amazon-eks-gpu-node-1.33", false},
		{"*-1.3?-*", "al2023-1.33-x86", true},
		{"*-1.3?-*", "al2023-1.3-x86", false},
		{"*", "", true},
		{"", "", true},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{`a\*`, "a*", true},
		{`a\*`, "ab", false},
		{"exact", "exact", true},
		{"exact", "exactly", false},
	} {
		if got := wildcard(tc.pattern, tc.s); got != tc.want {
			t.Errorf("wildcard(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestPage(t *testing.T) {
	items := []int{0, 1, 2, 3, 4}
	walk := func(pageSize map[string]int, maxResults *int32) (pages [][]int, tokens []string) {
		var token *string
		for {
			got, next, err := page("Op", items, pageSize, maxResults, token)
			if err != nil {
				t.Fatal(err)
			}
			pages, tokens = append(pages, got), append(tokens, aws.ToString(token))
			if next == nil {
				return pages, tokens
			}
			token = next
		}
	}
	if pages, tokens := walk(nil, nil); len(pages) != 1 || len(pages[0]) != 5 || !slices.Equal(tokens, []string{""}) {
		t.Errorf("no limit: %v %v", pages, tokens)
	}
	if pages, tokens := walk(map[string]int{"Op": 2}, aws.Int32(1000)); len(pages) != 3 || !slices.Equal(pages[2], []int{4}) ||
		!slices.Equal(tokens, []string{"", "1", "2"}) {
		t.Errorf("PageSize below MaxResults: %v %v", pages, tokens)
	}
	if pages, _ := walk(map[string]int{"Op": 4}, aws.Int32(3)); len(pages) != 2 || len(pages[0]) != 3 {
		t.Errorf("MaxResults below PageSize: %v", pages)
	}
	if pages, _ := walk(nil, aws.Int32(2)); len(pages) != 3 {
		t.Errorf("MaxResults alone: %v", pages)
	}
	if _, _, err := page("Op", items, nil, nil, aws.String("nope")); err == nil {
		t.Error("a bad token was accepted")
	}
}

// The levers: a done context, the hook (answering, failing, passing), FailNext (nil entries let
// a call through), Fail; the log records every call with its answer.
func TestLevers(t *testing.T) {
	ctx := context.Background()
	f := &EC2{Subnets: []ec2types.Subnet{{SubnetId: aws.String("subnet-a")}}}
	denied, throttled := errors.New("denied"), errors.New("throttled")

	f.FailNext = map[string][]error{"DescribeSubnets": {nil, throttled}}
	if _, err := f.DescribeSubnets(ctx, nil); err != nil {
		t.Fatalf("a nil FailNext entry failed the call: %v", err)
	}
	if _, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{}); !errors.Is(err, throttled) {
		t.Fatalf("queued failure: %v", err)
	}
	if _, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{}); err != nil {
		t.Fatalf("the queue is used up: %v", err)
	}
	f.Fail = map[string]error{"DescribeSubnets": denied}
	if _, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{}); !errors.Is(err, denied) {
		t.Fatalf("configured failure: %v", err)
	}
	f.Fail = nil

	f.Hook = func(_ context.Context, op string, in any) (any, error) {
		if ids := in.(*ec2.DescribeSubnetsInput).SubnetIds; len(ids) > 0 && ids[0] == "subnet-hooked" {
			return &ec2.DescribeSubnetsOutput{Subnets: []ec2types.Subnet{{SubnetId: aws.String("subnet-hooked")}}}, nil
		}
		return nil, nil
	}
	if out, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-hooked"}}); err != nil || len(out.Subnets) != 1 {
		t.Fatalf("hook answer: %v, %v", out, err)
	}
	if out, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-a"}}); err != nil || len(out.Subnets) != 1 {
		t.Fatalf("the hook let the fake answer: %v, %v", out, err)
	}
	f.Hook = func(context.Context, string, any) (any, error) { return &ec2.DescribeVpcsOutput{}, nil }
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a hook answer of the wrong type did not panic")
			}
		}()
		_, _ = f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	}()
	f.Hook = nil

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.DescribeSubnets(cancelled, &ec2.DescribeSubnetsInput{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("done context: %v", err)
	}

	log := f.Log()
	if len(log) != 8 || f.Calls("DescribeSubnets") != 8 || f.Calls("DescribeVpcs") != 0 {
		t.Fatalf("log %d calls, counted %d", len(log), f.Calls("DescribeSubnets"))
	}
	var errs []error
	for _, c := range log {
		errs = append(errs, c.Err)
	}
	if errs[0] != nil || !errors.Is(errs[1], throttled) || !errors.Is(errs[3], denied) || !errors.Is(errs[7], context.Canceled) {
		t.Errorf("logged answers %v", errs)
	}
	if in := Inputs[ec2.DescribeSubnetsInput](f); len(in) != 8 || !slices.Equal(in[4].SubnetIds, []string{"subnet-hooked"}) {
		t.Errorf("inputs %+v", in)
	}
	f.ForgetCalls()
	if f.Calls("DescribeSubnets") != 0 || len(Inputs[ec2.DescribeSubnetsInput](f)) != 0 {
		t.Error("ForgetCalls kept calls")
	}
}
