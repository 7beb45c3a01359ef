package nodeclass

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// fakeAPI answers by filter-set key; unknown keys match nothing.
type fakeAPI struct {
	subnets   map[string][]discovery.Subnet
	groups    map[string][]discovery.SecurityGroup
	subnetErr map[string]error
	groupErr  map[string]error

	subnetCalls, groupCalls []string
}

func (f *fakeAPI) FindSubnets(_ context.Context, fs discovery.FilterSet) ([]discovery.Subnet, error) {
	k := fs.Key()
	f.subnetCalls = append(f.subnetCalls, k)
	if err := f.subnetErr[k]; err != nil {
		return nil, err
	}
	return append([]discovery.Subnet(nil), f.subnets[k]...), nil
}

func (f *fakeAPI) FindSecurityGroups(_ context.Context, fs discovery.FilterSet) ([]discovery.SecurityGroup, error) {
	k := fs.Key()
	f.groupCalls = append(f.groupCalls, k)
	if err := f.groupErr[k]; err != nil {
		return nil, err
	}
	return append([]discovery.SecurityGroup(nil), f.groups[k]...), nil
}

var _ discovery.API = (*fakeAPI)(nil)

// tagKey is the filter-set key of a one-tag term, written out independently of discovery.
func tagKey(k, v string) string {
	return discovery.FilterSet{{Name: "tag:" + k, Values: []string{v}}}.Key()
}

var (
	discoveryKey = tagKey(DiscoveryTagKey, testCluster)
	podKey       = tagKey("cni", "pods")
)

func subnet(id, vpc, zone string, free int) discovery.Subnet {
	return discovery.Subnet{ID: id, VPCID: vpc, Zone: zone, ZoneID: "usw2-" + zone[len(zone)-2:], AvailableIPAddressCount: free}
}

func sg(id, name, vpc string) discovery.SecurityGroup {
	return discovery.SecurityGroup{ID: id, Name: name, VPCID: vpc}
}

func happyAPI() *fakeAPI {
	return &fakeAPI{
		subnets: map[string][]discovery.Subnet{discoveryKey: {
			subnet("subnet-a", "vpc-1", "us-west-2a", 100),
			subnet("subnet-b", "vpc-1", "us-west-2b", 300),
			subnet("subnet-c", "vpc-1", "us-west-2c", 200),
		}},
		groups: map[string][]discovery.SecurityGroup{discoveryKey: {
			sg("sg-2", "node", "vpc-1"),
			sg("sg-1", "cluster", "vpc-1"),
		}},
	}
}

func customNetworkingSpec() Spec {
	s := baseSpec()
	s.Networking.CustomNetworking = true
	s.Networking.PodSubnetTerms = []discovery.SubnetTerm{{Tags: map[string]string{"cni": "pods"}}}
	return s
}

func TestResolveHappyPath(t *testing.T) {
	api := happyAPI()
	r, errs, err := Resolve(context.Background(), api, baseSpec())
	if err != nil {
		t.Fatal(err)
	}
	checkErrs(t, errs, nil)
	if r.VPCID != "vpc-1" {
		t.Errorf("VPCID = %q, want vpc-1", r.VPCID)
	}
	if got, want := r.SubnetIDs(), []string{"subnet-b", "subnet-c", "subnet-a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SubnetIDs = %v, want %v (most free IPs first)", got, want)
	}
	if got, want := r.SecurityGroupIDs(), []string{"sg-1", "sg-2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SecurityGroupIDs = %v, want %v", got, want)
	}
	if got, want := r.Zones, []string{"us-west-2a", "us-west-2b", "us-west-2c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Zones = %v, want %v", got, want)
	}
	if r.PodSubnets != nil {
		t.Errorf("PodSubnets = %v, want none without custom networking", r.PodSubnets)
	}
	if got, want := api.subnetCalls, []string{discoveryKey}; !reflect.DeepEqual(got, want) {
		t.Errorf("subnet calls = %v, want %v", got, want)
	}
	if got, want := api.groupCalls, []string{discoveryKey}; !reflect.DeepEqual(got, want) {
		t.Errorf("group calls = %v, want %v", got, want)
	}
}

func TestResolveFieldErrors(t *testing.T) {
	tests := []struct {
		name    string
		api     func() *fakeAPI
		spec    func() Spec
		want    []wantErr
		wantVPC string
	}{
		{
			name: "no subnet matched",
			api: func() *fakeAPI {
				f := happyAPI()
				f.subnets = nil
				return f
			},
			spec: baseSpec,
			want: []wantErr{{"subnet_selector_terms", "no subnet matched the 1 subnet selector terms"}},
		},
		{
			name: "no subnet matched names the terms",
			api:  func() *fakeAPI { return &fakeAPI{groups: happyAPI().groups} },
			spec: func() Spec {
				s := baseSpec()
				s.SubnetTerms = []discovery.SubnetTerm{{Tags: map[string]string{"b": "2", "a": "1"}}, {ID: "subnet-9"}}
				return s
			},
			want: []wantErr{{"subnet_selector_terms", "no subnet matched the 2 subnet selector terms; Karpenter could not launch a node from this class (check the tags, e.g. {a=1, b=2} OR subnet-9). " +
				"Subnets created in the same run must be referenced from their resources"}},
		},
		{
			name: "no security group matched",
			api: func() *fakeAPI {
				f := happyAPI()
				f.groups = nil
				return f
			},
			spec:    baseSpec,
			want:    []wantErr{{"security_group_selector_terms", "no security group matched the 1 security group selector terms"}},
			wantVPC: "vpc-1",
		},
		{
			name: "nothing matched",
			api:  func() *fakeAPI { return &fakeAPI{} },
			spec: baseSpec,
			want: []wantErr{
				{"subnet_selector_terms", "no subnet matched"},
				{"security_group_selector_terms", "no security group matched"},
			},
		},
		{
			name: "subnets in two VPCs",
			api: func() *fakeAPI {
				f := happyAPI()
				f.subnets[discoveryKey] = append(f.subnets[discoveryKey], subnet("subnet-x", "vpc-0", "us-west-2a", 5))
				f.groups[discoveryKey] = append(f.groups[discoveryKey], sg("sg-9", "other", "vpc-9"))
				return f
			},
			spec: baseSpec,
			// No VPC is chosen, so the group check (which needs one) does not run.
			want: []wantErr{{"subnet_selector_terms", "the selected subnets span 2 VPCs (vpc-0, vpc-1)"}},
		},
		{
			name: "security group in another VPC",
			api: func() *fakeAPI {
				f := happyAPI()
				f.groups[discoveryKey] = append(f.groups[discoveryKey], sg("sg-9", "other", "vpc-9"))
				return f
			},
			spec:    baseSpec,
			want:    []wantErr{{"security_group_selector_terms", "security groups outside the subnets' VPC vpc-1: sg-9 (vpc-9); EC2 rejects them"}},
			wantVPC: "vpc-1",
		},
		{
			name: "custom networking: node zone without pod subnet",
			api: func() *fakeAPI {
				f := happyAPI()
				f.subnets[podKey] = []discovery.Subnet{
					subnet("subnet-pa", "vpc-1", "us-west-2a", 50),
					subnet("subnet-pb", "vpc-2", "us-west-2b", 5000), // other VPC: ignored
				}
				return f
			},
			spec: customNetworkingSpec,
			want: []wantErr{{"networking.custom_networking.pod_subnet_selector_terms",
				"no pod subnet in VPC vpc-1 for node zone(s) us-west-2b, us-west-2c"}},
			wantVPC: "vpc-1",
		},
		{
			name: "custom networking: no pod subnet at all",
			api:  happyAPI,
			spec: customNetworkingSpec,
			want: []wantErr{{"networking.custom_networking.pod_subnet_selector_terms",
				"for node zone(s) us-west-2a, us-west-2b, us-west-2c"}},
			wantVPC: "vpc-1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, errs, err := Resolve(context.Background(), tc.api(), tc.spec())
			if err != nil {
				t.Fatal(err)
			}
			checkErrs(t, errs, tc.want)
			if r.VPCID != tc.wantVPC {
				t.Errorf("VPCID = %q, want %q", r.VPCID, tc.wantVPC)
			}
		})
	}
}

func TestResolvePodSubnets(t *testing.T) {
	api := happyAPI()
	api.subnets[podKey] = []discovery.Subnet{
		subnet("subnet-pa3", "vpc-1", "us-west-2a", 100),
		subnet("subnet-pa2", "vpc-1", "us-west-2a", 800),
		subnet("subnet-pa1", "vpc-1", "us-west-2a", 800),  // ties with pa2 on free IPs: lower id wins
		subnet("subnet-pb9", "vpc-2", "us-west-2b", 9000), // other VPC: ignored despite most free IPs
		subnet("subnet-pb1", "vpc-1", "us-west-2b", 10),
		subnet("subnet-pc1", "vpc-1", "us-west-2c", 20),
		subnet("subnet-pd1", "vpc-1", "us-west-2d", 20), // zone without nodes: still listed
	}
	r, errs, err := Resolve(context.Background(), api, customNetworkingSpec())
	if err != nil {
		t.Fatal(err)
	}
	checkErrs(t, errs, nil)
	var got []string
	for _, p := range r.PodSubnets {
		if p.Zone != p.Subnet.Zone {
			t.Errorf("pod subnet %s listed under zone %s but is in %s", p.Subnet.ID, p.Zone, p.Subnet.Zone)
		}
		got = append(got, p.Zone+"="+p.Subnet.ID)
	}
	want := []string{"us-west-2a=subnet-pa1", "us-west-2b=subnet-pb1", "us-west-2c=subnet-pc1", "us-west-2d=subnet-pd1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PodSubnets = %v, want %v", got, want)
	}
	if got, want := api.subnetCalls, []string{discoveryKey, podKey}; !reflect.DeepEqual(got, want) {
		t.Errorf("subnet calls = %v, want %v", got, want)
	}
}

// TestResolvePodSubnetsSkipped: pod subnets are looked up only under custom networking with
// terms and a single node VPC.
func TestResolvePodSubnetsSkipped(t *testing.T) {
	tests := []struct {
		name string
		api  func() *fakeAPI
		spec func() Spec
	}{
		{"custom networking off", happyAPI, func() Spec {
			s := customNetworkingSpec()
			s.Networking.CustomNetworking = false
			return s
		}},
		{"no pod terms", happyAPI, func() Spec {
			s := customNetworkingSpec()
			s.Networking.PodSubnetTerms = nil
			return s
		}},
		{"no node VPC", func() *fakeAPI {
			f := happyAPI()
			f.subnets[discoveryKey] = append(f.subnets[discoveryKey], subnet("subnet-x", "vpc-0", "us-west-2a", 5))
			return f
		}, customNetworkingSpec},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := tc.api()
			api.subnets[podKey] = []discovery.Subnet{subnet("subnet-pa", "vpc-1", "us-west-2a", 1)}
			r, _, err := Resolve(context.Background(), api, tc.spec())
			if err != nil {
				t.Fatal(err)
			}
			if len(r.PodSubnets) != 0 {
				t.Errorf("PodSubnets = %v, want none", r.PodSubnets)
			}
			for _, k := range api.subnetCalls {
				if k == podKey {
					t.Errorf("pod subnet terms were queried")
				}
			}
		})
	}
}

func TestResolveAPIErrors(t *testing.T) {
	boom := errors.New("UnauthorizedOperation: boom")
	tests := []struct {
		name string
		api  func() *fakeAPI
	}{
		{"subnets", func() *fakeAPI {
			f := happyAPI()
			f.subnetErr = map[string]error{discoveryKey: boom}
			return f
		}},
		{"security groups", func() *fakeAPI {
			f := happyAPI()
			f.groupErr = map[string]error{discoveryKey: boom}
			return f
		}},
		{"pod subnets", func() *fakeAPI {
			f := happyAPI()
			f.subnetErr = map[string]error{podKey: boom}
			return f
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, err := Resolve(context.Background(), tc.api(), customNetworkingSpec())
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want %v", err, boom)
			}
			if errs != nil {
				t.Errorf("field errors alongside an API error: %v", errs)
			}
		})
	}
}

func TestResolvedSameSelection(t *testing.T) {
	base := func() Resolved {
		api := happyAPI()
		api.subnets[podKey] = []discovery.Subnet{
			subnet("subnet-pa", "vpc-1", "us-west-2a", 10),
			subnet("subnet-pb", "vpc-1", "us-west-2b", 10),
			subnet("subnet-pc", "vpc-1", "us-west-2c", 10),
		}
		r, errs, err := Resolve(context.Background(), api, customNetworkingSpec())
		if err != nil || errs != nil {
			t.Fatalf("base resolve: %v %v", err, errs)
		}
		return r
	}
	// A later resolution in which every count moved and the free-IP order of subnets flipped.
	reResolved := func() Resolved {
		api := happyAPI()
		for i := range api.subnets[discoveryKey] {
			api.subnets[discoveryKey][i].AvailableIPAddressCount = 1000 - api.subnets[discoveryKey][i].AvailableIPAddressCount
		}
		api.subnets[podKey] = []discovery.Subnet{
			subnet("subnet-pa", "vpc-1", "us-west-2a", 7),
			subnet("subnet-pb", "vpc-1", "us-west-2b", 70),
			subnet("subnet-pc", "vpc-1", "us-west-2c", 700),
		}
		r, errs, err := Resolve(context.Background(), api, customNetworkingSpec())
		if err != nil || errs != nil {
			t.Fatalf("re-resolve: %v %v", err, errs)
		}
		return r
	}
	tests := []struct {
		name   string
		change func(*Resolved)
		same   bool
	}{
		{"identical", func(*Resolved) {}, true},
		{"free IPs changed", func(r *Resolved) {
			for i := range r.Subnets {
				r.Subnets[i].AvailableIPAddressCount += 7
			}
			r.PodSubnets[0].Subnet.AvailableIPAddressCount = 0
		}, true},
		{"free IPs reordered subnets", func(r *Resolved) { *r = reResolved() }, true},
		{"subnet id", func(r *Resolved) { r.Subnets[1].ID = "subnet-z" }, false},
		{"subnet zone", func(r *Resolved) { r.Subnets[0].Zone = "us-west-2d" }, false},
		{"subnet zone id", func(r *Resolved) { r.Subnets[0].ZoneID = "usw2-az9" }, false},
		{"subnet added", func(r *Resolved) { r.Subnets = append(r.Subnets, subnet("subnet-d", "vpc-1", "us-west-2d", 1)) }, false},
		{"subnet removed", func(r *Resolved) { r.Subnets = r.Subnets[:2] }, false},
		{"security group id", func(r *Resolved) { r.SecurityGroups[0].ID = "sg-3" }, false},
		{"security group name", func(r *Resolved) { r.SecurityGroups[1].Name = "renamed" }, false},
		{"security group removed", func(r *Resolved) { r.SecurityGroups = r.SecurityGroups[:1] }, false},
		{"VPC", func(r *Resolved) { r.VPCID = "vpc-2" }, false},
		{"pod subnet id", func(r *Resolved) { r.PodSubnets[1].Subnet.ID = "subnet-pz" }, false},
		{"pod subnet zone", func(r *Resolved) { r.PodSubnets[2].Zone = "us-west-2d" }, false},
		{"pod subnet removed", func(r *Resolved) { r.PodSubnets = r.PodSubnets[:2] }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := base(), base()
			tc.change(&b)
			if got := a.SameSelection(b); got != tc.same {
				t.Errorf("a.SameSelection(b) = %v, want %v", got, tc.same)
			}
			if got := b.SameSelection(a); got != tc.same {
				t.Errorf("b.SameSelection(a) = %v, want %v", got, tc.same)
			}
		})
	}
	// The reordering case really reorders (otherwise it proves nothing).
	if a, b := base().SubnetIDs(), reResolved().SubnetIDs(); strings.Join(a, ",") == strings.Join(b, ",") {
		t.Fatalf("re-resolution did not reorder subnets: %v", a)
	}
}

// Matches that work but are rarely meant are warnings with a summary of their own: a public
// subnet, a second subnet in a zone, node subnets that the pod subnet terms match too. The
// happy path has none.
func TestResolveSubnetFindings(t *testing.T) {
	r, _, err := Resolve(context.Background(), happyAPI(), baseSpec())
	if err != nil || len(r.Warnings) != 0 {
		t.Fatalf("happy path: warnings %v, err %v", r.Warnings, err)
	}

	api := happyAPI()
	public := subnet("subnet-pub", "vpc-1", "us-west-2a", 4000)
	public.MapPublicIPOnLaunch, public.Tags, public.CIDRBlock = true, map[string]string{"Name": "public-a"}, "10.0.64.0/20"
	api.subnets[discoveryKey] = append(api.subnets[discoveryKey], public)
	r, errs, err := Resolve(context.Background(), api, baseSpec())
	if err != nil || len(errs) != 0 {
		t.Fatal(errs, err)
	}
	want := map[string][]string{
		SummaryPublicSubnets:  {`subnet-pub "public-a" (us-west-2a, 10.0.64.0/20) maps public IPs on launch`, "select private subnets"},
		SummarySubnetsPerZone: {`us-west-2a: subnet-pub "public-a" (4000 free IPs), subnet-a (100 free IPs)`, "the one with the most free IPs"},
	}
	checkFindings(t, r.Warnings, want)

	api = happyAPI()
	api.subnets[podKey] = []discovery.Subnet{subnet("subnet-a", "vpc-1", "us-west-2a", 100), subnet("subnet-pb", "vpc-1", "us-west-2b", 60000),
		subnet("subnet-pc", "vpc-1", "us-west-2c", 60000)}
	r, _, err = Resolve(context.Background(), api, customNetworkingSpec())
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, r.Warnings, map[string][]string{SummaryNodeSubnetsArePodSubnets: {"also matches 1 of the pod subnets (subnet-a (us-west-2a, ))"}})
}

func checkFindings(t *testing.T, got []FieldError, want map[string][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("findings %v, want %d", got, len(want))
	}
	for _, f := range got {
		parts, ok := want[f.Summary]
		if !ok || f.Path.String() != "subnet_selector_terms" {
			t.Errorf("unexpected finding %+v", f)
			continue
		}
		for _, p := range parts {
			if !strings.Contains(f.Message, p) {
				t.Errorf("%s: %q lacks %q", f.Summary, f.Message, p)
			}
		}
	}
}
