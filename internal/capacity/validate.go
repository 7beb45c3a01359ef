package capacity

import (
	"fmt"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// maxNetworkInterfaces is the CRD's MaxItems for spec.networkInterfaces.
const maxNetworkInterfaces = 150

// ValidateSettings checks s on its own, independent of any instance type. It mirrors the
// EC2NodeClass CRD rules and Karpenter's option checks. Findings name the Settings field in
// snake_case as the node class schema does ("reserved_enis", "network_interfaces[1]"); a schema
// that names a setting otherwise (the pod-capacity data source's kubelet_max_pods) renames it.
// With s.AutoMode, every setting an EKS Auto Mode NodeClass has no place for is a finding on
// that setting.
func ValidateSettings(s Settings) []attrpath.Finding {
	var errs []attrpath.Finding
	add := func(field, format string, args ...any) {
		errs = append(errs, attrpath.Finding{Path: attrpath.Of(field), Message: fmt.Sprintf(format, args...)})
	}
	if s.AMIFamily != "" && !IsFamily(s.AMIFamily) {
		add("ami_family", "unknown AMI family %q; expected one of %s", s.AMIFamily, strings.Join(families, ", "))
	}
	if s.ReservedENIs < 0 {
		add("reserved_enis", "must not be negative, got %d", s.ReservedENIs)
	}
	if s.MaxPods != nil && *s.MaxPods < 0 {
		add("max_pods", "must not be negative, got %d", *s.MaxPods)
	}
	if s.PodsPerCore != nil && *s.PodsPerCore < 0 {
		add("pods_per_core", "must not be negative, got %d", *s.PodsPerCore)
	}
	if s.BranchInterfaces != nil && *s.BranchInterfaces < 0 {
		add("branch_interfaces", "must not be negative, got %d", *s.BranchInterfaces)
	}
	for _, w := range []struct {
		field string
		v     *int
	}{
		{"warm_eni_target", s.Warm.ENI}, {"warm_ip_target", s.Warm.IP},
		{"minimum_ip_target", s.Warm.MinimumIP}, {"warm_prefix_target", s.Warm.Prefix},
	} {
		if w.v != nil && *w.v < 0 {
			add(w.field, "must not be negative, got %d", *w.v)
		}
	}
	for _, p := range interfaceProblems(s.NetworkInterfaces) {
		e := attrpath.Finding{Path: attrpath.Of("network_interfaces"), Message: p.msg}
		if p.entry >= 0 {
			e.Path = e.Path.Index(p.entry)
		}
		errs = append(errs, e)
	}
	return append(errs, autoModeConflicts(s)...)
}

// interfaceProblem is one broken rule, about one entry (-1: the list).
type interfaceProblem struct {
	entry int
	msg   string
}

// interfaceProblems applies the CRD's spec.networkInterfaces rules.
func interfaceProblems(ifaces []Interface) []interfaceProblem {
	var problems []interfaceProblem
	add := func(entry int, format string, args ...any) {
		problems = append(problems, interfaceProblem{entry, fmt.Sprintf(format, args...)})
	}
	if len(ifaces) > maxNetworkInterfaces {
		add(-1, "at most %d entries, got %d", maxNetworkInterfaces, len(ifaces))
	}
	type slot struct{ card, device int }
	seen := make(map[slot]bool, len(ifaces))
	efaCards := make(map[int]bool)
	primary := false
	for i, f := range ifaces {
		if f.NetworkCardIndex < 0 || f.DeviceIndex < 0 {
			add(i, "network card and device indexes must not be negative")
		}
		switch f.InterfaceType {
		case InterfaceTypeInterface:
			if f.NetworkCardIndex == 0 && f.DeviceIndex == 0 {
				primary = true
			}
		case InterfaceTypeEFAOnly:
			if efaCards[f.NetworkCardIndex] {
				add(i, "network card %d already has an efa-only interface", f.NetworkCardIndex)
			}
			efaCards[f.NetworkCardIndex] = true
		default:
			add(i, "interface type %q must be %q or %q", f.InterfaceType, InterfaceTypeInterface, InterfaceTypeEFAOnly)
		}
		k := slot{f.NetworkCardIndex, f.DeviceIndex}
		if seen[k] {
			add(i, "duplicate network card %d / device %d", k.card, k.device)
		}
		seen[k] = true
	}
	if len(ifaces) > 0 && !primary {
		add(-1, "must include the primary interface (network card 0, device 0, type \"interface\")")
	}
	return problems
}

// validateNetwork rejects instance data the formulas cannot use.
func validateNetwork(n Network) error {
	var problems []string
	if n.VCPUs < 1 {
		problems = append(problems, fmt.Sprintf("vCPUs must be at least 1, got %d", n.VCPUs))
	}
	if n.IPv4PerENI < 1 {
		problems = append(problems, fmt.Sprintf("IPv4 addresses per ENI must be at least 1, got %d", n.IPv4PerENI))
	}
	if n.MaxENIs < 0 || n.DefaultCardIndex < 0 || n.IPv6PerENI < 0 || n.MaxEFAInterfaces < 0 {
		problems = append(problems, "ENI, card index, IPv6 and EFA counts must not be negative")
	}
	for i, c := range n.CardENIs {
		if c < 0 {
			problems = append(problems, fmt.Sprintf("network card %d has a negative ENI count", i))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: %s", ErrInvalidNetwork, n.InstanceType, strings.Join(problems, "; "))
}

// checkInterfaces mirrors Karpenter's networkInterfaceCheck: configured
// interfaces must fit the instance type's cards and EFA limits, or Karpenter
// filters the type out.
func checkInterfaces(n Network, ifaces []Interface) error {
	var problems []string
	if len(ifaces) > 0 && n.ENAUnsupported {
		problems = append(problems, "the type does not support ENA, which Karpenter requires for spec.networkInterfaces")
	}
	for _, f := range ifaces {
		cardENIs, known := n.MaxENIs, f.NetworkCardIndex == n.DefaultCardIndex
		if len(n.CardENIs) > 0 {
			if f.NetworkCardIndex >= len(n.CardENIs) {
				problems = append(problems, fmt.Sprintf("network card %d does not exist (%d cards)", f.NetworkCardIndex, len(n.CardENIs)))
				continue
			}
			cardENIs, known = n.CardENIs[f.NetworkCardIndex], true
		}
		if known && f.DeviceIndex >= cardENIs {
			problems = append(problems, fmt.Sprintf("device %d exceeds the %d ENIs of network card %d", f.DeviceIndex, cardENIs, f.NetworkCardIndex))
		}
	}
	if efa := countEFAOnly(ifaces, -1); efa > 0 {
		switch {
		case !n.EFASupported:
			problems = append(problems, fmt.Sprintf("%d efa-only interfaces but EFA is not supported", efa))
		case efa > n.MaxEFAInterfaces:
			problems = append(problems, fmt.Sprintf("%d efa-only interfaces exceed the maximum of %d", efa, n.MaxEFAInterfaces))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: %s", ErrIncompatible, n.InstanceType, strings.Join(problems, "; "))
}
