package requirements

import (
	"strings"
	"testing"
)

func TestValueHints(t *testing.T) {
	reqs := []Requirement{
		{Key: LabelArch, Operator: OpIn, Values: []string{"amd64", "x86_64"}},
		{Key: LabelInstanceCategory, Operator: OpIn, Values: []string{"c"}},
		{Key: LabelArch, Operator: OpNotIn, Values: []string{"aarch64"}},
		{Key: LabelOS, Operator: OpIn, Values: []string{"Linux"}},
		{Key: LabelArch, Operator: OpExists},
		{Key: LabelOS, Operator: OpIn, Values: []string{"freebsd"}},
	}
	got := ValueHints(reqs)
	want := []struct{ path, fragment string }{
		{"[0].values", `kubernetes.io/arch="x86_64": its values are amd64 and arm64, so this value matches nothing (did you mean "amd64"?)`},
		{"[2].values", `(did you mean "arm64"?)`},
		{"[3].values", `(did you mean "linux"?)`},
		{"[5].values", `kubernetes.io/os="freebsd"`},
	}
	if len(got) != len(want) {
		t.Fatalf("hints %v, want %d", got, len(want))
	}
	for i, w := range want {
		if got[i].Path.String() != w.path || !strings.Contains(got[i].Message, w.fragment) {
			t.Errorf("hint %d = %s: %s; want at %s with %q", i, got[i].Path, got[i].Message, w.path, w.fragment)
		}
	}
	if strings.Contains(got[3].Message, "did you mean") {
		t.Errorf("freebsd is far from every value, yet: %s", got[3].Message)
	}
}
