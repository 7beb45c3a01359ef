package catalog

import "testing"

// The generated table carries the VPC resource controller's trunk support: t3 and Xen types
// cannot carry a trunk ENI, m5 and c5 can, with their branch ENI counts; a type the table does
// not know reports known = false. ToNetwork passes it on to the pod capacity engine.
func TestTrunking(t *testing.T) {
	for name, want := range map[string]struct {
		compatible bool
		branches   int
	}{"t3.micro": {false, 0}, "m4.large": {false, 0}, "m5.large": {true, 9}, "c5.18xlarge": {true, 107}} {
		c, b, ok := Trunking(name)
		if !ok || c != want.compatible || b != want.branches {
			t.Errorf("%s: compatible %v, branches %d, known %v; want %+v", name, c, b, ok, want)
		}
	}
	if _, _, ok := Trunking("zz9.huge"); ok {
		t.Error("an unknown type is known")
	}
	n := ToNetwork(&InstanceType{Name: "t3.micro", ENASupport: "unsupported"})
	if n.TrunkCompatible == nil || *n.TrunkCompatible || !n.ENAUnsupported {
		t.Errorf("ToNetwork(t3.micro) = %+v", n)
	}
	if n := ToNetwork(&InstanceType{Name: "zz9.huge"}); n.TrunkCompatible != nil {
		t.Errorf("unknown type: trunk %v, want nil", *n.TrunkCompatible)
	}
}
