package capacity

import (
	"reflect"
	"slices"
	"testing"
)

// Each input reaches the setting its attribute names: a bad value of it is reported on that
// attribute, and only there.
func TestInputSettingsOnTheirAttributes(t *testing.T) {
	bad := ptr(-1)
	cases := []struct {
		attr string
		in   Input
	}{
		{"ami_family", Input{AMIFamily: "AL3"}},
		{"reserved_enis", Input{ReservedENIs: -1}},
		{"network_interfaces", Input{NetworkInterfaces: []Interface{{0, 1, InterfaceTypeInterface}}}},
		{"kubelet_max_pods", Input{KubeletMaxPods: bad}},
		{"kubelet_pods_per_core", Input{KubeletPodsPerCore: bad}},
		{"branch_interfaces", Input{BranchInterfaces: bad}},
		{"warm_eni_target", Input{WarmTargets: WarmTargets{ENI: bad}}},
		{"warm_ip_target", Input{WarmTargets: WarmTargets{IP: bad}}},
		{"minimum_ip_target", Input{WarmTargets: WarmTargets{MinimumIP: bad}}},
		{"warm_prefix_target", Input{WarmTargets: WarmTargets{Prefix: bad}}},
	}
	for _, c := range cases {
		var got []string
		for _, f := range InputFindings(c.in.Settings()) {
			got = append(got, f.Path.Steps()[0].Name)
		}
		if !slices.Equal(got, []string{c.attr}) {
			t.Errorf("%s: findings on %v", c.attr, got)
		}
		if tag := inputTag(t, c.attr); tag == "" {
			t.Errorf("%s: no Input field carries the tag", c.attr)
		}
	}

	in := Input{AMIFamily: FamilyBottlerocket, PrefixDelegation: true, CustomNetworking: true, SecurityGroupsForPods: true,
		ReservedENIs: 1, KubeletMaxPods: ptr(58), KubeletPodsPerCore: ptr(10), BranchInterfaces: ptr(9),
		WarmTargets: WarmTargets{ENI: ptr(0), IP: ptr(5), MinimumIP: ptr(3), Prefix: ptr(2)}}
	want := Settings{AMIFamily: FamilyBottlerocket, PrefixDelegation: true, CustomNetworking: true, SecurityGroupsForPods: true,
		ReservedENIs: 1, MaxPods: ptr(58), PodsPerCore: ptr(10), BranchInterfaces: ptr(9),
		Warm: WarmTargets{ENI: ptr(0), IP: ptr(5), MinimumIP: ptr(3), Prefix: ptr(2)}}
	if got := in.Settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("Settings()\n got %+v\nwant %+v", got, want)
	}
	// Unset inputs are Settings' zero values (the defaults).
	if got := (Input{}).Settings(); !reflect.DeepEqual(got, Settings{}) {
		t.Errorf("zero input: %+v", got)
	}
}

// Null network_interfaces (nil) leaves the type's EFA maximum; an empty list is an explicit
// "no interfaces" and stays one.
func TestInputNetworkInterfacesNilOrEmpty(t *testing.T) {
	if got := (Input{}).Settings().NetworkInterfaces; got != nil {
		t.Errorf("null network_interfaces became %#v", got)
	}
	if got := (Input{NetworkInterfaces: []Interface{}}).Settings().NetworkInterfaces; got == nil || len(got) != 0 {
		t.Errorf("empty network_interfaces became %#v", got)
	}
	layout := p5EFALayout()
	if got := (Input{NetworkInterfaces: layout}).Settings().NetworkInterfaces; !slices.Equal(got, layout) {
		t.Errorf("interfaces %v, want %v", got, layout)
	}
	// A list not known yet is unset, so its decoded placeholders are not validated.
	partial := []Interface{{0, 0, InterfaceTypeInterface}, {}}
	if got := (Input{NetworkInterfaces: partial, NetworkInterfacesUnknown: true}).Settings(); got.NetworkInterfaces != nil ||
		len(InputFindings(got)) != 0 {
		t.Errorf("unknown interfaces became %#v", got.NetworkInterfaces)
	}
	if len(InputFindings(Input{NetworkInterfaces: partial}.Settings())) == 0 {
		t.Error("the same known list passes validation")
	}
}

// inputTag is the tfsdk tag name of Input's field (embedded structs' included) tagged attr.
func inputTag(t *testing.T, attr string) string {
	t.Helper()
	var find func(reflect.Type) string
	find = func(typ reflect.Type) string {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if f.Anonymous {
				if s := find(f.Type); s != "" {
					return s
				}
			}
			if f.Tag.Get("tfsdk") == attr {
				return attr
			}
		}
		return ""
	}
	return find(reflect.TypeOf(Input{}))
}
