package requirements

import (
	"slices"
	"strings"
	"testing"
)

// A requirement known only after apply is left out of the findings; the others keep theirs, on
// their own index.
func TestValidateKnownSkipsUnknownRequirements(t *testing.T) {
	reqs := []Requirement{
		{Key: "", Operator: OpExists},                       // 0: bad, unknown
		{Key: LabelArch, Operator: "in"},                    // 1: bad, known
		{Key: LabelArch, Operator: OpIn},                    // 2: bad (no values), unknown
		{Key: "example.com/team", Operator: OpDoesNotExist}, // 3: fine
	}
	paths := func(unknown map[int]bool) []string {
		var out []string
		for _, f := range ValidateKnown(reqs, unknown) {
			out = append(out, f.Path.String())
		}
		return out
	}
	all := paths(nil)
	if len(all) != len(Validate(reqs)) || len(all) < 3 {
		t.Fatalf("without unknowns ValidateKnown is Validate: %v", all)
	}
	got := paths(map[int]bool{0: true, 2: true})
	if len(got) == 0 {
		t.Fatal("the known bad requirement lost its finding")
	}
	for _, p := range got {
		if !strings.HasPrefix(p, "[1]") {
			t.Errorf("finding on %s, want only [1]", p)
		}
	}
	if got := paths(map[int]bool{0: true, 1: true, 2: true, 3: true}); len(got) != 0 {
		t.Errorf("all unknown: %v", got)
	}
}

func TestIsWellKnownDomain(t *testing.T) {
	var known []string
	for _, key := range []string{
		"kubernetes.io/arch", "node.kubernetes.io/instance-type", "topology.k8s.aws/zone-id", "karpenter.sh/capacity-type",
		"karpenter.k8s.aws/instance-family", "k8s.io/x", "sub.karpenter.sh/x",
		"example.com/team", "team", "notkubernetes.io/x", "kubernetes.io.example.com/x", "", "/x",
	} {
		if IsWellKnownDomain(key) {
			known = append(known, key)
		}
	}
	want := []string{"kubernetes.io/arch", "node.kubernetes.io/instance-type", "topology.k8s.aws/zone-id", "karpenter.sh/capacity-type",
		"karpenter.k8s.aws/instance-family", "k8s.io/x", "sub.karpenter.sh/x"}
	if !slices.Equal(known, want) {
		t.Errorf("well known\n got %q\nwant %q", known, want)
	}
}
