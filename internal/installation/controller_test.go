package installation

import (
	"strings"
	"testing"
)

func TestFromContainersReadsTheController(t *testing.T) {
	c := FromContainers("kube-system", "karpenter", []Container{
		{Name: "sidecar", Image: "busybox:1.36"},
		{Name: "controller", Image: "public.ecr.aws/karpenter/controller:1.9.3@sha256:abc",
			Env:  map[string]string{"CLUSTER_NAME": "prod", "FEATURE_GATES": "NodeRepair=true,StaticCapacity=false", "INTERRUPTION_QUEUE": "prod"},
			Args: []string{"--aws-feature-gates=NodeClassCEL=true"}},
	})
	if c.Version != "1.9.3" || c.ClusterName != "prod" || c.InterruptionQueue != "prod" || !c.Gates["NodeRepair"] || c.Gates["StaticCapacity"] ||
		!c.Gates["NodeClassCEL"] {
		t.Errorf("controller %+v", c)
	}
	if d := FromContainers("ns", "k", []Container{{Image: "registry.example.com/karpenter@sha256:abc"}}); d.Version != "" {
		t.Errorf("a digest-only image gave version %q", d.Version)
	}
	if v := FromContainers("ns", "k", []Container{{Image: "karpenter/controller:v1.15.2"}}).Version; v != "1.15.2" {
		t.Errorf("v-prefixed tag: %q", v)
	}
}

func TestCheckNamesTheSetting(t *testing.T) {
	c := Controller{Namespace: "kube-system", Name: "karpenter", Image: "x:1.9.3", Version: "1.9.3", ClusterName: "prod",
		Gates: map[string]bool{"NodeOverlay": true}}
	errs, warnings := Check(c, Want{KarpenterVersion: "1.15", FeatureGates: []string{"NodeOverlay", "StaticCapacity"}, ClusterName: "staging"})
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path.String())
	}
	if strings.Join(paths, ",") != "karpenter_version,karpenter_feature_gates[1],cluster_name" || len(warnings) != 0 {
		t.Fatalf("errors %v, warnings %v", errs, warnings)
	}
	if !strings.Contains(errs[0].Message, `Set karpenter_version = "1.9"`) {
		t.Errorf("skew message %q", errs[0].Message)
	}
	errs, warnings = Check(Controller{Version: "1.15.2", Gates: map[string]bool{}}, Want{KarpenterVersion: "1.14"})
	if len(errs) != 0 || len(warnings) != 1 {
		t.Errorf("a newer controller: errors %v, warnings %v; want one warning", errs, warnings)
	}
	if errs, warnings = Check(Controller{Version: "1.15.0", Gates: map[string]bool{}}, Want{KarpenterVersion: "1.15"}); len(errs)+len(warnings) != 0 {
		t.Errorf("the same minor: %v %v", errs, warnings)
	}
}
