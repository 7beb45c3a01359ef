package nodeoverlay

import (
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

func TestValidateGatesReadsEntries(t *testing.T) {
	for _, tc := range []struct {
		gates []string
		off   bool
	}{
		{nil, true},
		{[]string{"NodeOverlay"}, false},
		{[]string{"NodeOverlay=true"}, false},
		{[]string{"NodeOverlay=false"}, true},
		{[]string{"NodeOverlay", "NodeOverlay=false"}, true},
		{[]string{"ReservedCapacity=false", "NodeOverlay=true"}, false},
	} {
		if got := len(ValidateGates(tc.gates, attrpath.Path{})) > 0; got != tc.off {
			t.Errorf("ValidateGates(%q) refuses: %v, want %v", tc.gates, got, tc.off)
		}
	}
}
