package catalog

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func req(key string, op requirements.Operator, values ...string) requirements.Requirement {
	return requirements.Requirement{Key: key, Operator: op, Values: values}
}

func names(sel []Selected) []string {
	out := make([]string, len(sel))
	for i, s := range sel {
		out[i] = s.Type.Name
	}
	return out
}

func TestSelectOperators(t *testing.T) {
	c := fixtureCatalog()
	eligible := []string{"c5.metal", "c7g.xlarge", "c7i-flex.large", "g4dn.xlarge", "inf2.xlarge", "m4.large", "m5.large", "p5.48xlarge", "x2iezn.2xlarge"}
	cases := []struct {
		name string
		reqs []requirements.Requirement
		want []string
	}{
		{"none: every eligible type (no Mac)", nil, eligible},
		{"In", []requirements.Requirement{req(requirements.LabelInstanceFamily, requirements.OpIn, "m5", "c7g", "nope")}, []string{"c7g.xlarge", "m5.large"}},
		{"NotIn", []requirements.Requirement{req(requirements.LabelArch, requirements.OpNotIn, "amd64")}, []string{"c7g.xlarge"}},
		{"Exists", []requirements.Requirement{req(requirements.LabelInstanceGPUName, requirements.OpExists)}, []string{"g4dn.xlarge", "p5.48xlarge"}},
		{"DoesNotExist", []requirements.Requirement{
			req(requirements.LabelInstanceGPUName, requirements.OpDoesNotExist),
			req(requirements.LabelInstanceAcceleratorName, requirements.OpDoesNotExist),
			req(requirements.LabelInstanceLocalNVMe, requirements.OpDoesNotExist),
		}, []string{"c5.metal", "c7g.xlarge", "c7i-flex.large", "m4.large", "m5.large", "x2iezn.2xlarge"}},
		{"Gt", []requirements.Requirement{req(requirements.LabelInstanceCPU, requirements.OpGt, "90")}, []string{"c5.metal", "p5.48xlarge"}},
		{"Lt", []requirements.Requirement{req(requirements.LabelInstanceCPU, requirements.OpLt, "4")}, []string{"c7i-flex.large", "m4.large", "m5.large"}},
		{"Gte", []requirements.Requirement{req(requirements.LabelInstanceMemory, requirements.OpGte, "262144")}, []string{"p5.48xlarge", "x2iezn.2xlarge"}},
		{"Lte", []requirements.Requirement{req(requirements.LabelInstanceGeneration, requirements.OpLte, "4")}, []string{"g4dn.xlarge", "inf2.xlarge", "m4.large", "x2iezn.2xlarge"}},
		{"hypervisor In nitro excludes metal and xen", []requirements.Requirement{
			req(requirements.LabelInstanceHypervisor, requirements.OpIn, "nitro"),
			req(requirements.LabelInstanceCPU, requirements.OpLt, "5"),
		}, []string{"c7g.xlarge", "c7i-flex.large", "g4dn.xlarge", "inf2.xlarge", "m5.large"}},
		{"ANDed on one key", []requirements.Requirement{
			req(requirements.LabelInstanceCPU, requirements.OpGte, "4"),
			req(requirements.LabelInstanceCPU, requirements.OpLte, "8"),
		}, []string{"c7g.xlarge", "g4dn.xlarge", "inf2.xlarge", "x2iezn.2xlarge"}},
		{"flex", []requirements.Requirement{req(requirements.LabelInstanceCapabilityFlex, requirements.OpIn, "true")}, []string{"c7i-flex.large"}},
		{"custom label does not narrow", []requirements.Requirement{req("example.com/team", requirements.OpIn, "a")}, eligible},
		{"region", []requirements.Requirement{req(requirements.LabelRegion, requirements.OpIn, "ap-southeast-1")}, eligible},
		{"other region", []requirements.Requirement{req(requirements.LabelRegion, requirements.OpIn, "us-east-1")}, nil},
		{"tenancy", []requirements.Requirement{req(requirements.LabelInstanceTenancy, requirements.OpIn, "dedicated")}, eligible},
		{"no reservation", []requirements.Requirement{req(requirements.LabelCapacityReservationID, requirements.OpExists)}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.Select(tc.reqs, SelectOptions{Region: "ap-southeast-1"})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Types); !slices.Equal(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestSelectZones(t *testing.T) {
	c := fixtureCatalog()
	// Zone option: offered in 1c; p5.48xlarge has no offering and drops out.
	res, err := c.Select(nil, SelectOptions{Zones: []string{"ap-southeast-1c"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(res.Types), []string{"c5.metal", "c7i-flex.large", "g4dn.xlarge", "m4.large", "m5.large"}; !slices.Equal(got, want) {
		t.Errorf("zones option: %v", got)
	}
	for _, s := range res.Types {
		if !slices.Equal(s.Zones, []string{"ap-southeast-1c"}) {
			t.Errorf("%s zones %v", s.Type.Name, s.Zones)
		}
	}

	// A zone requirement is evaluated per offering and narrows each type's zones.
	res, err = c.Select([]requirements.Requirement{
		req(requirements.LabelZone, requirements.OpNotIn, "ap-southeast-1a"),
		req(requirements.LabelInstanceFamily, requirements.OpIn, "c7g", "x2iezn", "p5", "m5"),
	}, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range res.Types {
		got[s.Type.Name] = s.Zones
	}
	want := map[string][]string{
		"c7g.xlarge":  {"ap-southeast-1b"},
		"m5.large":    {"ap-southeast-1b", "ap-southeast-1c"},
		"p5.48xlarge": {}, // no offering: the zone label does not exist, and NotIn passes
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s zones %v, want %v", k, got[k], w)
		}
	}

	res, _ = c.Select([]requirements.Requirement{req(requirements.LabelZone, requirements.OpIn, "ap-southeast-1b")}, SelectOptions{})
	if got, want := names(res.Types), []string{"c7g.xlarge", "c7i-flex.large", "g4dn.xlarge", "inf2.xlarge", "m4.large", "m5.large"}; !slices.Equal(got, want) {
		t.Errorf("zone In: %v", got)
	}
}

func TestSelectCapacityType(t *testing.T) {
	od := m5Large()
	od.Name = "m5.xlarge"
	od.UsageClasses = []string{"on-demand"}
	c := New([]InstanceType{m5Large(), od})
	res, _ := c.Select([]requirements.Requirement{req(requirements.LabelCapacityType, requirements.OpIn, "spot")}, SelectOptions{})
	if got := names(res.Types); !slices.Equal(got, []string{"m5.large"}) {
		t.Errorf("spot: %v", got)
	}
	// min_values over capacity types counts distinct offerings.
	two := 2
	r := req(requirements.LabelCapacityType, requirements.OpIn, "spot", "on-demand")
	r.MinValues = &two
	if _, err := c.Select([]requirements.Requirement{r}, SelectOptions{}); err != nil {
		t.Errorf("two capacity types are offered: %v", err)
	}
}

func TestSelectMinValues(t *testing.T) {
	c := fixtureCatalog()
	three := 3
	family := req(requirements.LabelInstanceFamily, requirements.OpExists)
	family.MinValues = &three

	// Satisfied: 9 families.
	if _, err := c.Select([]requirements.Requirement{family}, SelectOptions{}); err != nil {
		t.Errorf("satisfied: %v", err)
	}
	// Violated: only 2 GPU families. The custom-label requirement in front is ignored, and the
	// error's index still points into the caller's list.
	res, err := c.Select([]requirements.Requirement{
		req("example.com/team", requirements.OpIn, "a"),
		req(requirements.LabelInstanceGPUName, requirements.OpExists),
		family,
	}, SelectOptions{})
	var mv *requirements.MinValuesError
	if !errors.As(err, &mv) {
		t.Fatalf("want MinValuesError, got %v", err)
	}
	if mv.Index != 2 || mv.Key != requirements.LabelInstanceFamily || mv.Want != 3 || mv.Got != 2 {
		t.Errorf("error %+v", mv)
	}
	if !strings.Contains(mv.Error(), requirements.LabelInstanceFamily) {
		t.Errorf("message must name the key: %s", mv.Error())
	}
	if len(res.Types) != 2 || !slices.Equal(res.Ignored, []int{0}) {
		t.Errorf("survivors %v, ignored %v", names(res.Types), res.Ignored)
	}
}

func TestSelectOptionsOSAndEligibility(t *testing.T) {
	c := fixtureCatalog()
	res, _ := c.Select(nil, SelectOptions{IncludeIneligible: true})
	if !slices.Contains(names(res.Types), "mac2.metal") {
		t.Error("IncludeIneligible must list mac2.metal")
	}
	res, _ = c.Select([]requirements.Requirement{
		req(requirements.LabelOS, requirements.OpIn, "windows"),
		req(requirements.LabelWindowsBuild, requirements.OpIn, "10.0.20348"),
	}, SelectOptions{OS: "windows", WindowsBuild: "10.0.20348"})
	if got := names(res.Types); slices.Contains(got, "c7g.xlarge") || !slices.Contains(got, "m5.large") {
		t.Errorf("windows: %v", got)
	}
	if res.Types[0].Labels[requirements.LabelOS] != "windows" {
		t.Errorf("labels %v", res.Types[0].Labels)
	}
	res, _ = c.Select([]requirements.Requirement{req(requirements.LabelOS, requirements.OpIn, "windows")}, SelectOptions{})
	if len(res.Types) != 0 {
		t.Errorf("linux types matched os=windows: %v", names(res.Types))
	}
}

// Select keeps its recent answers: asked again with the same requirements and options it gives
// the same answer, in a Types slice of the caller's own (replacing a type of one answer changes
// no other), and other options are another answer.
func TestSelectKeepsAnswers(t *testing.T) {
	c := syntheticCatalog(300)
	reqs := []requirements.Requirement{{Key: requirements.LabelArch, Operator: requirements.OpIn, Values: []string{"amd64"}}}
	opts := SelectOptions{Region: "ap-southeast-1"}
	first, err := c.Select(reqs, opts)
	if err != nil || len(first.Types) == 0 {
		t.Fatal(len(first.Types), err)
	}
	want, _ := c.selectFresh(reqs, opts)
	first.Types[1] = Selected{}
	second, err := c.Select(reqs, opts)
	if err != nil || !reflect.DeepEqual(second, want) {
		t.Fatalf("the second answer differs from a fresh one (or the first's changes reached it): %v", err)
	}
	zones := c.Zones()[:1]
	narrow, _ := c.Select(reqs, SelectOptions{Region: "ap-southeast-1", Zones: zones})
	if fresh, _ := c.selectFresh(reqs, SelectOptions{Region: "ap-southeast-1", Zones: zones}); !reflect.DeepEqual(narrow, fresh) {
		t.Error("the answer for other options is not their own")
	}
	if reflect.DeepEqual(narrow, second) {
		t.Error("one zone and every zone gave the same answer; the test needs a catalog where they differ")
	}
}

// Select labels the types as the options' Karpenter minor does: a type its bandwidth table lacks
// has no network bandwidth label there, so a requirement on the label leaves it out; a value the
// minor's table has differently decides a Gt.
func TestSelectNetworkBandwidthByRelease(t *testing.T) {
	m5, g7 := m5Large(), m5Large()
	g7.Name = "g7.2xlarge"
	c := New([]InstanceType{m5, g7})
	exists := []requirements.Requirement{req(requirements.LabelInstanceNetworkBandwidth, requirements.OpExists)}
	over := []requirements.Requirement{req(requirements.LabelInstanceNetworkBandwidth, requirements.OpGt, "50000")}
	for _, tc := range []struct {
		minor string
		reqs  []requirements.Requirement
		want  []string
	}{
		{"1.9", exists, []string{"m5.large"}},
		{"1.14", exists, []string{"g7.2xlarge", "m5.large"}},
		{"1.14", over, []string{"g7.2xlarge"}}, // 60000 in 1.14's table
		{"1.15", over, nil},                    // 40000 in 1.15's
		{"", exists, []string{"g7.2xlarge", "m5.large"}},
	} {
		res, err := c.Select(tc.reqs, SelectOptions{Region: "ap-southeast-1", KarpenterVersion: tc.minor})
		var got []string
		for _, s := range res.Types {
			got = append(got, s.Type.Name)
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Karpenter %q, %v: %v, %v; want %v", tc.minor, tc.reqs[0].Operator, got, err, tc.want)
		}
	}
}
