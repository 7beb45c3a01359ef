package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// selectorTermModel is one subnet or security-group selector term. Name is only in the
// security-group schema; for subnets it stays null.
type selectorTermModel struct {
	Tags types.Map    `tfsdk:"tags"`
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
}

type subnetTermModel struct {
	Tags types.Map    `tfsdk:"tags"`
	ID   types.String `tfsdk:"id"`
}

const (
	descTermTags = "Tags the object must carry, ANDed. A value of exactly `\"*\"` matches any value of the key; " +
		"other values are EC2 filter values, so `\"*private*\"` matches with wildcards. 1 to 20 tags, no empty keys or values."
	descSubnetTerms = "Karpenter `subnetSelectorTerms`: 1 to 30 terms, ORed; fields within a term are ANDed. " +
		"Each term has `tags` or `id`, not both."
	descSGTerms = "Karpenter `securityGroupSelectorTerms`: 1 to 30 terms, ORed. Each term has exactly one of `tags`, `id` or `name`."
)

// termsKnown reports whether every term is fully known, so validation and resolution can run.
func termsKnown(terms []selectorTermModel) bool {
	for _, t := range terms {
		if t.Tags.IsUnknown() || t.ID.IsUnknown() || t.Name.IsUnknown() {
			return false
		}
		for _, v := range t.Tags.Elements() {
			if v.IsUnknown() {
				return false
			}
		}
	}
	return true
}

func tagsFromMap(m types.Map) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := make(map[string]string, len(m.Elements()))
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok && !s.IsUnknown() { // unknown values: late_values.go puts placeholders in
			out[k] = s.ValueString()
		}
	}
	return out
}

func subnetTermsFrom(terms []selectorTermModel) []discovery.SubnetTerm {
	out := make([]discovery.SubnetTerm, len(terms))
	for i, t := range terms {
		out[i] = discovery.SubnetTerm{Tags: tagsFromMap(t.Tags), ID: t.ID.ValueString()}
	}
	return out
}

func securityGroupTermsFrom(terms []selectorTermModel) []discovery.SecurityGroupTerm {
	out := make([]discovery.SecurityGroupTerm, len(terms))
	for i, t := range terms {
		out[i] = discovery.SecurityGroupTerm{Tags: tagsFromMap(t.Tags), ID: t.ID.ValueString(), Name: t.Name.ValueString()}
	}
	return out
}

func stringMapValue(m map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

// asSelectorTerms widens subnet terms (no name) to the shared term model.
func asSelectorTerms(terms []subnetTermModel) []selectorTermModel {
	out := make([]selectorTermModel, len(terms))
	for i, t := range terms {
		out[i] = selectorTermModel{Tags: t.Tags, ID: t.ID, Name: types.StringNull()}
	}
	return out
}
