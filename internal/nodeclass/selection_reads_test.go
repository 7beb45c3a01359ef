package nodeclass

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// selectionAPI answers every filter set with the same subnets and groups, or err.
type selectionAPI struct {
	subnets []discovery.Subnet
	groups  []discovery.SecurityGroup
	err     error
	calls   int
}

func (a *selectionAPI) FindSubnets(context.Context, discovery.FilterSet) ([]discovery.Subnet, error) {
	a.calls++
	return append([]discovery.Subnet(nil), a.subnets...), a.err
}

func (a *selectionAPI) FindSecurityGroups(context.Context, discovery.FilterSet) ([]discovery.SecurityGroup, error) {
	a.calls++
	return append([]discovery.SecurityGroup(nil), a.groups...), a.err
}

// selText is "path|summary|error" of each finding, as the shell reports it.
func selText(fs []attrpath.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path.String()+"|"+f.Summary+"|"+f.Error())
	}
	return out
}

func TestReadSubnets(t *testing.T) {
	ctx := context.Background()
	api := &selectionAPI{subnets: []discovery.Subnet{
		{ID: "subnet-b", Zone: "ap-southeast-1b", AvailableIPAddressCount: 10, Tags: map[string]string{"Name": "private-b"}},
		{ID: "subnet-a", Zone: "ap-southeast-1a", AvailableIPAddressCount: 50},
	}}
	q := SubnetsQuery{SelectorTerms: []discovery.SubnetTerm{{Tags: map[string]string{"tier": "private"}}}}
	out, errs, warnings := ReadSubnets(ctx, api, "ap-southeast-1", q)
	if errs != nil || len(warnings) != 0 || len(out.Subnets) != 2 || !slices.Equal(out.Zones, []string{"ap-southeast-1a", "ap-southeast-1b"}) {
		t.Fatalf("read: %+v, %v, %v", out, errs, warnings)
	}
	a, b := out.Subnets[0], out.Subnets[1] // most free IPs first
	if a.ID != "subnet-a" || a.Name != nil || a.Tags == nil || b.Name == nil || *b.Name != "private-b" {
		t.Errorf("entries %+v, %+v", a, b)
	}

	// Public subnets and two in one zone: the class's findings, as warnings on selector_terms.
	api.subnets = []discovery.Subnet{{ID: "subnet-a", Zone: "ap-southeast-1a", MapPublicIPOnLaunch: true},
		{ID: "subnet-c", Zone: "ap-southeast-1a"}}
	_, _, warnings = ReadSubnets(ctx, api, "ap-southeast-1", q)
	if len(warnings) != 2 || warnings[0].Path.String() != "selector_terms" || warnings[0].Summary != SummaryPublicSubnets ||
		warnings[1].Summary == "" {
		t.Errorf("findings %q", selText(warnings))
	}

	// Nothing matched: a warning whose text stands alone, zones an empty list.
	api.subnets = nil
	out, errs, warnings = ReadSubnets(ctx, api, "ap-southeast-1", q)
	want := []string{"selector_terms|No subnet matched|None of the 1 selector terms matched a subnet in ap-southeast-1. " +
		"A node class with these terms could not launch nodes."}
	if got := selText(warnings); !slices.Equal(got, want) || errs != nil || out.Zones == nil || len(out.Subnets) != 0 {
		t.Errorf("no match: %q, %+v", got, out)
	}

	// Invalid terms read nothing; an EC2 error is one finding.
	calls := api.calls
	_, errs, _ = ReadSubnets(ctx, api, "ap-southeast-1", SubnetsQuery{SelectorTerms: []discovery.SubnetTerm{{ID: "sub-1"}}})
	if len(errs) != 1 || errs[0].Path.String() != "selector_terms[0].id" || errs[0].Summary != "Invalid subnet selector term" || api.calls != calls {
		t.Errorf("invalid term: %q", selText(errs))
	}
	api.err = errors.New("UnauthorizedOperation")
	if _, errs, _ = ReadSubnets(ctx, api, "ap-southeast-1", q); len(errs) != 1 || errs[0].Summary != "Cannot read subnets from EC2" ||
		!strings.Contains(errs[0].Error(), "UnauthorizedOperation") {
		t.Errorf("EC2 error: %q", selText(errs))
	}
}

func TestReadSecurityGroups(t *testing.T) {
	ctx := context.Background()
	api := &selectionAPI{groups: []discovery.SecurityGroup{{ID: "sg-2", Name: "nodes", Tags: map[string]string{"a": "b"}}, {ID: "sg-1", Name: "default"}}}
	q := SecurityGroupsQuery{SelectorTerms: []discovery.SecurityGroupTerm{{Name: "nodes"}, {Name: "default"}}}
	out, errs, warnings := ReadSecurityGroups(ctx, api, "ap-southeast-1", q)
	if errs != nil || warnings != nil || len(out.SecurityGroups) != 2 || out.SecurityGroups[0].ID != "sg-1" || out.SecurityGroups[0].Tags == nil {
		t.Fatalf("read: %+v, %v, %v", out, errs, warnings)
	}
	api.groups = nil
	out, _, warnings = ReadSecurityGroups(ctx, api, "ap-southeast-1", q)
	want := []string{"selector_terms|No security group matched|None of the 2 selector terms matched a security group in ap-southeast-1. " +
		"A node class with these terms could not launch nodes."}
	if got := selText(warnings); !slices.Equal(got, want) || out.SecurityGroups == nil {
		t.Errorf("no match: %q", got)
	}
	calls := api.calls
	_, errs, _ = ReadSecurityGroups(ctx, api, "ap-southeast-1", SecurityGroupsQuery{SelectorTerms: []discovery.SecurityGroupTerm{{}}})
	if len(errs) != 1 || errs[0].Path.String() != "selector_terms[0]" || errs[0].Summary != "Invalid security group selector term" || api.calls != calls {
		t.Errorf("invalid term: %q", selText(errs))
	}
	api.err = errors.New("boom")
	if _, errs, _ = ReadSecurityGroups(ctx, api, "ap-southeast-1", q); len(errs) != 1 || errs[0].Summary != "Cannot read security groups from EC2" {
		t.Errorf("EC2 error: %q", selText(errs))
	}
}
