package automode

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// FuzzManifest renders classes whose strings come from the fuzzer: rendering and admission never
// panic, a rendered manifest is YAML the admission reads (an error only for invalid UTF-8), and
// a rule the guide states is enforced whatever the other fields hold.
func FuzzManifest(f *testing.F) {
	f.Add("private", "MyNodeRole", "", "Name", "private-subnet", "80Gi", "Random", "32", "team")
	f.Add("default", "", "eks-profile", "kubernetes.io/role/internal-elb", "1", "59001Gi", "random", "28", "eks.amazonaws.com/nodeclass")
	f.Add("x", "r", "p", "", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, name, role, profile, tagKey, tagValue, size, snat, prefix, userTag string) {
		c := Config{Name: name, Role: role, InstanceProfile: profile,
			SubnetSelectorTerms:        []discovery.SubnetTerm{{Tags: map[string]string{tagKey: tagValue}}},
			SecurityGroupSelectorTerms: []discovery.SecurityGroupTerm{{Name: tagValue}},
			SNATPolicy:                 snat, EphemeralStorage: &EphemeralStorage{Size: size},
			AdvancedNetworking: &AdvancedNetworking{IPv4PrefixSize: prefix}, Tags: map[string]string{userTag: tagValue}}
		_ = Validate(c)
		doc, err := c.Manifest()
		if err != nil {
			if !strings.Contains(err.Error(), "UTF-8") && !strings.Contains(err.Error(), "metadata.name") {
				t.Fatalf("render: %v", err)
			}
			return
		}
		v, err := manifest.Admit(doc)
		if err != nil {
			t.Fatalf("admission cannot read its own render: %v\n%s", err, doc)
		}
		if (role == "") == (profile == "") && !refusedAt(v, "spec") {
			t.Fatalf("role %q and instance profile %q admitted:\n%s", role, profile, doc)
		}
		if snat != "" && snat != "Random" && snat != "Disabled" && !refusedAt(v, "spec.snatPolicy") {
			t.Fatalf("snatPolicy %q admitted", snat)
		}
	})
}

func refusedAt(v []manifest.Violation, field string) bool {
	for _, x := range v {
		if x.Field.String() == field {
			return true
		}
	}
	return false
}
