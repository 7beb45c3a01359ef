package launchplan

import (
	"slices"
	"strings"
	"testing"
)

// summaryType is an eligible type: its cheapest price and capacity type, its max pods, and what
// Karpenter assumes.
func summaryType(name string, price float64, ct string, maxPods, karpenter int) TypePlan {
	return TypePlan{Name: name, Price: price, PriceCapacityType: ct, MaxPods: maxPods, KarpenterAssumedPods: karpenter}
}

// summaryPlan has seven launch types (more than FirstTypesShown) and eight eligible types.
func summaryPlan() Plan {
	return Plan{
		InstanceTypes: []TypePlan{
			summaryType("t3.large", 0.0832, "on-demand", 35, 35),
			summaryType("c5.large", 0.085, "on-demand", 29, 29),
			summaryType("m5.large", 0.096, "on-demand", 29, 29),
			summaryType("m6g.large", 0.031, "spot", 29, 29),
			summaryType("r5.large", 0.126, "on-demand", 29, 29),
			summaryType("m5.xlarge", 0.192, "on-demand", 58, 58),
			summaryType("m5.2xlarge", 0.384, "on-demand", 58, 110),   // Karpenter assumes another max pods
			summaryType("p5.48xlarge", 98.32, "on-demand", 110, 110), // eligible, not launched
		},
		LaunchTypes:     []string{"m6g.large", "t3.large", "c5.large", "m5.large", "r5.large", "m5.xlarge", "m5.2xlarge"},
		LaunchTemplates: []LaunchTemplate{{Name: "c1/general/aaaa"}, {Name: "c1/general/bbbb"}},
		NodesByIPs:      40,
		NodesByLimits:   -1,
		PriceSource:     "AWS Price List",
	}
}

func TestSummary(t *testing.T) {
	s := summaryPlan().Summary()
	// The first five launch types, in launch order, with price and capacity type; two more.
	wantFirst := "m6g.large 0.031 spot, t3.large 0.0832 on-demand, c5.large 0.085 on-demand, m5.large 0.096 on-demand, " +
		"r5.large 0.126 on-demand and 2 more (USD/h)"
	if s.FirstInstanceTypes != wantFirst {
		t.Errorf("FirstInstanceTypes\n got %q\nwant %q", s.FirstInstanceTypes, wantFirst)
	}
	if s.InstanceTypes != 8 || s.LaunchTemplates != 2 || s.NodesByIPs != 40 || s.Prices != "AWS Price List" {
		t.Errorf("counts %+v", s)
	}
	if s.MaxPodsMin != 29 || s.MaxPodsMax != 110 {
		t.Errorf("max pods %d-%d, want 29-110", s.MaxPodsMin, s.MaxPodsMax)
	}
	if s.KarpenterDisagrees != 1 {
		t.Errorf("KarpenterDisagrees = %d, want 1 (m5.2xlarge)", s.KarpenterDisagrees)
	}
	if s.NodesByLimits != nil {
		t.Errorf("NodesByLimits = %d, want nil when no limit bounds nodes", *s.NodesByLimits)
	}
	if s.Cost != "" {
		t.Errorf("Cost = %q, want none without a cost", s.Cost)
	}
}

func TestSummaryCases(t *testing.T) {
	for _, tc := range []struct {
		name       string
		plan       func() Plan
		first      string
		min, max   int64
		byLimits   *int64
		costPrefix string
	}{
		{
			name:  "no types",
			plan:  func() Plan { return Plan{NodesByLimits: -1} },
			first: "", min: 0, max: 0,
		},
		{
			name: "exactly the types shown: no more, still the unit",
			plan: func() Plan {
				p := summaryPlan()
				p.LaunchTypes = p.LaunchTypes[:FirstTypesShown]
				return p
			},
			first: "m6g.large 0.031 spot, t3.large 0.0832 on-demand, c5.large 0.085 on-demand, m5.large 0.096 on-demand, " +
				"r5.large 0.126 on-demand (USD/h)",
			min: 29, max: 110,
		},
		{
			name: "one type, smallest max pods first",
			plan: func() Plan {
				return Plan{InstanceTypes: []TypePlan{summaryType("c5.large", 0.085, "on-demand", 29, 29), summaryType("t3.large", 0.0832, "on-demand", 35, 35)},
					LaunchTypes: []string{"t3.large"}, NodesByLimits: 0}
			},
			first: "t3.large 0.0832 on-demand (USD/h)", min: 29, max: 35, byLimits: new(int64),
		},
		{
			name: "max pods minimum not at the first type",
			plan: func() Plan {
				return Plan{InstanceTypes: []TypePlan{summaryType("a", 1, "spot", 58, 58), summaryType("b", 1, "spot", 17, 17), summaryType("c", 1, "spot", 110, 110)},
					NodesByLimits: 12}
			},
			first: "", min: 17, max: 110, byLimits: func() *int64 { n := int64(12); return &n }(),
		},
		{
			name: "cost",
			plan: func() Plan {
				p := summaryPlan()
				p.Cost = Cost{Bounded: true, Nodes: 3, InstanceType: "m6g.large", CapacityType: "spot", Price: 0.031, Hourly: 0.093, Basis: "replicas"}
				return p
			},
			first: summaryPlan().Summary().FirstInstanceTypes, min: 29, max: 110,
			costPrefix: "3 replicas × m6g.large spot at 0.031 USD/h = 0.09 USD/h",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.plan().Summary()
			if s.FirstInstanceTypes != tc.first {
				t.Errorf("FirstInstanceTypes %q, want %q", s.FirstInstanceTypes, tc.first)
			}
			if s.MaxPodsMin != tc.min || s.MaxPodsMax != tc.max {
				t.Errorf("max pods %d-%d, want %d-%d", s.MaxPodsMin, s.MaxPodsMax, tc.min, tc.max)
			}
			if (s.NodesByLimits == nil) != (tc.byLimits == nil) || (s.NodesByLimits != nil && *s.NodesByLimits != *tc.byLimits) {
				t.Errorf("NodesByLimits %v, want %v", s.NodesByLimits, tc.byLimits)
			}
			if s.Cost != tc.costPrefix {
				t.Errorf("Cost %q, want %q", s.Cost, tc.costPrefix)
			}
		})
	}
}

func TestFirstTypeNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"t3.large 0.0832 on-demand (USD/h)", []string{"t3.large"}},
		{"m6g.large 0.031 spot, t3.large 0.0832 on-demand and 2 more (USD/h)", []string{"m6g.large", "t3.large"}},
	} {
		if got := firstTypeNames(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("firstTypeNames(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// It reads what Summary writes.
	if got, want := firstTypeNames(summaryPlan().Summary().FirstInstanceTypes), summaryPlan().LaunchTypes[:FirstTypesShown]; !slices.Equal(got, want) {
		t.Errorf("names of the summary %v, want %v", got, want)
	}
}

func TestShownHolds(t *testing.T) {
	fps := map[string]string{"c1/general/aaaa": "fp-a", "c1/general/bbbb": "fp-b"}
	allTypes := func(p Plan) []string {
		out := make([]string, len(p.InstanceTypes))
		for i, tp := range p.InstanceTypes {
			out[i] = tp.Name
		}
		return out
	}
	shownOf := func(details bool) Shown {
		p := summaryPlan()
		s := Shown{Summary: p.Summary()}
		if details {
			s.InstanceTypes = allTypes(p)
			s.Fingerprints = map[string]string{"c1/general/aaaa": "fp-a", "c1/general/bbbb": "fp-b"}
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		details bool // the plan showed the eligible types and fingerprints
		change  func(p *Plan, fps map[string]string)
		want    bool
	}{
		{"same plan", true, func(*Plan, map[string]string) {}, true},
		{"prices move", true, func(p *Plan, _ map[string]string) {
			for i := range p.InstanceTypes {
				p.InstanceTypes[i].Price *= 1.1
				p.InstanceTypes[i].PriceCapacityType = "on-demand"
			}
			p.Cost = Cost{Bounded: true, Nodes: 1, InstanceType: "m6g.large", CapacityType: "spot", Price: 0.04, Hourly: 0.04, Basis: "replicas"}
			p.NodesByIPs = 12
		}, true},
		{"another first type", true, func(p *Plan, _ map[string]string) {
			p.LaunchTypes[1], p.LaunchTypes[2] = p.LaunchTypes[2], p.LaunchTypes[1]
		}, false},
		{"a type beyond the first ones replaced", true, func(p *Plan, _ map[string]string) {
			p.InstanceTypes[5].Name, p.LaunchTypes[5] = "m6i.xlarge", "m6i.xlarge"
		}, false},
		{"a type beyond the first ones replaced, not shown", false, func(p *Plan, _ map[string]string) {
			p.InstanceTypes[5].Name, p.LaunchTypes[5] = "m6i.xlarge", "m6i.xlarge"
		}, true},
		{"one eligible type more", false, func(p *Plan, _ map[string]string) {
			p.InstanceTypes = append(p.InstanceTypes, summaryType("c6i.large", 0.085, "on-demand", 29, 29))
		}, false},
		{"another template", false, func(p *Plan, _ map[string]string) {
			p.LaunchTemplates = p.LaunchTemplates[:1]
		}, false},
		{"max pods range moves", false, func(p *Plan, _ map[string]string) {
			p.InstanceTypes[7].MaxPods = 234
		}, false},
		{"template content changes", true, func(_ *Plan, fps map[string]string) { fps["c1/general/aaaa"] = "fp-a2" }, false},
		{"template content changes, fingerprints not shown", false, func(_ *Plan, fps map[string]string) { fps["c1/general/aaaa"] = "fp-a2" }, true},
		{"eligible types reordered", true, func(p *Plan, _ map[string]string) {
			p.InstanceTypes[5], p.InstanceTypes[6] = p.InstanceTypes[6], p.InstanceTypes[5]
		}, false},
		{"eligible types reordered, not shown", false, func(p *Plan, _ map[string]string) {
			p.InstanceTypes[5], p.InstanceTypes[6] = p.InstanceTypes[6], p.InstanceTypes[5]
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, now := summaryPlan(), map[string]string{}
			for k, v := range fps {
				now[k] = v
			}
			tc.change(&p, now)
			shown := shownOf(tc.details)
			if got := shown.Holds(p, now); got != tc.want {
				t.Errorf("Holds = %v, want %v (shown %+v, now %+v)", got, tc.want, shown.Summary, p.Summary())
			}
		})
	}
}

func TestShownNoLongerHolds(t *testing.T) {
	shown := Shown{Summary: summaryPlan().Summary()}
	p := summaryPlan()
	p.InstanceTypes, p.LaunchTypes = p.InstanceTypes[:1], []string{"t3.large"}
	msg := shown.NoLongerHolds(p)
	for _, want := range []string{"(8 types planned, 1 now;", "first types planned: m6g.large 0.031 spot,", "now: t3.large 0.0832 on-demand (USD/h))",
		"run terraform plan again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not contain %q", msg, want)
		}
	}
}
