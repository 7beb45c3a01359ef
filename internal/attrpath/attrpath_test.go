package attrpath

import "testing"

func TestString(t *testing.T) {
	for want, p := range map[string]Path{
		"":                                   {},
		"name":                               Of("name"),
		"template.requirements[1].values":    Of("template", "requirements").Index(1).Attr("values"),
		`subnet_selector_terms[0].tags["k"]`: Of("subnet_selector_terms").Index(0).Attr("tags").Key("k"),
		`kubelet.eviction_hard["memory.available"]`: Of("kubelet", "eviction_hard").Key("memory.available"),
		`tags["a\"b"]`: Of("tags").Key(`a"b`),
	} {
		if got := p.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

// Paths built from one base share nothing: appending to one never changes another.
func TestNoSharing(t *testing.T) {
	base := Of("block_device_mappings").Index(0)
	a, b := base.Attr("ebs", "iops"), base.Attr("root_volume")
	if a.String() != "block_device_mappings[0].ebs.iops" || b.String() != "block_device_mappings[0].root_volume" || base.String() != "block_device_mappings[0]" {
		t.Fatalf("a=%s b=%s base=%s", a, b, base)
	}
}

func TestFindingError(t *testing.T) {
	for want, f := range map[string]Finding{
		"no subnet":                      {Message: "no subnet"},
		"selector_terms[0].id: bad id":   {Path: Of("selector_terms").Index(0).Attr("id"), Message: "bad id"},
		"None of the 2 terms matched":    {Path: Of("selector_terms"), Message: "None of the 2 terms matched", Standalone: true},
		"region: no AWS region: set one": {Path: Of("region"), Message: "region: no AWS region: set one", Standalone: true},
	} {
		if got := f.Error(); got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	}
}

func TestWithSummary(t *testing.T) {
	in := []Finding{{Message: "a"}, {Message: "b", Summary: "Own"}}
	got := WithSummary("Default", in)
	if len(got) != 2 || got[0].Summary != "Default" || got[1].Summary != "Own" || in[0].Summary != "" {
		t.Errorf("WithSummary: %+v (input %+v)", got, in)
	}
	if got := WithSummary("x", nil); len(got) != 0 {
		t.Errorf("nil: %+v", got)
	}
}
