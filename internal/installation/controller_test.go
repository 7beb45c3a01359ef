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
	// An older controller whose CRDs the provider has is a warning: the manifests are admitted
	// against its release too (OlderMinor), so what it lacks fails on its attribute.
	if strings.Join(paths, ",") != "karpenter_feature_gates[1],cluster_name" || len(warnings) != 1 || warnings[0].Path.String() != "karpenter_version" {
		t.Fatalf("errors %v, warnings %v", errs, warnings)
	}
	if !strings.Contains(warnings[0].Message, `Set karpenter_version = "1.9"`) || !strings.Contains(warnings[0].Message, "checked against Karpenter 1.9's CRDs") {
		t.Errorf("skew message %q", warnings[0].Message)
	}
	if c.OlderMinor("1.15") != "1.9" || c.OlderMinor("1.9") != "" {
		t.Errorf("OlderMinor = %q, %q", c.OlderMinor("1.15"), c.OlderMinor("1.9"))
	}
	// Older than every release the provider knows: nothing to check the manifests against.
	ancient := Controller{Version: "1.8.0", Gates: map[string]bool{}}
	if errs, _ := Check(ancient, Want{KarpenterVersion: "1.15"}); len(errs) != 1 || ancient.OlderMinor("1.15") != "" {
		t.Errorf("a 1.8 controller: %v", errs)
	}
	errs, warnings = Check(Controller{Version: "1.15.2", Gates: map[string]bool{}}, Want{KarpenterVersion: "1.14"})
	if len(errs) != 0 || len(warnings) != 1 {
		t.Errorf("a newer controller: errors %v, warnings %v; want one warning", errs, warnings)
	}
	if errs, warnings = Check(Controller{Version: "1.15.0", Gates: map[string]bool{}}, Want{KarpenterVersion: "1.15"}); len(errs)+len(warnings) != 0 {
		t.Errorf("the same minor: %v %v", errs, warnings)
	}
}
