package installation

import (
	"strings"
	"testing"
)

func TestCheckGatesOnAndOff(t *testing.T) {
	c := Controller{Namespace: "kube-system", Name: "karpenter", Image: "x:1.15.0", Version: "1.15.0",
		Gates: map[string]bool{"NodeOverlay": true, "StaticCapacity": false}}
	for _, tc := range []struct {
		name  string
		gates []string
		want  []string // paths and summaries of the errors
	}{
		{"reserved capacity on by default", []string{"ReservedCapacity", "ReservedCapacity=true"}, nil},
		{"reserved capacity off in the settings only", []string{"ReservedCapacity=false"},
			[]string{"karpenter_feature_gates[0]: Feature gate on in the cluster"}},
		{"explicit true", []string{"NodeOverlay=true"}, nil},
		{"explicit false of a gate the controller runs", []string{"NodeOverlay=false"},
			[]string{"karpenter_feature_gates[0]: Feature gate on in the cluster"}},
		{"explicit false of an alpha gate off by default", []string{"StaticCapacity=false", "NodeClassCEL=false"}, nil},
		{"on in the settings, off in the cluster", []string{"StaticCapacity=true"},
			[]string{"karpenter_feature_gates[0]: Feature gate off in the cluster"}},
		{"the last entry decides", []string{"StaticCapacity", "StaticCapacity=false"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs, _ := Check(c, Want{KarpenterVersion: "1.15", FeatureGates: tc.gates})
			var got []string
			for _, e := range errs {
				got = append(got, e.Path.String()+": "+e.Summary)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("errors %v, want %v", got, tc.want)
			}
		})
	}
	errs, _ := Check(Controller{Version: "1.15.0", Gates: map[string]bool{"ReservedCapacity": true}},
		Want{KarpenterVersion: "1.15", FeatureGates: []string{"ReservedCapacity=false"}})
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "sets ReservedCapacity=false") {
		t.Fatalf("errors %v", errs)
	}
}
