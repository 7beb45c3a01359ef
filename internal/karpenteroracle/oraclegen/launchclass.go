package oraclegen

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// The EC2NodeClass settings Karpenter's instance-type compatibility checks read besides the AMI
// family, as a launch case's class draws them and Run.Settings names them.
const (
	SettingNetworkInterfaces  = "networkInterfaces"
	SettingCPUOptions         = "cpuOptions"
	SettingEnclaveOptions     = "enclaveOptions"
	SettingPlacementGroup     = "placementGroup"
	SettingConnectionTracking = "connectionTracking"
	settingMixed              = "mixed"
)

// LaunchClass is what a launch case's node class sets of those settings; the zero value sets
// none. Kind names the setting the class was drawn for ("" none, settingMixed several).
type LaunchClass struct {
	Kind string
	// Interfaces is spec.networkInterfaces; nil when not set.
	Interfaces []capacity.Interface
	// NestedVirtualization is spec.cpuOptions.nestedVirtualization ("enabled", "disabled"; "" no
	// cpuOptions).
	NestedVirtualization string
	// Enclaves is spec.enclaveOptions.enabled; nil when not set.
	Enclaves *bool
	// ConnectionTracking is a spec.connectionTracking with its UDP timeout set.
	ConnectionTracking bool
	// PlacementStrategy is the strategy of the placement group the class's selector resolves to
	// ("cluster", "partition", "spread"; "" no group).
	PlacementStrategy string
}

// randomLaunchClass draws the case's class: none of the settings in four cases of ten, else one
// of them, or several (interfaces only where the release has them). A class with reservations
// (reserved) draws them half as often, so that as many cases as before launch reserved capacity.
func randomLaunchClass(rng *rand.Rand, interfaces, reserved bool) LaunchClass {
	var c LaunchClass
	if reserved && rng.Intn(2) == 0 {
		return c
	}
	switch k := rng.Intn(10); {
	case k < 4, k == 4 && !interfaces:
	case k == 4:
		c.Kind, c.Interfaces = SettingNetworkInterfaces, randomInterfaces(rng)
	case k == 5:
		c.Kind, c.NestedVirtualization = SettingCPUOptions, []string{"enabled", "enabled", "enabled", "disabled"}[rng.Intn(4)]
	case k == 6:
		c.Kind, c.Enclaves = SettingEnclaveOptions, new(rng.Intn(4) > 0)
	case k == 7:
		c.Kind, c.PlacementStrategy = SettingPlacementGroup, randomStrategy(rng)
	case k == 8:
		c.Kind, c.ConnectionTracking = SettingConnectionTracking, true
	default:
		c.Kind = settingMixed
		if interfaces && rng.Intn(3) == 0 {
			c.Interfaces = randomInterfaces(rng)
		}
		if rng.Intn(2) == 0 {
			c.NestedVirtualization = "enabled"
		}
		if rng.Intn(2) == 0 {
			c.Enclaves = new(true)
		}
		if rng.Intn(2) == 0 {
			c.PlacementStrategy = randomStrategy(rng)
		}
		c.ConnectionTracking = rng.Intn(2) == 0
	}
	return c
}

// randomStrategy draws a placement group's strategy, cluster half the time: only cluster refuses
// types (EC2 reports partition and spread for every type).
func randomStrategy(rng *rand.Rand) string {
	return []string{catalog.PlacementStrategyCluster, catalog.PlacementStrategyCluster, catalog.PlacementStrategyPartition,
		catalog.PlacementStrategySpread}[rng.Intn(4)]
}

// launchLayouts are the interface layouts a class draws: the primary interface alone (ENA
// decides), with an efa-only interface on its card or on the second card, or with a second
// interface at device 2.
var launchLayouts = [][]capacity.Interface{
	{{InterfaceType: capacity.InterfaceTypeInterface}},
	{{InterfaceType: capacity.InterfaceTypeInterface}, {DeviceIndex: 1, InterfaceType: capacity.InterfaceTypeEFAOnly}},
	{{InterfaceType: capacity.InterfaceTypeInterface}, {NetworkCardIndex: 1, InterfaceType: capacity.InterfaceTypeEFAOnly}},
	{{InterfaceType: capacity.InterfaceTypeInterface}, {DeviceIndex: 2, InterfaceType: capacity.InterfaceTypeInterface}},
}

func randomInterfaces(rng *rand.Rand) []capacity.Interface {
	return slices.Clone(launchLayouts[rng.Intn(len(launchLayouts))])
}

// apply sets the class's settings on the provider's class.
func (c LaunchClass) apply(pc *launchplan.Class) {
	if c.Interfaces != nil {
		pc.NetworkInterfaces, pc.CNI.NetworkInterfaces = c.Interfaces, c.Interfaces
	}
	pc.NestedVirtualization = c.NestedVirtualization == "enabled"
	pc.NitroEnclaves = c.Enclaves != nil && *c.Enclaves
	pc.ConnectionTracking = c.ConnectionTracking
	pc.PlacementGroupStrategy = c.PlacementStrategy
}

func (c LaunchClass) String() string {
	var parts []string
	if c.Interfaces != nil {
		parts = append(parts, fmt.Sprintf("networkInterfaces %v", c.Interfaces))
	}
	if c.NestedVirtualization != "" {
		parts = append(parts, "nestedVirtualization "+c.NestedVirtualization)
	}
	if c.Enclaves != nil {
		parts = append(parts, fmt.Sprintf("enclaves %v", *c.Enclaves))
	}
	if c.PlacementStrategy != "" {
		parts = append(parts, c.PlacementStrategy+" placement group")
	}
	if c.ConnectionTracking {
		parts = append(parts, "connectionTracking")
	}
	return strings.Join(parts, ", ")
}

// settingTally counts, per kind of class, the compared cases (compared) and among them those
// where Karpenter's compatibility check refused a type the requirements allow and the pool still
// launched (decided): the cases where the setting decided part of a launch both sides made.
type settingTally struct{ compared, decided map[string]int }

func newSettingTally() settingTally {
	return settingTally{compared: map[string]int{}, decided: map[string]int{}}
}

// count records case c with Karpenter's outcome want.
func (t settingTally) count(minor string, c LaunchCase, allowed []string, want LaunchOutcome) {
	if c.Class.Kind == "" || want.Crashed != "" {
		return
	}
	t.compared[c.Class.Kind]++
	if want.Failed {
		return
	}
	for _, name := range want.Refused {
		// A type the AMI family's rule refuses (a1 under AL2023 from 1.11) is refused whatever
		// the class's settings: the region catalog's real types have some.
		if slices.Contains(allowed, name) && launchplan.OfferedForFamily(minor, capacity.FamilyAL2023, name) {
			t.decided[c.Class.Kind]++
			return
		}
	}
}

// check says why the run fails ("" when it does not): a setting the release reads (settings)
// decided fewer than floor launches, Karpenter refused a type for a setting the release does not
// read, or fewer than floor cases of a setting drawn for every release were compared.
func (t settingTally) check(minor string, settings []string, floor int) string {
	for _, s := range []string{SettingNetworkInterfaces, SettingCPUOptions, SettingEnclaveOptions, SettingPlacementGroup, SettingConnectionTracking} {
		reads := slices.Contains(settings, s)
		switch {
		case reads && t.decided[s] < floor:
			return fmt.Sprintf("Karpenter %s: the %s setting decided %d launches, under the floor of %d", minor, s, t.decided[s], floor)
		case !reads && t.decided[s] > 0:
			return fmt.Sprintf("Karpenter %s: its harness says it does not read %s, yet its check refused types for it in %d launches",
				minor, s, t.decided[s])
		case (reads || s != SettingNetworkInterfaces) && t.compared[s] < floor:
			return fmt.Sprintf("Karpenter %s: %d cases of a class with %s compared, under the floor of %d", minor, t.compared[s], s, floor)
		}
	}
	return ""
}

// allowedNames are the names of allowedTypes.
func allowedNames(types []*catalog.InstanceType, c LaunchCase) []string {
	var out []string
	for _, it := range allowedTypes(types, c.Requirements) {
		out = append(out, it.Name)
	}
	return out
}
