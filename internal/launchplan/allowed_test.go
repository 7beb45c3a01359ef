package launchplan

import (
	"reflect"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func TestAllowedBy(t *testing.T) {
	cat := fixtureCatalog()
	classZones := []string{zoneA, zoneB}
	a := AllowedBy(cat, "us-west-2", "", []requirements.Requirement{onlyTypes("m5.large", "m4.large", "z9.nope")}, classZones)
	if want := []string{"m4.large", "m5.large"}; !reflect.DeepEqual(a.InstanceTypes, want) {
		t.Errorf("types %v, want %v", a.InstanceTypes, want)
	}
	// No capacity-type requirement: every capacity type is allowed, as for Karpenter.
	if !reflect.DeepEqual(a.Zones, classZones) || !reflect.DeepEqual(a.CapacityTypes, []string{"on-demand", "reserved", "spot"}) {
		t.Errorf("zones %v, capacity types %v", a.Zones, a.CapacityTypes)
	}
	spotInA := []requirements.Requirement{
		req(requirements.LabelCapacityType, requirements.OpIn, "spot", "on-demand"),
		req(requirements.LabelZone, requirements.OpNotIn, zoneB),
		req(requirements.LabelArch, requirements.OpIn, "arm64"),
	}
	a = AllowedBy(cat, "us-west-2", "", spotInA, classZones)
	if !reflect.DeepEqual(a.InstanceTypes, []string{"c7g.large"}) || !reflect.DeepEqual(a.Zones, []string{zoneA}) ||
		!reflect.DeepEqual(a.CapacityTypes, []string{"on-demand", "spot"}) {
		t.Errorf("allowed %+v", a)
	}
}
