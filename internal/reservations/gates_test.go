package reservations

import "testing"

func TestParseGate(t *testing.T) {
	for _, c := range []struct {
		entry  string
		name   string
		on, ok bool
	}{
		{"ReservedCapacity", "ReservedCapacity", true, true},
		{"ReservedCapacity=true", "ReservedCapacity", true, true},
		{" NodeOverlay = false ", "NodeOverlay", false, true},
		{"NodeOverlay=FALSE", "NodeOverlay", false, true},
		{"NodeOverlay=yes", "NodeOverlay", false, false},
		{"=true", "", false, false},
		{"", "", false, false},
	} {
		name, on, ok := ParseGate(c.entry)
		if name != c.name || on != c.on || ok != c.ok {
			t.Errorf("ParseGate(%q) = %q, %v, %v; want %q, %v, %v", c.entry, name, on, ok, c.name, c.on, c.ok)
		}
	}
}

func TestGateOn(t *testing.T) {
	for _, c := range []struct {
		gates []string
		name  string
		def   bool
		want  bool
	}{
		{nil, Gate, true, true},
		{nil, "NodeOverlay", false, false},
		{[]string{"NodeOverlay"}, "NodeOverlay", false, true},
		{[]string{"NodeOverlay=true"}, "NodeOverlay", false, true},
		{[]string{"NodeOverlay=false"}, "NodeOverlay", true, false},
		{[]string{"ReservedCapacity=false"}, Gate, true, false},
		{[]string{"ReservedCapacity=false", "ReservedCapacity"}, Gate, true, true},
		{[]string{"ReservedCapacity", "ReservedCapacity=false"}, Gate, true, false},
		{[]string{"NodeOverlayX"}, "NodeOverlay", false, false},
		{[]string{"StaticCapacity"}, "NodeOverlay", false, false},
	} {
		if got := GateOn(c.gates, c.name, c.def); got != c.want {
			t.Errorf("GateOn(%q, %q, %v) = %v, want %v", c.gates, c.name, c.def, got, c.want)
		}
	}
	if GateOn([]string{"ReservedCapacity=false"}, Gate, GateDefault) != GateEnabled([]string{"ReservedCapacity=false"}) {
		t.Error("GateOn and GateEnabled disagree")
	}
}

func TestGateDefaultOf(t *testing.T) {
	if !GateDefaultOf(Gate) || GateDefaultOf("NodeOverlay") || GateDefaultOf("StaticCapacity") || GateDefaultOf("NodeClassCEL") {
		t.Error("gate defaults: ReservedCapacity on, the alpha gates off")
	}
}
