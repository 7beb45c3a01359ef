package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

var csvRows = [][]string{
	{"instance_type", "interface", "ipv4_per_interface", "is_trunking_compatible", "branch_interface",
		"default_network_card_index", "network_cards", "hypervisor", "is_bare_metal"},
	{"t3.micro", "2", "2", "false", "0", "0", "2", "nitro", "false"},
	{"c8gn.metal-48xl", "24", "50", "true", "98", "0", "12|12", "", "true"},
	{"m5.large", "3", "10", "true", "9", "0", "3", "nitro", "false"},
}

func TestRenderLimitsReadsBack(t *testing.T) {
	entries, err := parseRows(csvRows, true)
	if err != nil {
		t.Fatal(err)
	}
	out := renderLimits(entries, "v1 (2026-01-01)")
	back, err := catalog.ParseVPCLimits(bytes.NewReader(out))
	if err != nil || len(back) != 3 {
		t.Fatalf("read back %v, %v", back, err)
	}
	if l := back["c8gn.metal-48xl"]; l.ENIs != 24 || len(l.CardENIs) != 2 || l.CardENIs[1] != 12 || l.Hypervisor != "" || !l.BareMetal {
		t.Errorf("c8gn.metal-48xl = %+v", l)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 8 || !strings.Contains(lines[1], "v1 (2026-01-01)") || !strings.Contains(lines[2], "-ref 'v1 (2026-01-01)'") {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if got := lines[5:]; !strings.HasPrefix(got[0], "c8gn.metal-48xl\t") || !strings.HasPrefix(got[1], "m5.large\t") || !strings.HasPrefix(got[2], "t3.micro\t") {
		t.Errorf("rows not sorted: %q", got)
	}
	if !bytes.Equal(out, renderLimits(entries, "v1 (2026-01-01)")) {
		t.Error("renderLimits is not deterministic")
	}
}

func TestRenderTrunking(t *testing.T) {
	entries, err := parseRows(csvRows, false)
	if err != nil {
		t.Fatal(err)
	}
	src, err := renderTrunking(entries, "v1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"them, v1.\n", "(3 types)", `"m5.large":        {true, 9},`, `"t3.micro":        {false, 0},`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("no %q in\n%s", want, src)
		}
	}
}

func TestParseRowsChecks(t *testing.T) {
	// Without -limits-out only the trunking columns are needed.
	short := [][]string{{"instance_type", "is_trunking_compatible", "branch_interface"}, {"m5.large", "true", "9"}}
	if _, err := parseRows(short, false); err != nil {
		t.Errorf("trunking columns only: %v", err)
	}
	if _, err := parseRows(short, true); err == nil {
		t.Error("limits without their columns: no error")
	}
	bad := append([][]string{csvRows[0]}, []string{"m5.large", "3", "10", "true", "9", "0", "2|2", "nitro", "false"})
	if _, err := parseRows(bad, true); err == nil {
		t.Error("cards that do not add up: no error")
	}
	twice := append([][]string{csvRows[0]}, csvRows[3], csvRows[3])
	if _, err := parseRows(twice, false); err == nil {
		t.Error("a type listed twice: no error")
	}
}
