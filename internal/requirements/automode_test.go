package requirements

import (
	"strings"
	"testing"
)

func TestAutoModeKeyProblems(t *testing.T) {
	reqs := []Requirement{
		{Key: "karpenter.k8s.aws/instance-category", Operator: OpIn, Values: []string{"m"}},
		{Key: "karpenter.k8s.aws/instance-accelerator-name", Operator: OpExists},
		{Key: "eks.amazonaws.com/instance-family", Operator: OpIn, Values: []string{"m5"}},
		{Key: LabelOS, Operator: OpIn, Values: []string{"linux"}},
		{Key: LabelCapacityType, Operator: OpIn, Values: []string{"spot"}},
	}
	onAuto := AutoModeKeyProblems(reqs, true)
	if len(onAuto) != 3 || onAuto[0].Index != 0 || onAuto[1].Index != 1 || onAuto[2].Index != 3 {
		t.Fatalf("on Auto Mode: %+v", onAuto)
	}
	if !strings.Contains(onAuto[0].Message, "eks.amazonaws.com/instance-category instead of karpenter.k8s.aws/instance-category") ||
		!strings.Contains(onAuto[1].Message, "no Auto Mode label of the same meaning") || !strings.Contains(onAuto[2].Message, "Linux") {
		t.Errorf("messages: %+v", onAuto)
	}
	onEC2 := AutoModeKeyProblems(reqs, false)
	if len(onEC2) != 1 || onEC2[0].Index != 2 || !strings.Contains(onEC2[0].Message, "karpenter.k8s.aws/instance-family") {
		t.Errorf("on an EC2NodeClass: %+v", onEC2)
	}
}

func TestForAutoMode(t *testing.T) {
	reqs := []Requirement{
		{Key: "eks.amazonaws.com/instance-cpu", Operator: OpLte, Values: []string{"32"}},
		{Key: LabelAutoModeComputeType, Operator: OpIn, Values: []string{"auto"}},
		{Key: LabelAutoModeComputeType, Operator: OpIn, Values: []string{"hybrid"}},
		{Key: LabelZone, Operator: OpIn, Values: []string{"us-west-2a"}},
	}
	got := ForAutoMode(reqs)
	if got[0].Key != LabelInstanceCPU || got[0].Values[0] != "32" || got[3].Key != LabelZone {
		t.Errorf("translated %+v", got)
	}
	if got[1].Key != LabelArch || got[1].Operator != OpExists {
		t.Errorf("a compute-type every Auto Mode node meets became %+v, want a requirement every type meets", got[1])
	}
	if got[2].Key != LabelAutoModeComputeType {
		t.Errorf("a compute-type no Auto Mode node meets became %+v", got[2])
	}
	if reqs[0].Key != "eks.amazonaws.com/instance-cpu" {
		t.Error("ForAutoMode changed its input")
	}
}
