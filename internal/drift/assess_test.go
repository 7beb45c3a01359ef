package drift

import (
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/budgets"
)

func TestAssess(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) // a Tuesday
	planned := base()
	planned.NodePoolHash = "999"
	a, err := Assess(ptr(base()), planned, nil, 40, now)
	if err != nil {
		t.Fatal(err)
	}
	// The default budget: 10% of 40 nodes.
	if !a.Verdict.AllNodes || a.Pace.Now != 4 || a.Pace.Never || !strings.Contains(a.PaceText(), "counted at 40 nodes") {
		t.Errorf("assessment %+v, pace %q", a, a.PaceText())
	}
	frozen := []budgets.Budget{{Nodes: "0", Reasons: []string{budgets.ReasonDrifted}}}
	if a, err := Assess(ptr(base()), planned, frozen, 40, now); err != nil || !a.Pace.Never || a.Pace.Now != 0 {
		t.Errorf("frozen budgets: %+v, %v", a.Pace, err)
	}
	if a, err := Assess(nil, planned, nil, 40, now); err != nil || a.Verdict.Drifts() {
		t.Errorf("a new pool drifts: %+v %v", a.Verdict, err)
	}
	if _, err := Assess(nil, planned, []budgets.Budget{{Nodes: "ten"}}, 40, now); err == nil {
		t.Error("a bad budget was accepted")
	}
}

func ptr(s Side) *Side { return &s }
