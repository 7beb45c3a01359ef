package nodeoverlay

import (
	"encoding/json"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// FuzzValidateOverlay decodes an overlay configuration from JSON (Config's Go field names) and
// validates it: no panic, every error on an attribute path, and an overlay without findings
// renders its NodeOverlay.
func FuzzValidateOverlay(f *testing.F) {
	price, adjustment, weight := "0.05", "-10%", int64(10)
	for _, c := range []Config{
		{Name: "spot", PriceAdjustment: &adjustment, Requirements: []Requirement{{Key: requirements.LabelCapacityType, Operator: requirements.OpIn,
			Values: []string{"spot"}}}},
		{Name: "m5", Price: &price, Weight: &weight, Capacity: map[string]string{"example.com/device": "1"},
			Requirements: []Requirement{{Key: requirements.LabelInstanceFamily, Operator: requirements.OpIn, Values: []string{"m5"}}}},
		{Name: "", Requirements: []Requirement{{Key: requirements.LabelArch, Operator: requirements.OpExists}}}, // no name: refused, not rendered
	} {
		b, err := json.Marshal(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Config
		if len(data) > 16<<10 || json.Unmarshal(data, &c) != nil {
			return
		}
		findings := Validate(c)
		for _, e := range findings {
			if len(e.Path.Steps()) == 0 || e.Message == "" {
				t.Fatalf("an error without a path or a message: %+v", e)
			}
		}
		for _, w := range Warnings(c) { // a warning may be on the whole overlay
			if w.Message == "" {
				t.Fatalf("a warning without a message: %+v", w)
			}
		}
		if len(findings) == 0 {
			if _, err := Manifest(c, nil); err != nil {
				t.Fatalf("a valid overlay does not render: %v", err)
			}
		}
	})
}
