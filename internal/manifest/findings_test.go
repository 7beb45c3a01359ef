package manifest

import (
	"strings"
	"testing"
)

// A refusal lands on the attribute that produced the field and says who refuses it; the
// controller's refusals are reported only for a manifest the API server admits.
func TestFindings(t *testing.T) {
	doc := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\nspec:\n  template:\n    spec:\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: c}\n      requirements: []\n" +
		"      taints: [{key: Test.com/test, effect: NoSchedule}]\n"
	admission, runtime, err := AdmitAll(DefaultVersion, doc)
	if err != nil || len(admission) == 0 {
		t.Fatalf("want the taint key refused: %v %v", admission, err)
	}
	got := Findings(DefaultVersion, NodePoolKind, admission, runtime)
	if len(got) != len(admission) || got[0].Path.String() != "template.taints[0].key" || got[0].Summary != "Kubernetes would reject the NodePool" ||
		!strings.Contains(got[0].Message, "karpenter_version") {
		t.Errorf("admission findings %+v", got)
	}
	late := Findings(DefaultVersion, NodePoolKind, nil, []Violation{{Field: admission[0].Field, Message: "refused"}})
	if len(late) != 1 || late[0].Summary != "Karpenter would refuse the NodePool" || !strings.Contains(late[0].Message, "at runtime") {
		t.Errorf("runtime findings %+v", late)
	}
	if both := Findings(DefaultVersion, NodePoolKind, admission, []Violation{{Field: admission[0].Field}}); len(both) != len(admission) {
		t.Errorf("the controller never sees what the API server refuses: %+v", both)
	}
}
