package oraclegen

import (
	"math/rand"
	"strconv"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// driftKeys are the label keys the random cases draw from, each with its values: well-known
// labels Karpenter and the provider both know (a node lacking one meets any requirement on it)
// and custom labels (a node lacking one meets only NotIn or DoesNotExist).
var driftKeys = []struct {
	key    string
	values []string
}{
	{requirements.LabelArch, []string{"amd64", "arm64"}},
	{requirements.LabelCapacityType, []string{"on-demand", "spot", "reserved"}},
	{requirements.LabelZone, []string{"us-west-2a", "us-west-2b", "us-west-2c"}},
	{requirements.LabelInstanceCategory, []string{"c", "m", "r"}},
	{requirements.LabelInstanceCPU, []string{"2", "4", "8", "16"}},
	{requirements.LabelInstanceTenancy, []string{"default", "dedicated"}},
	{"example.com/team", []string{"a", "b", "c"}},
	{"example.com/tier", []string{"1", "2", "3", "web"}},
}

var driftOperators = []requirements.Operator{requirements.OpIn, requirements.OpNotIn, requirements.OpExists,
	requirements.OpDoesNotExist, requirements.OpGt, requirements.OpLt}

// randomDriftCase draws a node's labels and a NodePool's requirements (one to four, sometimes
// two on one key).
func randomDriftCase(rng *rand.Rand) (map[string]string, []requirements.Requirement) {
	labels := map[string]string{}
	for _, k := range driftKeys {
		if rng.Intn(3) > 0 {
			labels[k.key] = k.values[rng.Intn(len(k.values))]
		}
	}
	var reqs []requirements.Requirement
	for range 1 + rng.Intn(4) {
		k := driftKeys[rng.Intn(len(driftKeys))]
		r := requirements.Requirement{Key: k.key, Operator: driftOperators[rng.Intn(len(driftOperators))]}
		switch r.Operator {
		case requirements.OpIn, requirements.OpNotIn:
			for _, v := range k.values {
				if rng.Intn(2) == 0 {
					r.Values = append(r.Values, v)
				}
			}
			if len(r.Values) == 0 {
				r.Values = []string{k.values[0]}
			}
		case requirements.OpGt, requirements.OpLt:
			r.Values = []string{strconv.Itoa(rng.Intn(10))}
		}
		reqs = append(reqs, r)
	}
	return labels, reqs
}

// CompareRequirementsDrift draws random node labels and NodePool requirements and compares
// whether the node meets them for Karpenter minor (compatible: the release's
// scheduling.NewLabelRequirements(labels).Compatible(NodePool requirements) == nil, what its
// RequirementsDrifted reads) and for the provider (requirements.LabelsCompatible, what drift and NodeOverlay matching read). It fails below the floor,
// or when fewer than a tenth of the cases fall on either side.
func CompareRequirementsDrift(t *testing.T, minor string, compatible func(map[string]string, []requirements.Requirement) bool, run Run) {
	t.Helper()
	rng := rand.New(rand.NewSource(run.Seed))
	cases, drifted, bad := 0, 0, 0
	for range run.Cases {
		labels, reqs := randomDriftCase(rng)
		cases++
		want := compatible(labels, reqs)
		if !want {
			drifted++
		}
		if got := requirements.LabelsCompatible(labels, reqs); got != want {
			if bad++; bad <= maxReported {
				t.Errorf("Karpenter %s: labels %v, requirements %+v: Karpenter keeps the node = %v, the provider = %v", minor, labels, reqs, want, got)
			}
		}
	}
	t.Logf("Karpenter %s: %d node × requirements cases compared, %d drifted by Karpenter, %d disagreements", minor, cases, drifted, bad)
	if bad > 0 {
		t.Fatalf("%d of %d cases disagree", bad, cases)
	}
	if cases < run.Floor {
		t.Fatalf("compared %d cases, under the floor of %d", cases, run.Floor)
	}
	if drifted < cases/10 || cases-drifted < cases/10 {
		t.Fatalf("%d of %d cases drift: the draw does not exercise both sides", drifted, cases)
	}
}
