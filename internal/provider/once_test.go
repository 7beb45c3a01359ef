package provider

import (
	"slices"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// A provider-wide warning (the price fallback) is raised by the first pool of a configured
// provider that meets it, once per distinct message; a pool's own warnings always are.
func TestProviderWideWarningsOnce(t *testing.T) {
	fallback := attrpath.Finding{Summary: launchplan.SummaryPriceFallback, Message: "launch order and cost from the table: GetProducts failed"}
	spot := attrpath.Finding{Summary: launchplan.SummaryPriceFallback, Message: "spot offerings are priced as on-demand"}
	own := attrpath.Finding{Path: attrpath.Of("limits"), Summary: launchplan.SummarySubnetsTooSmall, Message: "105 nodes"}
	m := &Meta{}
	summaries := func(fs []attrpath.Finding) (out []string) {
		for _, f := range fs {
			out = append(out, f.Summary+": "+f.Message)
		}
		return out
	}
	first := m.onceEach([]attrpath.Finding{fallback, own})
	second := m.onceEach([]attrpath.Finding{fallback, own, spot})
	third := m.onceEach([]attrpath.Finding{own, spot, fallback})
	if !slices.Equal(summaries(first), summaries([]attrpath.Finding{fallback, own})) ||
		!slices.Equal(summaries(second), summaries([]attrpath.Finding{own, spot})) || !slices.Equal(summaries(third), summaries([]attrpath.Finding{own})) {
		t.Errorf("first %q\nsecond %q\nthird %q", summaries(first), summaries(second), summaries(third))
	}
	if other := (&Meta{}).onceEach([]attrpath.Finding{fallback}); len(other) != 1 {
		t.Errorf("another configured provider raised %q", summaries(other))
	}
}
