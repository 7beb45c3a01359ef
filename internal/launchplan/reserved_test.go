package launchplan

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Karpenter v1.15's reserved-resource expressions are resolved per type, as its instance-type
// resolver does, into the templates' user data (one group per resolved value) and the workload
// fit's allocatable; an expression that fails on a type is a warning naming it.
func TestReservedExpressionsPerType(t *testing.T) {
	in := baseInput()
	in.Class.AMIFamily = capacity.FamilyAL2023
	in.Class.Kubelet = Kubelet{KubeReserved: map[string]string{"cpu": "vcpus * 30", "memory": "max_pods * 11 + 255"},
		SystemReserved: map[string]string{"cpu": "100m"}}
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m5.xlarge")}
	plan := mustBuild(t, in)
	if len(plan.LaunchTemplates) != 2 {
		t.Fatalf("%d launch templates, want one per resolved reservation", len(plan.LaunchTemplates))
	}
	want := map[string]string{ // m5.large: 2 vCPUs, 29 pods; m5.xlarge: 4 vCPUs, 58 pods (memory rounded up to 16Mi)
		"m5.large":  "\"cpu\": \"60m\"\n        \"memory\": \"576Mi\"",
		"m5.xlarge": "\"cpu\": \"120m\"\n        \"memory\": \"896Mi\"",
	}
	for _, lt := range plan.LaunchTemplates {
		w := want[lt.InstanceTypes[0]]
		if len(lt.InstanceTypes) != 1 || !strings.Contains(lt.UserData, "kubeReserved:\n        "+w) {
			t.Errorf("%v: user data does not reserve %q:\n%s", lt.InstanceTypes, w, lt.UserData)
		}
		if !strings.Contains(lt.UserData, "systemReserved:\n        \"cpu\": \"100m\"") || strings.Contains(lt.UserData, "vcpus") {
			t.Errorf("%v: quantities not kept or an expression left in:\n%s", lt.InstanceTypes, lt.UserData)
		}
	}

	in.Class.Kubelet.KubeReserved = map[string]string{"cpu": "instance_type == 'm5.large' ? 10 / 0 : 50"}
	plan = mustBuild(t, in)
	found := false
	for _, w := range plan.Warnings {
		found = found || (w.Summary == SummaryReservedExpression && strings.Contains(w.Message, "kube_reserved[cpu]") &&
			strings.Contains(w.Message, "m5.large") && !strings.Contains(w.Message, "m5.xlarge"))
	}
	if !found {
		t.Errorf("no warning naming m5.large: %+v", plan.Warnings)
	}
}
