package main

import (
	"reflect"
	"testing"
)

// Both declarations Karpenter has used: the flag's default string (≤ 1.14) and FeatureGate
// values (1.15); the AWS provider's default string; go.mod's require lines.
func TestParse(t *testing.T) {
	old := []byte(`package options
func (o *Options) AddFlags(fs *FlagSet) {
	fs.StringVar(&o.FeatureGates.inputStr, "feature-gates", env.WithDefaultString("FEATURE_GATES", "NodeRepair=false,ReservedCapacity=true"), "help")
	fs.StringVar(&o.X, "other", env.WithDefaultString("OTHER", "A=true"), "help")
}`)
	got, err := coreGates(old)
	if want := []gate{{Name: "NodeRepair"}, {Name: "ReservedCapacity", Default: true}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("default string: %+v %v", got, err)
	}
	declared := []byte(`package options
var (
	NodeRepairFeatureGate = FeatureGate{Name: "NodeRepair", Default: false, Stage: docs.Alpha}
	ReservedCapacityFeatureGate = FeatureGate{
		Name:    "ReservedCapacity",
		Default: true,
	}
)
func (o *Options) AddFlags(fs *FlagSet) {
	fs.StringVar(&o.FeatureGates.inputStr, "feature-gates", env.WithDefaultString("FEATURE_GATES", featureGatesDefault()), "help")
}`)
	got, err = coreGates(declared)
	if want := []gate{{Name: "NodeRepair"}, {Name: "ReservedCapacity", Default: true}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("declared gates: %+v %v", got, err)
	}
	aws := []byte(`package options
func f() { fs.StringVar(&s, "aws-feature-gates", env.WithDefaultString("AWS_FEATURE_GATES", "NodeClassCEL=false,RebootForRepair=false"), "") }`)
	got, err = defaultString(aws, "AWS_FEATURE_GATES")
	if want := []gate{{Name: "NodeClassCEL"}, {Name: "RebootForRepair"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("aws gates: %+v %v", got, err)
	}
	if got, err := defaultString(old, "AWS_FEATURE_GATES"); err != nil || got != nil {
		t.Errorf("no AWS gates: %+v %v", got, err)
	}
	if _, err := coreGates([]byte("package options\n")); err == nil {
		t.Error("a file declaring no gates must fail")
	}
	if _, err := parseGates("A=yes"); err == nil {
		t.Error("A=yes must fail")
	}
	goMod := []byte("module x\n\nrequire (\n\tgithub.com/a/b v1.2.3\n\tsigs.k8s.io/karpenter v1.15.1\n)\n")
	if v := requiredVersion(goMod, "sigs.k8s.io/karpenter"); v != "v1.15.1" {
		t.Errorf("required version %q", v)
	}
}
