package catalog

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseVPCLimits(t *testing.T) {
	in := "# header\n\n" +
		"m5.large\t3\t10\t0\t3\tnitro\tfalse\n" +
		"p5.48xlarge\t64\t50\t0\t" + strings.Repeat("2|", 31) + "2\tnitro\tfalse\n" +
		"z1d.metal\t15\t50\t0\t15\t\ttrue\n"
	got, err := ParseVPCLimits(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !reflect.DeepEqual(got["m5.large"], VPCLimits{3, 10, 0, []int{3}, "nitro", false}) ||
		len(got["p5.48xlarge"].CardENIs) != 32 || got["z1d.metal"].Hypervisor != "" || !got["z1d.metal"].BareMetal {
		t.Errorf("ParseVPCLimits = %+v", got)
	}
	for _, row := range []string{"m5.large", "p5.48xlarge", "z1d.metal"} {
		var line string
		for l := range strings.SplitSeq(in, "\n") {
			if strings.HasPrefix(l, row+"\t") {
				line = l
			}
		}
		if f := FormatVPCLimitsRow(row, got[row]); f != line {
			t.Errorf("FormatVPCLimitsRow(%s) = %q, want %q", row, f, line)
		}
	}

	for name, bad := range map[string]string{
		"columns":      "m5.large\t3\t10\t0\t3\tnitro\n",
		"count":        "m5.large\tthree\t10\t0\t3\tnitro\tfalse\n",
		"negative":     "m5.large\t3\t-10\t0\t3\tnitro\tfalse\n",
		"cards sum":    "m5.large\t3\t10\t0\t2|2\tnitro\tfalse\n",
		"default card": "m5.large\t3\t10\t1\t3\tnitro\tfalse\n",
		"bare metal":   "m5.large\t3\t10\t0\t3\tnitro\tno\n",
		"repeated":     "m5.large\t3\t10\t0\t3\tnitro\tfalse\nm5.large\t3\t10\t0\t3\tnitro\tfalse\n",
	} {
		if _, err := ParseVPCLimits(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error for %q", name, bad)
		}
	}
}

// The network limits table and the trunking table come from one run of cmd/gen-vpc-limits on
// one input: they list the same types.
func TestVPCLimitsTableMatchesTrunking(t *testing.T) {
	fh, err := os.Open("testdata/vpc-limits.tsv")
	if err != nil {
		t.Fatalf("the limits table is part of the repository (regenerate it with cmd/gen-vpc-limits): %v", err)
	}
	defer fh.Close()
	table, err := ParseVPCLimits(fh)
	if err != nil {
		t.Fatal(err)
	}
	if len(table) != len(trunking) {
		t.Errorf("vpc-limits.tsv has %d types, zz_generated_trunking.go %d", len(table), len(trunking))
	}
	for name := range trunking {
		if _, ok := table[name]; !ok {
			t.Errorf("%s is in zz_generated_trunking.go but not in vpc-limits.tsv", name)
		}
	}
	if l := table["p5.48xlarge"]; l.ENIs != 64 || len(l.CardENIs) != 32 || l.CardENIs[l.DefaultCardIndex] != 2 {
		t.Errorf("p5.48xlarge = %+v, want 64 ENIs on 32 cards of 2", l)
	}
}
