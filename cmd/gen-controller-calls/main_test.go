package main

import (
	"slices"
	"strings"
	"testing"
)

// A small controller: an SDK interface, providers that call it, a cloud provider Karpenter's core
// calls, and a main that hands a feature gate to it as an option.
var sample = map[string][]byte{
	"pkg/aws/sdk.go": []byte(`package sdk

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
)

type EC2API interface {
	DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	RebootInstances(context.Context, *ec2.RebootInstancesInput, ...func(*ec2.Options)) (*ec2.RebootInstancesOutput, error)
	CreateTags(context.Context, *ec2.CreateTagsInput, ...func(*ec2.Options)) (*ec2.CreateTagsOutput, error)
	DeleteLaunchTemplate(context.Context, *ec2.DeleteLaunchTemplateInput, ...func(*ec2.Options)) (*ec2.DeleteLaunchTemplateOutput, error)
	CreateFleet(context.Context, *ec2.CreateFleetInput, ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error)
}

type IAMAPI interface {
	GetInstanceProfile(context.Context, *iam.GetInstanceProfileInput, ...func(*iam.Options)) (*iam.GetInstanceProfileOutput, error)
}

type SQSAPI interface {
	SendMessage(context.Context, *awssqs.SendMessageInput, ...func(*awssqs.Options)) (*awssqs.SendMessageOutput, error)
}
`),
	"pkg/providers/instance/instance.go": []byte(`package instance

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	sdk "github.com/aws/karpenter-provider-aws/pkg/aws"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
)

type Provider interface {
	List(context.Context) error
	Reboot(context.Context, string) error
	CreateTags(context.Context, string) error
	Cleanup(context.Context) error
}

type DefaultProvider struct{ ec2api sdk.EC2API }

func (p *DefaultProvider) List(ctx context.Context) error {
	pager := ec2.NewDescribeInstancesPaginator(p.ec2api, &ec2.DescribeInstancesInput{})
	_ = pager
	fleet(ctx, p.ec2api)
	return nil
}

func (p *DefaultProvider) Reboot(ctx context.Context, id string) error {
	_, err := p.ec2api.RebootInstances(ctx, &ec2.RebootInstancesInput{InstanceIds: []string{id}})
	return err
}

func (p *DefaultProvider) CreateTags(ctx context.Context, id string) error {
	input := &ec2.CreateTagsInput{}
	_, err := p.ec2api.CreateTags(ctx, input)
	return err
}

func (p *DefaultProvider) Cleanup(ctx context.Context) error {
	if !options.FromContext(ctx).FeatureGates.LaunchTemplateCleanup {
		return nil
	}
	_, err := p.ec2api.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{})
	return err
}

func fleet(ctx context.Context, api sdk.EC2API) {
	_, _ = api.CreateFleet(ctx, nil)
}
`),
	"pkg/providers/other/other.go": []byte(`package other

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
)

type Queue interface{ SendMessage(context.Context) error }

type DefaultProvider struct{ client *sqs.Client }

// Nothing calls it: the controller does not send messages.
func (p *DefaultProvider) SendMessage(ctx context.Context) error {
	_, err := p.client.SendMessage(ctx, &sqs.SendMessageInput{})
	return err
}

func Profiles(ctx context.Context, c interface{ GetInstanceProfile() }) {
	if options.FromContext(ctx).FeatureGates.Profiles {
		profile(ctx)
	}
	profile(ctx) // also ungated: the call is not under the gate
	if gates := options.FromContext(ctx).FeatureGates; gates.Wide {
		_, _ = c.(*iam.Client).GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{})
	}
}

func profile(ctx context.Context) {
	_, _ = iam.NewFromConfig(nil).GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{})
}
`),
	"pkg/cloudprovider/cloudprovider.go": []byte(`package cloudprovider

import (
	"context"

	"github.com/samber/lo"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/aws/karpenter-provider-aws/pkg/providers/instance"
)

type CloudProvider struct {
	instanceProvider instance.Provider
	rebootForRepair  bool
}

type Option func(*CloudProvider)

func WithRebootForRepair(enabled bool) Option {
	return func(c *CloudProvider) { c.rebootForRepair = enabled }
}

func (c *CloudProvider) Reboot(ctx context.Context, id string) error {
	return c.instanceProvider.Reboot(ctx, id)
}

func (c *CloudProvider) List(ctx context.Context) error {
	_ = c.instanceProvider.CreateTags(ctx, "") // not an SDK call: the provider's own method
	_ = c.instanceProvider.Cleanup(ctx)
	return c.instanceProvider.List(ctx)
}

func (c *CloudProvider) RepairPolicies() []cloudprovider.RepairPolicy {
	return []cloudprovider.RepairPolicy{{Action: lo.Ternary(c.rebootForRepair, cloudprovider.RebootNode, cloudprovider.ReplaceNode)}}
}
`),
	"cmd/controller/main.go": []byte(`package main

import (
	"github.com/aws/karpenter-provider-aws/pkg/cloudprovider"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/other"
)

func main() {
	_ = cloudprovider.New(cloudprovider.WithRebootForRepair(options.FromContext(ctx).FeatureGates.RebootForRepair))
	other.Profiles(ctx, nil)
}
`),
}

func TestAnalyze(t *testing.T) {
	got, err := Analyze(sample)
	if err != nil {
		t.Fatal(err)
	}
	want := []Call{
		{Action: "ec2:CreateFleet", File: "pkg/providers/instance/instance.go"},
		{Action: "ec2:CreateTags", File: "pkg/providers/instance/instance.go"},
		{Action: "ec2:DeleteLaunchTemplate", Gate: "LaunchTemplateCleanup", File: "pkg/providers/instance/instance.go"},
		{Action: "ec2:DescribeInstances", File: "pkg/providers/instance/instance.go"},
		{Action: "ec2:RebootInstances", Gate: "RebootForRepair", File: "pkg/providers/instance/instance.go"},
		{Action: "iam:GetInstanceProfile", File: "pkg/providers/other/other.go"},
		{Action: "iam:GetInstanceProfile", Gate: "Wide", File: "pkg/providers/other/other.go"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("calls:\n%v\nwant\n%v", got, want)
	}

	// Without the main that hands the gate to the cloud provider, the reboot is ungated.
	noMain := map[string][]byte{}
	for k, v := range sample {
		if k != "cmd/controller/main.go" {
			noMain[k] = v
		}
	}
	got, err = Analyze(noMain)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, Call{Action: "ec2:RebootInstances", File: "pkg/providers/instance/instance.go"}) {
		t.Errorf("without the gate's option: %v", got)
	}

	if _, err := Analyze(map[string][]byte{"pkg/a.go": []byte("package a\n")}); err == nil || !strings.Contains(err.Error(), "no AWS SDK calls") {
		t.Errorf("no calls: %v", err)
	}
	if _, err := Analyze(map[string][]byte{"pkg/a.go": []byte("package a\nfunc {")}); err == nil {
		t.Error("a file that does not parse: no error")
	}
}

func TestControllerFile(t *testing.T) {
	for path, want := range map[string]bool{
		"pkg/providers/instance/instance.go":        true,
		"cmd/controller/main.go":                    true,
		"pkg/providers/instance/suite_test.go":      false,
		"pkg/fake/ec2api.go":                        false,
		"pkg/test/environment.go":                   false,
		"pkg/providers/instance/test/helpers.go":    false,
		"test/pkg/environment/aws/environment.go":   false,
		"hack/docs/main.go":                         false,
		"pkg/apis/crds/karpenter.sh_nodepools.yaml": false,
	} {
		if got := controllerFile(path); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}

func TestRender(t *testing.T) {
	code, err := render([]release{{Version: "1.15.2", Sum: "h1:abc=", Calls: []Call{{Action: "ec2:RebootInstances", Gate: "RebootForRepair", File: "pkg/x.go"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// Code generated by gen-controller-calls v1.15.2; DO NOT EDIT.", "//   v1.15.2 h1:abc=",
		`{Version: "1.15.2", Sum: "h1:abc=", Calls: []controllerCall{`,
		`{Action: "ec2:RebootInstances", Gate: "RebootForRepair", File: "pkg/x.go"},`} {
		if !strings.Contains(string(code), want) {
			t.Errorf("render lacks %q:\n%s", want, code)
		}
	}
}
