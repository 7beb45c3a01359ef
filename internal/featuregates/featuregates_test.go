package featuregates

import (
	"slices"
	"strings"
	"testing"
)

// The table holds what each release declares: the five gates every release has, CapacityBuffer
// from 1.14, and 1.15's four more core gates and four AWS gates. A parse that lost gates fails
// the floors.
func TestReleases(t *testing.T) {
	want := map[string]int{"1.9": 5, "1.10": 5, "1.11": 5, "1.12": 5, "1.13": 5, "1.14": 6, "1.15": 13}
	for minor, n := range want {
		if got := len(Of(minor)); got != n {
			t.Errorf("%s: %d gates, want %d", minor, got, n)
		}
	}
	if len(releases) != len(want) {
		t.Errorf("%d releases in the table, want %d", len(releases), len(want))
	}
	for _, c := range []struct {
		name   string
		minors []string
		def    bool
		aws    bool
	}{
		{"ReservedCapacity", []string{"1.9", "1.10", "1.11", "1.12", "1.13", "1.14", "1.15"}, true, false},
		{"StaticCapacity", []string{"1.9", "1.10", "1.11", "1.12", "1.13", "1.14", "1.15"}, false, false},
		{"CapacityBuffer", []string{"1.14", "1.15"}, false, false},
		{"TerminateFirstDrift", []string{"1.15"}, false, false},
		{"NodeClassCEL", []string{"1.15"}, false, true},
		{"RebootForRepair", []string{"1.15"}, false, true},
	} {
		if got := Minors(c.name); !slices.Equal(got, c.minors) {
			t.Errorf("%s: in %v, want %v", c.name, got, c.minors)
		}
		g, ok := Lookup("1.15", c.name)
		if !ok || g.Default != c.def || g.AWS != c.aws {
			t.Errorf("%s in 1.15: %+v %v, want default %v, AWS %v", c.name, g, ok, c.def, c.aws)
		}
	}
}

// No gate changes its default between the releases that declare it, so a gate's default does
// not depend on karpenter_version (reservations.GateDefaultOf relies on it).
func TestDefaultsStable(t *testing.T) {
	for _, name := range Names() {
		var defs []bool
		for _, m := range Minors(name) {
			defs = append(defs, Default(m, name))
		}
		if slices.Contains(defs, true) && slices.Contains(defs, false) {
			t.Errorf("%s: defaults %v differ between %v", name, defs, Minors(name))
		}
	}
}

func TestCheckEntry(t *testing.T) {
	for entry, want := range map[string]string{
		"NodeOverlay": "", "NodeOverlay=false": "", " StaticCapacity = true ": "", "RebootForRepair": "",
		"NodeOverlay=maybe": "is not a feature gate setting", "=true": "is not a feature gate setting",
		"Nope": `"Nope" is not a feature gate of any Karpenter release`,
	} {
		got := CheckEntry(entry)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("CheckEntry(%q) = %q, want %q", entry, got, want)
		}
	}
}

func TestCheckRelease(t *testing.T) {
	got := CheckRelease("1.14", []string{"NodeOverlay", "NodeClassCEL", "Nope", "TerminateFirstDrift=false", "CapacityBuffer"})
	if len(got) != 2 || got[0].Index != 1 || got[1].Index != 3 ||
		!strings.Contains(got[0].Message, "Karpenter 1.14 has no feature gate NodeClassCEL (a gate of Karpenter 1.15)") ||
		!strings.Contains(got[1].Message, "TerminateFirstDrift") {
		t.Errorf("1.14: %+v", got)
	}
	if got := CheckRelease("1.13", []string{"CapacityBuffer"}); len(got) != 1 || !strings.Contains(got[0].Message, "a gate of Karpenter 1.14–1.15") {
		t.Errorf("1.13 CapacityBuffer: %+v", got)
	}
	if got := CheckRelease("1.15", []string{"NodeClassCEL", "RebootForRepair=true", "CapacityBuffer"}); len(got) != 0 {
		t.Errorf("1.15: %+v", got)
	}
	if got := CheckRelease("2.0", []string{"NodeClassCEL"}); got != nil {
		t.Errorf("a minor the table lacks is not judged: %+v", got)
	}
}
