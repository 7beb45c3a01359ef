// Package featuregates knows every feature gate of every Karpenter release the provider plans
// for (1.9–1.15), as the releases declare them (zz_generated_gates.go, cmd/gen-feature-gates):
// the core gates of --feature-gates and the AWS provider's of --aws-feature-gates, each with its
// default. It checks karpenter_feature_gates against the release karpenter_version names.
package featuregates

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Gate is one feature gate of a release.
type Gate struct {
	Name    string
	Default bool
	// AWS is true for a gate of the AWS provider (--aws-feature-gates, AWS_FEATURE_GATES).
	AWS bool
}

// release is one Karpenter minor's gates, and the releases they were read from.
type release struct {
	Minor, Provider, Core string
	Gates                 []Gate
}

// Of is the gates of a Karpenter minor ("1.15"), nil for a minor the table lacks.
func Of(minor string) []Gate {
	for _, r := range releases {
		if r.Minor == minor {
			return r.Gates
		}
	}
	return nil
}

// Lookup finds a gate of a minor by name.
func Lookup(minor, name string) (Gate, bool) {
	for _, g := range Of(minor) {
		if g.Name == name {
			return g, true
		}
	}
	return Gate{}, false
}

// Default is a gate's default in a minor: false for a gate the minor lacks.
func Default(minor, name string) bool {
	g, _ := Lookup(minor, name)
	return g.Default
}

// Names are the gates of every release, sorted.
func Names() []string {
	var out []string
	for _, r := range releases {
		for _, g := range r.Gates {
			if !slices.Contains(out, g.Name) {
				out = append(out, g.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Minors are the minors that declare a gate, oldest first.
func Minors(name string) []string {
	var out []string
	for _, r := range releases {
		if slices.ContainsFunc(r.Gates, func(g Gate) bool { return g.Name == name }) {
			out = append(out, r.Minor)
		}
	}
	return out
}

// CheckEntry reads one karpenter_feature_gates entry: "" when it is `Name`, `Name=true` or
// `Name=false` for a gate some release declares, else why not.
func CheckEntry(entry string) string {
	name, val, hasVal := strings.Cut(strings.TrimSpace(entry), "=")
	name = strings.TrimSpace(name)
	if _, err := strconv.ParseBool(strings.TrimSpace(val)); name == "" || (hasVal && err != nil) {
		return fmt.Sprintf("%q is not a feature gate setting: write `Name` or `Name=true` to turn a gate on, `Name=false` to "+
			"turn it off", entry)
	}
	if len(Minors(name)) == 0 {
		return fmt.Sprintf("%q is not a feature gate of any Karpenter release the provider plans for (1.9–1.15); known gates: %s",
			name, strings.Join(Names(), ", "))
	}
	return ""
}

// Problem is one karpenter_feature_gates entry a release refuses: its index and why.
type Problem struct {
	Index   int
	Message string
}

// CheckRelease finds the entries that name a gate the minor lacks (Karpenter's controller
// refuses to start with a gate it does not know). Entries CheckEntry refuses are left to it, and
// a minor the table lacks is not judged.
func CheckRelease(minor string, entries []string) []Problem {
	if Of(minor) == nil {
		return nil
	}
	var out []Problem
	for i, e := range entries {
		if CheckEntry(e) != "" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSpace(e), "=")
		name = strings.TrimSpace(name)
		if minors := Minors(name); !slices.Contains(minors, minor) {
			out = append(out, Problem{i, fmt.Sprintf("Karpenter %s has no feature gate %s (a gate of %s): its controller refuses "+
				"to start with a gate it does not know. Set karpenter_version to a release that has it, or remove the entry",
				minor, name, span(minors))})
		}
	}
	return out
}

// span writes minors as "1.14–1.15", or a list when they are not consecutive.
func span(minors []string) string {
	if len(minors) == 1 {
		return "Karpenter " + minors[0]
	}
	var all []string
	for _, r := range releases {
		all = append(all, r.Minor)
	}
	first := slices.Index(all, minors[0])
	if first >= 0 && first+len(minors) <= len(all) && slices.Equal(all[first:first+len(minors)], minors) {
		return "Karpenter " + minors[0] + "–" + minors[len(minors)-1]
	}
	return "Karpenter " + strings.Join(minors, ", ")
}
