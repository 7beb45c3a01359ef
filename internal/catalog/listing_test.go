package catalog

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// findingText is "path|summary|message" of each finding.
func findingText(fs []attrpath.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path.String()+"|"+f.Summary+"|"+f.Message)
	}
	return out
}

func TestCheckZoneNames(t *testing.T) {
	got := findingText(CheckZoneNames([]string{"ap-southeast-1a", "", "ap-southeast-1a", " ", "ap-southeast-1b", "ap-southeast-1b", ""},
		map[int]bool{5: true, 6: true}))
	want := []string{
		"zones[1]|Invalid zone|zone names must not be empty",
		`zones[2]|Duplicate zone|zone "ap-southeast-1a" is listed twice`,
		"zones[3]|Invalid zone|zone names must not be empty",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n got %q\nwant %q", got, want)
	}
	if fs := CheckZoneNames(nil, nil); fs != nil {
		t.Errorf("no zones: %v", fs)
	}
}

func TestCheckZones(t *testing.T) {
	c := fixtureCatalog()
	got := findingText(c.CheckZones("ap-southeast-1", []string{"ap-southeast-1a", "ap-southeast-1z"}))
	want := []string{`zones[1]|Unknown availability zone|"ap-southeast-1z" is not an availability zone of ap-southeast-1 with ` +
		"instance type offerings. The region's zones are: ap-southeast-1a, ap-southeast-1b, ap-southeast-1c."}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n got %q\nwant %q", got, want)
	}
}

func TestListErrors(t *testing.T) {
	c := fixtureCatalog()
	min3 := 3
	cases := []struct {
		name string
		q    ListQuery
		want []string
	}{
		{"unknown zone", ListQuery{Region: "ap-southeast-1", Zones: []string{"ap-southeast-1z"}},
			[]string{`zones[0]|Unknown availability zone|"ap-southeast-1z" is not an availability zone of ap-southeast-1 with ` +
				"instance type offerings. The region's zones are: ap-southeast-1a, ap-southeast-1b, ap-southeast-1c."}},
		{"min_values", ListQuery{Requirements: []requirements.Requirement{
			req(requirements.LabelArch, requirements.OpExists),
			{Key: requirements.LabelInstanceFamily, Operator: requirements.OpIn, Values: []string{"m5", "c7g"}, MinValues: &min3},
		}}, []string{`requirements[1].min_values|min_values not satisfied|The matching instance types offer 2 distinct value(s) of ` +
			`"karpenter.k8s.aws/instance-family" but min_values is 3. Loosen the other requirements or lower min_values.`}},
	}
	for _, tc := range cases {
		l := c.List(tc.q)
		if got := findingText(l.Errors); !slices.Equal(got, tc.want) {
			t.Errorf("%s: errors\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if len(l.Types) != 0 || len(l.Warnings) != 0 {
			t.Errorf("%s: a failed listing lists %d types, %v", tc.name, len(l.Types), l.Warnings)
		}
	}
}

func listedNames(l Listing) []string {
	var out []string
	for _, t := range l.Types {
		out = append(out, t.Type.Name)
	}
	return out
}

// A type without pod capacity is left out with one warning; a requirement on a well-known key the
// catalog does not evaluate warns on its key, a custom label does not.
func TestListWarnings(t *testing.T) {
	c := fixtureCatalog()
	s := capacity.Settings{ReservedENIs: 3}
	l := c.List(ListQuery{Region: "ap-southeast-1", Zones: []string{"ap-southeast-1a"}, Settings: s, Requirements: []requirements.Requirement{
		req("example.com/team", requirements.OpIn, "a"),
		req(requirements.LabelInstanceFamily, requirements.OpIn, "m5", "c7g"),
		req("topology.k8s.aws/zone-id", requirements.OpIn, "apse1-az1"),
	}})
	if len(l.Errors) != 0 {
		t.Fatalf("errors: %v", l.Errors)
	}
	if got := listedNames(l); !slices.Equal(got, []string{"c7g.xlarge"}) {
		t.Errorf("listed %v, want c7g.xlarge (m5.large has 3 ENIs, all reserved)", got)
	}
	got := findingText(l.Warnings)
	want := []string{
		`requirements[2].key|Requirement not evaluated|"topology.k8s.aws/zone-id" is not an instance-type label this data source ` +
			"evaluates (it needs node class or launch state, such as subnets or placement groups), so it does not narrow the list. " +
			"Karpenter still applies it.",
		"|1 instance type left out: no pod capacity under these settings|These types match the requirements but their pod capacity " +
			"cannot be computed with these CNI inputs, so they are not listed:\n- 1: no ENI left for pods (m5.large)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
	// Each listed type carries Compute's result and the zones of the query.
	c7g, _ := c.Get("c7g.xlarge")
	wantCap, err := capacity.Compute(ToNetwork(c7g), s)
	if err != nil || !reflect.DeepEqual(l.Types[0].Capacity, wantCap) || !slices.Equal(l.Types[0].Zones, []string{"ap-southeast-1a"}) {
		t.Errorf("c7g.xlarge: %+v, zones %v; want %+v (%v)", l.Types[0].Capacity, l.Types[0].Zones, wantCap, err)
	}
}

// A Windows family lists amd64 types only, labelled with the family's build.
func TestListWindows(t *testing.T) {
	c := fixtureCatalog()
	linux := c.List(ListQuery{Region: "ap-southeast-1"})
	windows := c.List(ListQuery{Region: "ap-southeast-1", Settings: capacity.Settings{AMIFamily: capacity.FamilyWindows2022}, WindowsBuild: "10.0.20348"})
	if !slices.Contains(listedNames(linux), "c7g.xlarge") || slices.Contains(listedNames(windows), "c7g.xlarge") || len(windows.Types) == 0 {
		t.Fatalf("linux %v, windows %v", listedNames(linux), listedNames(windows))
	}
	for _, tt := range windows.Types {
		if tt.Labels[requirements.LabelOS] != "windows" || tt.Labels[requirements.LabelWindowsBuild] != "10.0.20348" || tt.Capacity.MaxPods != 110 {
			t.Errorf("%s: os %q, build %q, max pods %d", tt.Type.Name, tt.Labels[requirements.LabelOS], tt.Labels[requirements.LabelWindowsBuild], tt.Capacity.MaxPods)
		}
	}
	if l := linux.Types[0].Labels; l[requirements.LabelOS] != "linux" || l[requirements.LabelWindowsBuild] != "" {
		t.Errorf("linux labels: %v", l)
	}
}

func TestLookupAndCheckTypeName(t *testing.T) {
	c := fixtureCatalog()
	if it, errs := c.Lookup("m5.large", "ap-southeast-1"); it == nil || it.Name != "m5.large" || errs != nil {
		t.Errorf("m5.large: %v, %v", it, errs)
	}
	cases := []struct{ name, want string }{
		{"m5.lrage", `instance_type|Unknown instance type|"m5.lrage" is not an EC2 instance type in ap-southeast-1 (10 types known). Did you mean "m5.large"?`},
		{"c7g.large", `instance_type|Unknown instance type|"c7g.large" is not an EC2 instance type in ap-southeast-1 (10 types known). Did you mean "c7g.xlarge"?`},
		{"zzzzzzzzzz", `instance_type|Unknown instance type|"zzzzzzzzzz" is not an EC2 instance type in ap-southeast-1 (10 types known).`},
	}
	for _, tc := range cases {
		it, errs := c.Lookup(tc.name, "ap-southeast-1")
		if got := findingText(errs); it != nil || !slices.Equal(got, []string{tc.want}) {
			t.Errorf("%s: %v\n got %q\nwant %q", tc.name, it, got, tc.want)
		}
	}
	if got := quoteJoin([]string{"a", "b", "c"}); got != `"a", "b" or "c"` {
		t.Errorf("quoteJoin: %s", got)
	}
	if got := findingText(CheckTypeName("  ")); !slices.Equal(got, []string{`instance_type|Missing instance type|instance_type must name an EC2 instance type, e.g. "m5.large".`}) {
		t.Errorf("blank name: %q", got)
	}
	if fs := CheckTypeName("m5.large"); fs != nil {
		t.Errorf("named: %v", fs)
	}
}

func TestPodCapacity(t *testing.T) {
	c := fixtureCatalog()
	r, errs, warnings := c.PodCapacity("m5.large", "ap-southeast-1", capacity.Settings{SecurityGroupsForPods: true})
	if errs != nil || r.MaxPods == 0 || len(warnings) != 1 || warnings[0].Summary != "Pod capacity of m5.large" ||
		!strings.Contains(warnings[0].Message, "branch_interfaces") {
		t.Errorf("m5.large: %+v, %v, %v", r, errs, warnings)
	}
	_, errs, _ = c.PodCapacity("m5.lrage", "ap-southeast-1", capacity.Settings{})
	if len(errs) != 1 || errs[0].Summary != "Unknown instance type" {
		t.Errorf("typo: %v", errs)
	}
	_, errs, warnings = c.PodCapacity("m4.large", "ap-southeast-1", capacity.Settings{ReservedENIs: 2})
	if got := findingText(errs); len(got) != 1 || !strings.HasPrefix(got[0], "reserved_enis|No ENI left for pods on m4.large|no ENI left for pods: m4.large") || warnings != nil {
		t.Errorf("m4.large all reserved: %q, %v", got, warnings)
	}
}

// A listed type's output carries the type's figures, its labels and zones, and the capacity's
// pod counts; zones and labels are never nil (empty lists and maps, not nulls), prices nil.
func TestListedOutput(t *testing.T) {
	c := fixtureCatalog()
	l := c.List(ListQuery{Region: "ap-southeast-1", Zones: []string{"ap-southeast-1a"}})
	if len(l.Errors) != 0 || len(l.Types) == 0 {
		t.Fatalf("listing: %v", l.Errors)
	}
	for _, lt := range l.Types {
		o, it := lt.Output(), lt.Type
		want := TypeOutput{Name: it.Name, VCPU: it.VCPUs, MemoryMiB: it.MemoryMiB, Architecture: it.KubeArch(), Hypervisor: it.Hypervisor,
			Zones: lt.Zones, MaxENIs: it.MaxENIs, IPv4PerENI: it.IPv4PerENI, EFASupported: it.EFASupported,
			NetworkCards: len(it.NetworkCards), Labels: lt.Labels, ENILimitedPods: lt.Capacity.ENILimitedPods, MaxPods: lt.Capacity.MaxPods}
		if !reflect.DeepEqual(o, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", it.Name, o, want)
		}
		if o.Architecture == "" || o.VCPU == 0 || o.MaxPods == 0 || len(o.Labels) == 0 {
			t.Errorf("%s: empty figures %+v", it.Name, o)
		}
	}
	m5, _ := c.Get("m5.large")
	o := Listed{Selected: Selected{Type: m5}}.Output()
	if o.Zones == nil || len(o.Zones) != 0 || o.Labels == nil || len(o.Labels) != 0 || o.OnDemandPrice != nil || o.SpotPrice != nil {
		t.Errorf("no zones or labels: %+v", o)
	}
}
