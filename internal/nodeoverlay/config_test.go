package nodeoverlay

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func valid() Config {
	return Config{Name: "cheap-m5", Requirements: []Requirement{in(requirements.LabelInstanceFamily, "m5")}, PriceAdjustment: ptr("-90%")}
}

func TestValidateNamesTheAttribute(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   func(*Config)
		path   attrpath.Path
		phrase string
	}{
		{"both prices", func(c *Config) { c.Price = ptr("0.1") }, pathPriceAdjustment, "not both"},
		{"malformed adjustment", func(c *Config) { c.PriceAdjustment = ptr("90%") }, pathPriceAdjustment, "Karpenter's forms"},
		{"below -100%", func(c *Config) { c.PriceAdjustment = ptr("-150%") }, pathPriceAdjustment, "Karpenter's forms"},
		{"signed price", func(c *Config) { c.PriceAdjustment, c.Price = nil, ptr("-0.1") }, pathPrice, "non-negative decimal"},
		{"cpu capacity", func(c *Config) { c.Capacity = map[string]string{"cpu": "2"} }, pathCapacity.Key("cpu"), "extended resources only"},
		{"pods capacity", func(c *Config) { c.Capacity = map[string]string{"pods": "200"} }, pathCapacity.Key("pods"), "extended resources only"},
		{"bad quantity", func(c *Config) { c.Capacity = map[string]string{"example.com/x": "lots"} }, pathCapacity.Key("example.com/x"), "quantity"},
		{"weight", func(c *Config) { c.Weight = ptr[int64](0) }, pathWeight, "between 1 and 10000"},
		{"no requirements", func(c *Config) { c.Requirements = nil }, pathRequirements, "at least one requirement"},
		{"bad operator", func(c *Config) { c.Requirements[0].Operator = "in" }, pathRequirements.Index(0).Attr("operator"), "did you mean"},
	} {
		cfg := valid()
		c.edit(&cfg)
		got := Validate(cfg)
		found := false
		for _, f := range got {
			found = found || (f.Path.String() == c.path.String() && strings.Contains(f.Message, c.phrase))
		}
		if !found {
			t.Errorf("%s: findings %v, want one at %s saying %q", c.name, got, c.path, c.phrase)
		}
	}
	nothing := valid()
	nothing.PriceAdjustment = nil
	if w := Warnings(nothing); len(w) != 1 || !strings.Contains(w[0].Message, "changes nothing") || len(Validate(nothing)) != 0 {
		t.Errorf("an overlay that changes nothing: warnings %v, errors %v; the API server accepts it, so only a warning", w, Validate(nothing))
	}
	if got := Validate(valid()); len(got) != 0 {
		t.Errorf("a valid overlay: %v", got)
	}
	pool := valid()
	pool.Requirements = []Requirement{in(requirements.LabelNodePool, "batch")}
	if got := Validate(pool); len(got) != 0 {
		t.Errorf("an overlay may select by karpenter.sh/nodepool (its CRD allows it): %v", got)
	}
}

// TestValidateAgreesWithTheCRD renders every case and admits it against each supported
// version's NodeOverlay CRD: what Validate refuses the API server refuses, and the reverse.
func TestValidateAgreesWithTheCRD(t *testing.T) {
	cases := []func(*Config){
		func(*Config) {},
		func(c *Config) { c.Price = ptr("0.1") },
		func(c *Config) { c.PriceAdjustment = ptr("90%") },
		func(c *Config) { c.PriceAdjustment = ptr("-150%") },
		func(c *Config) { c.PriceAdjustment = ptr("+150%") },
		func(c *Config) { c.PriceAdjustment = ptr("-0.5") },
		func(c *Config) { c.PriceAdjustment, c.Price = nil, ptr("0.25") },
		func(c *Config) { c.PriceAdjustment, c.Price = nil, ptr("1e3") },
		func(c *Config) { c.Capacity = map[string]string{"memory": "1Gi"} },
		func(c *Config) { c.Capacity = map[string]string{"example.com/slot": "3"} },
		func(c *Config) { c.Weight = ptr[int64](10001) },
		func(c *Config) { c.Weight = ptr[int64](10000) },
		func(c *Config) { c.Requirements = append(c.Requirements, in(requirements.LabelNodePool, "a")) },
		func(c *Config) { c.Requirements = append(c.Requirements, in("karpenter.sh/custom", "a")) },
		func(c *Config) {
			c.Requirements = append(c.Requirements, Requirement{Key: "k", Operator: requirements.OpGt, Values: []string{"-1"}})
		},
	}
	compared := 0
	for _, v := range manifest.Versions() {
		for i, edit := range cases {
			cfg := valid()
			edit(&cfg)
			doc, err := Manifest(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			refused, err := manifest.AdmitFor(v, doc)
			if err != nil {
				t.Fatal(err)
			}
			if ours := Validate(cfg); (len(ours) > 0) != (len(refused) > 0) {
				t.Errorf("v%s case %d: Validate %v, the API server %v\n%s", v, i, ours, refused, doc)
			}
			compared++
		}
	}
	if compared < 100 {
		t.Fatalf("compared %d cases, want at least 100", compared)
	}
}

func TestManifestRendersTheSpec(t *testing.T) {
	c := valid()
	c.Capacity, c.Weight = map[string]string{"example.com/slot": "2"}, ptr[int64](7)
	doc, err := Manifest(c, &manifest.ObjectMetadata{Annotations: map[string]string{"kubernetes.io/description": "m5 at a discount"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apiVersion: karpenter.sh/v1alpha1", "kind: NodeOverlay", "name: cheap-m5", "priceAdjustment: -90%",
		`example.com/slot: "2"`, "weight: 7", "kubernetes.io/description: m5 at a discount", "key: karpenter.k8s.aws/instance-family"} {
		if !strings.Contains(doc, want) {
			t.Errorf("manifest lacks %q:\n%s", want, doc)
		}
	}
}
