package reservations

import (
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/featuregates"
)

// ParseGate reads one karpenter_feature_gates entry: `Name` or `Name=true` turns the gate on,
// `Name=false` turns it off. ok is false when the entry has another shape (an empty name, or a
// value other than true or false).
func ParseGate(entry string) (name string, on, ok bool) {
	name, val, hasVal := strings.Cut(strings.TrimSpace(entry), "=")
	name = strings.TrimSpace(name)
	if name == "" {
		return "", false, false
	}
	if !hasVal {
		return name, true, true
	}
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "true":
		return name, true, true
	case "false":
		return name, false, true
	}
	return name, false, false
}

// GateOn reports whether the feature-gate entries turn the gate name on: the last entry that
// names it decides (ParseGate), and def holds when none does. An entry of another shape counts
// as off, as the provider refuses it anyway.
func GateOn(gates []string, name string, def bool) bool {
	on := def
	for _, g := range gates {
		if n, v, ok := ParseGate(g); n == name {
			on = ok && v
		}
	}
	return on
}

// GateDefaultOf is the default of a Karpenter feature gate (featuregates: on for
// ReservedCapacity, off for the others; no gate changes its default between 1.9 and 1.15), off
// for a name no release declares.
func GateDefaultOf(name string) bool {
	minors := featuregates.Minors(name)
	return len(minors) > 0 && featuregates.Default(minors[len(minors)-1], name)
}
