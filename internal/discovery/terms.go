// Package discovery turns Karpenter selector terms for subnets and security groups (and
// capacity reservations and placement groups, reservations.go) into EC2 filter sets,
// validates them, and resolves and orders what EC2 returns, the way Karpenter's subnet and
// security-group providers do. It knows nothing of Terraform or the AWS SDK: EC2 is
// reached through the small API interface that the AWS adapter implements.
package discovery

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// Limits from the EC2NodeClass CRD.
const (
	MaxTerms       = 30
	MaxTagsPerTerm = 20
)

// Field names of a term in findings' paths; they match the Terraform attribute names.
const (
	FieldTags = "tags"
	FieldID   = "id"
	FieldName = "name"
)

// SubnetTerm is one entry of subnet_selector_terms: tags or id.
type SubnetTerm struct {
	Tags map[string]string `tfsdk:"tags"`
	ID   string            `tfsdk:"id"`
}

// SecurityGroupTerm is one entry of security_group_selector_terms: tags, id or name.
type SecurityGroupTerm struct {
	Tags map[string]string `tfsdk:"tags"`
	ID   string            `tfsdk:"id"`
	Name string            `tfsdk:"name"`
}

// fieldError locates one validation problem: [Index].<Field>[TagKey] of a list of terms.
type fieldError struct {
	Index   int
	Field   string // FieldTags, FieldID or FieldName; "" for the term as a whole
	TagKey  string // set when the problem is one tag of Field "tags"
	Message string
}

// findings are errs as findings with paths relative to the list of terms ([1].tags["Name"]).
func findings(errs []fieldError) []attrpath.Finding {
	if len(errs) == 0 {
		return nil
	}
	out := make([]attrpath.Finding, len(errs))
	for i, e := range errs {
		p := attrpath.Path{}.Index(e.Index)
		if e.Field != "" {
			p = p.Attr(e.Field)
		}
		if e.TagKey != "" {
			p = p.Key(e.TagKey)
		}
		out[i] = attrpath.Finding{Path: p, Message: e.Message}
	}
	return out
}

var (
	subnetIDRE        = regexp.MustCompile(`^subnet-[0-9a-z]+$`)
	securityGroupIDRE = regexp.MustCompile(`^sg-[0-9a-z]+$`)
)

// ValidateSubnetTerms applies the CRD's rules per term: tags or id, not both; tags non-empty
// in key and value, at most 20; ids shaped subnet-…. The list-length rule (1..30) belongs to the
// list attribute.
func ValidateSubnetTerms(terms []SubnetTerm) []attrpath.Finding {
	var errs []fieldError
	for i, t := range terms {
		hasTags, hasID := t.Tags != nil, t.ID != ""
		switch {
		case !hasTags && !hasID:
			errs = append(errs, fieldError{Index: i, Message: "a subnet selector term needs `tags` or `id`"})
		case hasTags && hasID:
			errs = append(errs, fieldError{Index: i, Field: FieldID, Message: "`id` is mutually exclusive with `tags` in one term; use two terms to OR them"})
		}
		errs = append(errs, validateTags(i, t.Tags)...)
		if hasID && !subnetIDRE.MatchString(t.ID) {
			errs = append(errs, fieldError{Index: i, Field: FieldID, Message: fmt.Sprintf("%q is not a subnet id (expected subnet-[0-9a-z]+)", t.ID)})
		}
	}
	return findings(errs)
}

// ValidateSecurityGroupTerms applies the CRD's rules per term: exactly one of tags, id and name;
// tags as for subnets; ids shaped sg-….
func ValidateSecurityGroupTerms(terms []SecurityGroupTerm) []attrpath.Finding {
	var errs []fieldError
	for i, t := range terms {
		hasTags, hasID, hasName := t.Tags != nil, t.ID != "", t.Name != ""
		switch {
		case !hasTags && !hasID && !hasName:
			errs = append(errs, fieldError{Index: i, Message: "a security group selector term needs one of `tags`, `id` or `name`"})
		case hasID && (hasTags || hasName):
			errs = append(errs, fieldError{Index: i, Field: FieldID, Message: "`id` is mutually exclusive with `tags` and `name` in one term; use separate terms to OR them"})
		case hasName && hasTags:
			errs = append(errs, fieldError{Index: i, Field: FieldName, Message: "`name` is mutually exclusive with `tags` in one term; use separate terms to OR them"})
		}
		errs = append(errs, validateTags(i, t.Tags)...)
		if hasID && !securityGroupIDRE.MatchString(t.ID) {
			errs = append(errs, fieldError{Index: i, Field: FieldID, Message: fmt.Sprintf("%q is not a security group id (expected sg-[0-9a-z]+)", t.ID)})
		}
	}
	return findings(errs)
}

func validateTags(i int, tags map[string]string) []fieldError {
	if tags == nil {
		return nil
	}
	var errs []fieldError
	if len(tags) == 0 {
		errs = append(errs, fieldError{Index: i, Field: FieldTags, Message: "tags must not be empty; omit the attribute or add at least one tag"})
	}
	if len(tags) > MaxTagsPerTerm {
		errs = append(errs, fieldError{Index: i, Field: FieldTags, Message: fmt.Sprintf("at most %d tags per term, got %d", MaxTagsPerTerm, len(tags))})
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		switch {
		case k == "":
			errs = append(errs, fieldError{Index: i, Field: FieldTags, Message: "tag keys must not be empty"})
		case tags[k] == "":
			errs = append(errs, fieldError{Index: i, Field: FieldTags, TagKey: k, Message: fmt.Sprintf("tag %q has an empty value; use \"*\" to match any value", k)})
		}
	}
	return errs
}
