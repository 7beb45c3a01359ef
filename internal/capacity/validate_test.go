package capacity

import (
	"slices"
	"strings"
	"testing"
)

func TestValidateSettings(t *testing.T) {
	primary := Interface{0, 0, InterfaceTypeInterface}
	tooMany := []Interface{primary}
	for d := 1; d <= maxNetworkInterfaces; d++ {
		tooMany = append(tooMany, Interface{1, d, InterfaceTypeInterface})
	}
	cases := []struct {
		name    string
		set     Settings
		fields  []string // expected FieldError.Field values, in order
		message string   // substring of the first message
	}{
		{name: "zero settings", set: Settings{}},
		{name: "every family", set: Settings{AMIFamily: FamilyWindows2025}},
		{name: "max_pods zero is allowed", set: Settings{MaxPods: ptr(0), PodsPerCore: ptr(0), BranchInterfaces: ptr(0)}},
		{name: "unknown family", set: Settings{AMIFamily: "Ubuntu"}, fields: []string{"ami_family"}, message: "AL2023"},
		{name: "family is case sensitive", set: Settings{AMIFamily: "al2023"}, fields: []string{"ami_family"}},
		{name: "negative numbers", set: Settings{ReservedENIs: -1, MaxPods: ptr(-1), PodsPerCore: ptr(-2), BranchInterfaces: ptr(-3)},
			fields: []string{"reserved_enis", "max_pods", "pods_per_core", "branch_interfaces"}, message: "-1"},
		{name: "valid interfaces", set: Settings{NetworkInterfaces: p5EFALayout()}},
		{name: "empty interface list", set: Settings{NetworkInterfaces: []Interface{}}},
		{name: "missing primary", set: Settings{NetworkInterfaces: []Interface{{0, 1, InterfaceTypeInterface}}},
			fields: []string{"network_interfaces"}, message: "primary"},
		{name: "primary must be an interface", set: Settings{NetworkInterfaces: []Interface{{0, 0, InterfaceTypeEFAOnly}}},
			fields: []string{"network_interfaces"}, message: "primary"},
		{name: "duplicate slot", set: Settings{NetworkInterfaces: []Interface{primary, {0, 0, InterfaceTypeInterface}}},
			fields: []string{"network_interfaces"}, message: "duplicate"},
		{name: "two efa-only on a card", set: Settings{NetworkInterfaces: []Interface{
			primary, {1, 0, InterfaceTypeEFAOnly}, {1, 1, InterfaceTypeEFAOnly}}},
			fields: []string{"network_interfaces"}, message: "already has an efa-only"},
		{name: "unknown interface type", set: Settings{NetworkInterfaces: []Interface{primary, {0, 1, "efa"}}},
			fields: []string{"network_interfaces"}, message: `"efa"`},
		{name: "negative index", set: Settings{NetworkInterfaces: []Interface{primary, {-1, 0, InterfaceTypeInterface}}},
			fields: []string{"network_interfaces"}, message: "negative"},
		{name: "too many interfaces", set: Settings{NetworkInterfaces: tooMany},
			fields: []string{"network_interfaces"}, message: "at most 150"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateSettings(tc.set)
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Path.Steps()[0].Name)
			}
			if !slices.Equal(fields, tc.fields) {
				t.Fatalf("fields = %q, want %q (%v)", fields, tc.fields, errs)
			}
			if tc.message != "" && !strings.Contains(errs[0].Message, tc.message) {
				t.Errorf("message %q lacks %q", errs[0].Message, tc.message)
			}
		})
	}
}

func TestFindingsAreErrors(t *testing.T) {
	errs := ValidateSettings(Settings{MaxPods: new(-1), NetworkInterfaces: []Interface{{0, 0, "efa"}}})
	var got []string
	for _, e := range errs {
		var err error = e
		got = append(got, err.Error())
	}
	if len(got) < 2 || got[0] != "max_pods: must not be negative, got -1" || !strings.HasPrefix(got[1], "network_interfaces[0]: ") {
		t.Errorf("Error() = %q", got)
	}
}
