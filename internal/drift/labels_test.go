package drift

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func labelReq(key string, op requirements.Operator, values ...string) requirements.Requirement {
	return requirements.Requirement{Key: key, Operator: op, Values: values}
}

const team = "example.com/team"

// RequirementsDrifted on the labels the catalog does not decide: custom labels and tenancy.
func TestCompareLabelRequirements(t *testing.T) {
	tenancy := requirements.LabelInstanceTenancy
	for _, tc := range []struct {
		name           string
		prior, planned []requirements.Requirement
		template       map[string]string
		all, drifts    bool
		detail         string
	}{
		{"a custom label a → b drifts every node", []requirements.Requirement{labelReq(team, requirements.OpIn, "a")},
			[]requirements.Requirement{labelReq(team, requirements.OpIn, "b")}, nil, true, true, "nodes with label example.com/team=a"},
		{"a → a, b only widens", []requirements.Requirement{labelReq(team, requirements.OpIn, "a")},
			[]requirements.Requirement{labelReq(team, requirements.OpIn, "a", "b")}, nil, false, false, ""},
		{"a, b → a drifts the nodes labelled b", []requirements.Requirement{labelReq(team, requirements.OpIn, "a", "b")},
			[]requirements.Requirement{labelReq(team, requirements.OpIn, "a")}, nil, false, true, "label example.com/team=b"},
		{"a new custom requirement: the nodes lack the label", nil,
			[]requirements.Requirement{labelReq(team, requirements.OpIn, "a")}, nil, true, true, "example.com/team (absent)"},
		{"a new custom requirement the template label meets", nil,
			[]requirements.Requirement{labelReq(team, requirements.OpIn, "a")}, map[string]string{team: "a"}, false, false, ""},
		{"a new NotIn or DoesNotExist on a custom label: nodes without it meet it", nil,
			[]requirements.Requirement{labelReq(team, requirements.OpNotIn, "a"), labelReq("example.com/x", requirements.OpDoesNotExist)},
			nil, false, false, ""},
		{"Exists → In: Karpenter's number is not a name", []requirements.Requirement{labelReq(team, requirements.OpExists)},
			[]requirements.Requirement{labelReq(team, requirements.OpIn, "a")}, nil, true, true, "Karpenter's number"},
		{"tenancy default → dedicated", []requirements.Requirement{labelReq(tenancy, requirements.OpIn, "default")},
			[]requirements.Requirement{labelReq(tenancy, requirements.OpIn, "dedicated")}, nil, true, true,
			"karpenter.k8s.aws/instance-tenancy=default"},
		{"tenancy unset → dedicated drifts the default-tenancy nodes", nil,
			[]requirements.Requirement{labelReq(tenancy, requirements.OpIn, "dedicated")}, nil, false, true, "instance-tenancy=default"},
		{"a well-known key the catalog decides is not judged here", nil,
			[]requirements.Requirement{labelReq(requirements.LabelArch, requirements.OpIn, "arm64")}, nil, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prior, planned := base(), base()
			prior.Labels = Labels{Requirements: tc.prior, Template: tc.template}
			planned.Labels = Labels{Requirements: tc.planned, Template: tc.template}
			v := Compare(prior, planned)
			if v.Drifts() != tc.drifts || v.AllNodes != tc.all {
				t.Fatalf("drifts %v, all nodes %v; want %v, %v (%s)", v.Drifts(), v.AllNodes, tc.drifts, tc.all, v.Summary())
			}
			if tc.drifts && (!reflect.DeepEqual(v.Reasons(), []string{ReasonRequirements}) || !strings.Contains(v.Summary(), tc.detail)) {
				t.Errorf("reasons %v, summary %q; want RequirementsDrifted with %q", v.Reasons(), v.Summary(), tc.detail)
			}
		})
	}
}

// With the cluster read, each node's labels are judged: the nodes labelled team=b drift when
// the requirement narrows to a, and a node without the label drifts when the label is required.
func TestCountNodesLabels(t *testing.T) {
	ns := nodes()
	ns[0].Labels = map[string]string{team: "a"}
	ns[1].Labels = map[string]string{team: "b"}
	ns[2].Labels = map[string]string{}
	prior, planned := base(), base()
	prior.Labels = Labels{Requirements: []requirements.Requirement{labelReq(team, requirements.OpIn, "a", "b")}}
	planned.Labels = Labels{Requirements: []requirements.Requirement{labelReq(team, requirements.OpIn, "a")}}
	c := CountNodes(ns, &prior, planned, Compare(prior, planned))
	if want := "drifts 2 of 3 nodes: RequirementsDrifted 2 (n2, n3)"; c.Summary() != want {
		t.Errorf("summary %q, want %q", c.Summary(), want)
	}
	planned.Labels.Requirements = []requirements.Requirement{labelReq(team, requirements.OpNotIn, "b")}
	c = CountNodes(ns, &prior, planned, Compare(prior, planned))
	if want := "drifts 1 of 3 nodes: RequirementsDrifted 1 (n2)"; c.Summary() != want {
		t.Errorf("NotIn b: summary %q, want %q", c.Summary(), want)
	}
}
