package capacity

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// findingText is "path|summary|message" of each finding, for comparing whole findings.
func findingText(fs []attrpath.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path.String() + "|" + f.Summary + "|" + f.Message
	}
	return out
}

// The data sources name the kubelet settings kubelet_*; the rest keep ValidateSettings' names,
// list entries included, and each finding is summarised by its attribute.
func TestInputFindingsOnDataSourceNames(t *testing.T) {
	s := Settings{AMIFamily: "Ubuntu", ReservedENIs: -1, MaxPods: ptr(-1), PodsPerCore: ptr(-2), BranchInterfaces: ptr(-3),
		Warm:              WarmTargets{Prefix: ptr(-4)},
		NetworkInterfaces: []Interface{{0, 0, InterfaceTypeInterface}, {0, 1, "bogus"}}}
	var got []string
	for _, f := range InputFindings(s) {
		got = append(got, f.Path.String()+"|"+f.Summary)
	}
	want := []string{
		"ami_family|Invalid ami_family", "reserved_enis|Invalid reserved_enis", "kubelet_max_pods|Invalid kubelet_max_pods",
		"kubelet_pods_per_core|Invalid kubelet_pods_per_core", "branch_interfaces|Invalid branch_interfaces",
		"warm_prefix_target|Invalid warm_prefix_target", "network_interfaces[1]|Invalid network_interfaces",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n got %q\nwant %q", got, want)
	}
	// Messages are ValidateSettings' own, word for word.
	for i, f := range ValidateSettings(s) {
		if in := InputFindings(s)[i]; in.Message != f.Message {
			t.Errorf("finding %d message %q, want %q", i, in.Message, f.Message)
		}
	}
	if fs := InputFindings(Settings{}); len(fs) != 0 {
		t.Errorf("valid settings: %v", fs)
	}
}

func TestComputeFindingsOnTheAttributeToChange(t *testing.T) {
	compute := func(n Network, s Settings) []string {
		t.Helper()
		_, err := Compute(n, s)
		if err == nil {
			t.Fatalf("%s: no error", n.InstanceType)
		}
		return findingText(ComputeFindings(n.InstanceType, s, err))
	}
	twoCards := []Interface{{0, 0, InterfaceTypeInterface}, {1, 0, InterfaceTypeInterface}}
	cases := []struct {
		name string
		got  []string
		want string
	}{
		{"interfaces do not fit", compute(m5Large(), Settings{NetworkInterfaces: twoCards}),
			"network_interfaces|Network interfaces do not fit m5.large|instance type incompatible with network interfaces: m5.large: " +
				"network card 1 does not exist (1 cards). Karpenter would not launch this instance type with these network interfaces."},
		{"reserved ENIs take all", compute(t3Micro(), Settings{ReservedENIs: 2}),
			"reserved_enis|No ENI left for pods on t3.micro|no ENI left for pods: t3.micro has 2 ENIs on its default card, 2 reserved and 0 efa-only; " +
				"set kubelet max_pods or reserve fewer ENIs"},
		{"custom networking and SGP take all", compute(t3Micro(), Settings{CustomNetworking: true, SecurityGroupsForPods: true}),
			"custom_networking|No ENI left for pods on t3.micro|no ENI left for pods: t3.micro has 2 ENIs on its default card, 2 reserved and 0 efa-only; " +
				"set kubelet max_pods or reserve fewer ENIs"},
		{"bad EC2 data", compute(Network{InstanceType: "z.large", VCPUs: 2, MaxENIs: 3}, Settings{}),
			"instance_type|Incomplete EC2 data for z.large|invalid instance type network data: z.large: IPv4 addresses per ENI must be at least 1, got 0"},
		{"settings", compute(m5Large(), Settings{MaxPods: ptr(-1)}),
			"kubelet_max_pods|Invalid kubelet_max_pods|must not be negative, got -1"},
	}
	for _, c := range cases {
		if len(c.got) != 1 || c.got[0] != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
	if got := findingText(ComputeFindings("x.large", Settings{}, errors.New("boom"))); !slices.Equal(got, []string{"|Cannot compute pod capacity for x.large|boom"}) {
		t.Errorf("other error: %q", got)
	}
}

// With nothing reserved, the ENI-taking input left is the one blamed: interfaces, then the
// CNI's own reservations.
func TestNoPodENIPath(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{ReservedENIs: 1, NetworkInterfaces: p5EFALayout(), CustomNetworking: true}, "reserved_enis"},
		{Settings{NetworkInterfaces: p5EFALayout(), CustomNetworking: true}, "network_interfaces"},
		{Settings{CustomNetworking: true, SecurityGroupsForPods: true}, "custom_networking"},
		{Settings{SecurityGroupsForPods: true}, "security_groups_for_pods"},
	} {
		if got := noPodENIPath(c.s).String(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.s, got, c.want)
		}
	}
}

func TestWarningFindings(t *testing.T) {
	r, err := Compute(m5Large(), Settings{SecurityGroupsForPods: true, MaxPods: ptr(110)})
	if err != nil {
		t.Fatal(err)
	}
	got := r.WarningFindings("m5.large")
	if len(got) != len(r.Warnings) || len(got) < 2 {
		t.Fatalf("%d findings for warnings %q", len(got), r.Warnings)
	}
	for i, f := range got {
		if f.Summary != "Pod capacity of m5.large" || f.Message != r.Warnings[i] || !f.Path.IsEmpty() {
			t.Errorf("finding %d: %+v", i, f)
		}
	}
}

func TestDroppedWarning(t *testing.T) {
	if fs := (Dropped{}).Findings(); fs != nil {
		t.Errorf("nothing dropped: %v", fs)
	}
	one := Dropped{}
	one.Add("t3.micro", fmt.Errorf("%w: t3.micro", ErrNoPodENI))
	got := findingText(one.Findings())
	want := "|1 instance type left out: no pod capacity under these settings|These types match the requirements but their pod " +
		"capacity cannot be computed with these CNI inputs, so they are not listed:\n- 1: no ENI left for pods (t3.micro)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("one dropped:\n got %q\nwant %q", got, want)
	}

	many := Dropped{}
	for i := range 10 {
		many.Add(fmt.Sprintf("m%d.large", i), fmt.Errorf("%w: x", ErrIncompatible))
	}
	many.Add("z.large", fmt.Errorf("%w: z", ErrInvalidNetwork))
	many.Add("q.large", errors.New("boom"))
	fs := many.Findings()
	if len(fs) != 1 || fs[0].Summary != "12 instance types left out: no pod capacity under these settings" {
		t.Fatalf("summary: %+v", fs)
	}
	lines := strings.Split(fs[0].Message, "\n")[1:]
	wantLines := []string{ // reasons sorted, at most 8 names each
		"- 1: incomplete EC2 network data (z.large)",
		"- 10: network_interfaces do not fit (m0.large, m1.large, m2.large, m3.large, m4.large, m5.large, m6.large, m7.large, ... (2 more))",
		"- 1: other error (q.large)",
	}
	if !slices.Equal(lines, wantLines) {
		t.Errorf("lines\n got %q\nwant %q", lines, wantLines)
	}
}
