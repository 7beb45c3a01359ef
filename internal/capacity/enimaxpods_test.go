package capacity

import (
	"os"
	"strings"
	"testing"
)

// eniMaxPodsPath is amazon-eks-ami's eni-max-pods table as repository data, written by
// cmd/gen-eni-max-pods (its header names the upstream version and the command to regenerate it).
const eniMaxPodsPath = "testdata/eni-max-pods.tsv"

func TestParseENIMaxPods(t *testing.T) {
	in := "# header\n#\n\nm5.large 29\r\n  t3.micro   4  \nm5.large 29\n"
	got, err := ParseENIMaxPods(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["m5.large"] != 29 || got["t3.micro"] != 4 {
		t.Errorf("got %v", got)
	}
	for name, bad := range map[string]string{
		"one field":      "m5.large\n",
		"three fields":   "m5.large 29 30\n",
		"not a number":   "m5.large many\n",
		"negative":       "m5.large -1\n",
		"conflicting":    "m5.large 29\nm5.large 30\n",
		"line in middle": "# c\nm5.large 29\nbroken\n",
	} {
		if _, err := ParseENIMaxPods(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The reference table agrees with Karpenter's ENI-limited formula for the
// fixture instance types (the all-types check runs against the live catalog).
func TestENILimitedPodsMatchesENIMaxPodsTable(t *testing.T) {
	f, err := os.Open(eniMaxPodsPath)
	if err != nil {
		t.Fatalf("the eni-max-pods table is part of the repository (regenerate it with cmd/gen-eni-max-pods): %v", err)
	}
	defer f.Close()
	table, err := ParseENIMaxPods(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(table) < 1000 {
		t.Fatalf("%s has %d instance types; expected about 1,200", eniMaxPodsPath, len(table))
	}
	for _, n := range []Network{m5Large(), m5XLarge(), c518XLarge(), t3Micro(), p548XLarge(), m4Large(), c5Metal()} {
		want, ok := table[n.InstanceType]
		if !ok {
			t.Errorf("%s missing from the table", n.InstanceType)
			continue
		}
		r, err := Compute(n, Settings{})
		if err != nil {
			t.Fatalf("%s: %v", n.InstanceType, err)
		}
		if r.ENILimitedPods != want || r.MaxPods != want {
			t.Errorf("%s: ENI-limited %d, max pods %d; table says %d", n.InstanceType, r.ENILimitedPods, r.MaxPods, want)
		}
	}
}
