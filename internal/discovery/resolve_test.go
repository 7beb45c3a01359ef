package discovery

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

type ctxKey struct{}

// fakeAPI records every filter set it receives and answers call i with the i-th response.
type fakeAPI struct {
	subnetResp [][]Subnet
	sgResp     [][]SecurityGroup
	errAt      int // 1-based call number that fails; 0 = never
	err        error

	subnetCalls []FilterSet
	sgCalls     []FilterSet
	ctxValues   []any
}

func (f *fakeAPI) FindSubnets(ctx context.Context, fs FilterSet) ([]Subnet, error) {
	f.subnetCalls = append(f.subnetCalls, fs)
	f.ctxValues = append(f.ctxValues, ctx.Value(ctxKey{}))
	n := len(f.subnetCalls)
	if n == f.errAt {
		return nil, f.err
	}
	if n <= len(f.subnetResp) {
		return f.subnetResp[n-1], nil
	}
	return nil, nil
}

func (f *fakeAPI) FindSecurityGroups(ctx context.Context, fs FilterSet) ([]SecurityGroup, error) {
	f.sgCalls = append(f.sgCalls, fs)
	f.ctxValues = append(f.ctxValues, ctx.Value(ctxKey{}))
	n := len(f.sgCalls)
	if n == f.errAt {
		return nil, f.err
	}
	if n <= len(f.sgResp) {
		return f.sgResp[n-1], nil
	}
	return nil, nil
}

var _ API = (*fakeAPI)(nil)

func subnetIDs(ss []Subnet) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

func sgIDs(gs []SecurityGroup) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.ID
	}
	return out
}

func TestResolveSubnets(t *testing.T) {
	sub := func(id string, ips int) Subnet {
		return Subnet{ID: id, VPCID: "vpc-1", Zone: "us-east-1a", AvailableIPAddressCount: ips}
	}
	tests := []struct {
		name      string
		terms     []SubnetTerm
		resp      [][]Subnet
		wantCalls int
		wantIDs   []string
	}{
		{
			name:      "no terms, no calls",
			terms:     nil,
			wantCalls: 0,
			wantIDs:   []string{},
		},
		{
			name:      "one tags term",
			terms:     []SubnetTerm{{Tags: map[string]string{"a": "*"}}},
			resp:      [][]Subnet{{sub("subnet-b", 10), sub("subnet-a", 20)}},
			wantCalls: 1,
			wantIDs:   []string{"subnet-a", "subnet-b"},
		},
		{
			name: "id terms make one call, each tags term one more",
			terms: []SubnetTerm{
				{ID: "subnet-1"},
				{Tags: map[string]string{"a": "1"}},
				{ID: "subnet-2"},
				{Tags: map[string]string{"b": "*"}},
			},
			resp: [][]Subnet{
				{sub("subnet-1", 5), sub("subnet-2", 5)},
				{sub("subnet-3", 7)},
				{sub("subnet-4", 1)},
			},
			wantCalls: 3,
			wantIDs:   []string{"subnet-3", "subnet-1", "subnet-2", "subnet-4"},
		},
		{
			name: "duplicate terms make one call",
			terms: []SubnetTerm{
				{Tags: map[string]string{"a": "1"}},
				{Tags: map[string]string{"a": "1"}},
			},
			resp:      [][]Subnet{{sub("subnet-1", 1)}},
			wantCalls: 1,
			wantIDs:   []string{"subnet-1"},
		},
		{
			name: "two terms matching the same subnet: merged without duplicates",
			terms: []SubnetTerm{
				{Tags: map[string]string{"a": "1"}},
				{Tags: map[string]string{"b": "2"}},
			},
			resp: [][]Subnet{
				{sub("subnet-shared", 50), sub("subnet-x", 10)},
				{sub("subnet-y", 10), sub("subnet-shared", 50)},
			},
			wantCalls: 2,
			wantIDs:   []string{"subnet-shared", "subnet-x", "subnet-y"},
		},
		{
			name:  "order: available IPs descending, then id",
			terms: []SubnetTerm{{Tags: map[string]string{"a": "*"}}},
			resp: [][]Subnet{{
				sub("subnet-c", 100),
				sub("subnet-z", 4000),
				sub("subnet-b", 100),
				sub("subnet-a", 0),
				sub("subnet-d", 250),
				sub("subnet-a0", 100),
			}},
			wantCalls: 1,
			wantIDs:   []string{"subnet-z", "subnet-d", "subnet-a0", "subnet-b", "subnet-c", "subnet-a"},
		},
		{
			name:      "nothing found",
			terms:     []SubnetTerm{{ID: "subnet-1"}},
			resp:      [][]Subnet{{}},
			wantCalls: 1,
			wantIDs:   []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeAPI{subnetResp: tc.resp}
			ctx := context.WithValue(context.Background(), ctxKey{}, "marker")
			got, err := ResolveSubnets(ctx, api, tc.terms)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(api.subnetCalls) != tc.wantCalls {
				t.Fatalf("got %d calls, want %d: %s", len(api.subnetCalls), tc.wantCalls, fmtSets(api.subnetCalls))
			}
			if want := SubnetFilterSets(tc.terms); !sameSets(api.subnetCalls, want) {
				t.Fatalf("API received\n%s\nwant\n%s", fmtSets(api.subnetCalls), fmtSets(want))
			}
			if len(api.sgCalls) != 0 {
				t.Fatalf("security group API called")
			}
			for i, v := range api.ctxValues {
				if v != "marker" {
					t.Fatalf("call %d did not receive the caller's context", i)
				}
			}
			if ids := subnetIDs(got); !reflect.DeepEqual(ids, tc.wantIDs) {
				t.Fatalf("got ids %v, want %v", ids, tc.wantIDs)
			}
		})
	}
}

func TestResolveSubnetsKeepsFields(t *testing.T) {
	want := Subnet{
		ID: "subnet-1", VPCID: "vpc-9", Zone: "eu-west-1b", ZoneID: "euw1-az2",
		CIDRBlock: "10.0.0.0/24", AvailableIPAddressCount: 251, Tags: map[string]string{"Name": "x"},
	}
	api := &fakeAPI{subnetResp: [][]Subnet{{want}}}
	got, err := ResolveSubnets(context.Background(), api, []SubnetTerm{{ID: "subnet-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("got %+v, want [%+v]", got, want)
	}
}

func TestResolveSubnetsError(t *testing.T) {
	boom := errors.New("boom: UnauthorizedOperation")
	terms := []SubnetTerm{
		{Tags: map[string]string{"a": "1"}},
		{Tags: map[string]string{"b": "2"}},
		{Tags: map[string]string{"c": "3"}},
	}
	for _, errAt := range []int{1, 2, 3} {
		api := &fakeAPI{
			subnetResp: [][]Subnet{{{ID: "subnet-1"}}, {{ID: "subnet-2"}}, {{ID: "subnet-3"}}},
			errAt:      errAt,
			err:        boom,
		}
		got, err := ResolveSubnets(context.Background(), api, terms)
		if !errors.Is(err, boom) {
			t.Fatalf("errAt=%d: err = %v, want %v", errAt, err, boom)
		}
		if got != nil {
			t.Fatalf("errAt=%d: got %v with an error, want nil", errAt, got)
		}
		if len(api.subnetCalls) != errAt {
			t.Fatalf("errAt=%d: %d calls made, want to stop at the failing one", errAt, len(api.subnetCalls))
		}
	}
}

func TestResolveSecurityGroups(t *testing.T) {
	sg := func(id, name string) SecurityGroup { return SecurityGroup{ID: id, Name: name, VPCID: "vpc-1"} }
	tests := []struct {
		name      string
		terms     []SecurityGroupTerm
		resp      [][]SecurityGroup
		wantCalls int
		wantIDs   []string
	}{
		{
			name:      "no terms, no calls",
			wantCalls: 0,
			wantIDs:   []string{},
		},
		{
			name: "one call each for ids, names and every tags term",
			terms: []SecurityGroupTerm{
				{Tags: map[string]string{"a": "1"}},
				{ID: "sg-2"},
				{Name: "web"},
				{ID: "sg-1"},
				{Name: "app"},
				{Tags: map[string]string{"b": "*"}},
			},
			resp: [][]SecurityGroup{
				{sg("sg-2", "two"), sg("sg-1", "one")},
				{sg("sg-web", "web"), sg("sg-app", "app")},
				{sg("sg-a", "a")},
				{sg("sg-b", "b")},
			},
			wantCalls: 4,
			wantIDs:   []string{"sg-1", "sg-2", "sg-a", "sg-app", "sg-b", "sg-web"},
		},
		{
			name: "same group matched by several terms appears once",
			terms: []SecurityGroupTerm{
				{ID: "sg-1"},
				{Name: "one"},
				{Tags: map[string]string{"k": "v"}},
			},
			resp: [][]SecurityGroup{
				{sg("sg-1", "one")},
				{sg("sg-1", "one")},
				{sg("sg-3", "three"), sg("sg-1", "one")},
			},
			wantCalls: 3,
			wantIDs:   []string{"sg-1", "sg-3"},
		},
		{
			name:      "sorted by id",
			terms:     []SecurityGroupTerm{{Tags: map[string]string{"k": "*"}}},
			resp:      [][]SecurityGroup{{sg("sg-c", ""), sg("sg-a", ""), sg("sg-b", ""), sg("sg-0", "")}},
			wantCalls: 1,
			wantIDs:   []string{"sg-0", "sg-a", "sg-b", "sg-c"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeAPI{sgResp: tc.resp}
			ctx := context.WithValue(context.Background(), ctxKey{}, "marker")
			got, err := ResolveSecurityGroups(ctx, api, tc.terms)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(api.sgCalls) != tc.wantCalls {
				t.Fatalf("got %d calls, want %d: %s", len(api.sgCalls), tc.wantCalls, fmtSets(api.sgCalls))
			}
			if want := SecurityGroupFilterSets(tc.terms); !sameSets(api.sgCalls, want) {
				t.Fatalf("API received\n%s\nwant\n%s", fmtSets(api.sgCalls), fmtSets(want))
			}
			if len(api.subnetCalls) != 0 {
				t.Fatalf("subnet API called")
			}
			for i, v := range api.ctxValues {
				if v != "marker" {
					t.Fatalf("call %d did not receive the caller's context", i)
				}
			}
			if ids := sgIDs(got); !reflect.DeepEqual(ids, tc.wantIDs) {
				t.Fatalf("got ids %v, want %v", ids, tc.wantIDs)
			}
		})
	}
}

func TestResolveSecurityGroupsError(t *testing.T) {
	boom := errors.New("throttled")
	terms := []SecurityGroupTerm{{ID: "sg-1"}, {Name: "n"}, {Tags: map[string]string{"a": "b"}}}
	for _, errAt := range []int{1, 2, 3} {
		api := &fakeAPI{
			sgResp: [][]SecurityGroup{{{ID: "sg-1"}}, {{ID: "sg-2"}}, {{ID: "sg-3"}}},
			errAt:  errAt,
			err:    boom,
		}
		got, err := ResolveSecurityGroups(context.Background(), api, terms)
		if !errors.Is(err, boom) {
			t.Fatalf("errAt=%d: err = %v, want %v", errAt, err, boom)
		}
		if got != nil {
			t.Fatalf("errAt=%d: got %v with an error, want nil", errAt, got)
		}
		if len(api.sgCalls) != errAt {
			t.Fatalf("errAt=%d: %d calls made, want to stop at the failing one", errAt, len(api.sgCalls))
		}
	}
}

func TestSortSubnets(t *testing.T) {
	tests := []struct {
		name string
		in   []Subnet
		want []string
	}{
		{name: "empty", in: nil, want: []string{}},
		{
			name: "ips descending then id ascending",
			in: []Subnet{
				{ID: "subnet-b", AvailableIPAddressCount: 1},
				{ID: "subnet-c", AvailableIPAddressCount: 9},
				{ID: "subnet-a", AvailableIPAddressCount: 1},
				{ID: "subnet-d", AvailableIPAddressCount: 9},
			},
			want: []string{"subnet-c", "subnet-d", "subnet-a", "subnet-b"},
		},
		{
			name: "already sorted stays put",
			in: []Subnet{
				{ID: "subnet-1", AvailableIPAddressCount: 3},
				{ID: "subnet-2", AvailableIPAddressCount: 2},
				{ID: "subnet-3", AvailableIPAddressCount: 1},
			},
			want: []string{"subnet-1", "subnet-2", "subnet-3"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			SortSubnets(tc.in)
			if got := subnetIDs(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestZonesAndVPCs(t *testing.T) {
	tests := []struct {
		name      string
		in        []Subnet
		wantZones []string
		wantVPCs  []string
	}{
		{name: "empty", in: nil, wantZones: nil, wantVPCs: nil},
		{
			name:      "one subnet",
			in:        []Subnet{{ID: "subnet-1", Zone: "us-east-1a", VPCID: "vpc-1"}},
			wantZones: []string{"us-east-1a"},
			wantVPCs:  []string{"vpc-1"},
		},
		{
			name: "sorted and distinct",
			in: []Subnet{
				{ID: "subnet-1", Zone: "us-east-1c", VPCID: "vpc-b"},
				{ID: "subnet-2", Zone: "us-east-1a", VPCID: "vpc-a"},
				{ID: "subnet-3", Zone: "us-east-1c", VPCID: "vpc-b"},
				{ID: "subnet-4", Zone: "us-east-1b", VPCID: "vpc-a"},
				{ID: "subnet-5", Zone: "us-east-1a", VPCID: "vpc-c"},
			},
			wantZones: []string{"us-east-1a", "us-east-1b", "us-east-1c"},
			wantVPCs:  []string{"vpc-a", "vpc-b", "vpc-c"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]Subnet(nil), tc.in...)
			if got := Zones(tc.in); !reflect.DeepEqual(got, tc.wantZones) {
				t.Errorf("Zones() = %v, want %v", got, tc.wantZones)
			}
			if got := VPCs(tc.in); !reflect.DeepEqual(got, tc.wantVPCs) {
				t.Errorf("VPCs() = %v, want %v", got, tc.wantVPCs)
			}
			if !reflect.DeepEqual(before, tc.in) {
				t.Errorf("input reordered or changed")
			}
		})
	}
}
