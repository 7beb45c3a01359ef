package provider

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// Values a node class may take from resources of the same apply without blanking its plan: none
// of them changes what the selectors resolve to, the zones, the pod capacity or the launch plan.
// The plan validates and renders them as placeholders; what names them (the manifest, resolved's
// copy, a template's content) is unknown until apply.
var lateClassAttrs = []string{"role", "instance_profile", "user_data", "tags"}

// lateResolvedAttrs are the attributes of a class's `resolved` (a pool's `node_class`) that a
// late value leaves unknown: those it names, and the class's hash, which covers them.
var lateResolvedAttrs = append(slices.Clone(lateClassAttrs), "hash")

const (
	roleKnownAfterApply     = "role-known-after-apply"
	profileKnownAfterApply  = "instance-profile-known-after-apply"
	userDataKnownAfterApply = "user-data-known-after-apply"
	tagKnownAfterApply      = "tag-value-known-after-apply"
)

// lateValues records which of lateClassAttrs a plan does not know yet.
type lateValues struct {
	role, profile, userData bool
	tags                    bool     // the whole map
	tagKeys                 []string // single values
}

func (l lateValues) any() bool {
	return l.role || l.profile || l.userData || l.tags || len(l.tagKeys) > 0
}

// placeholders are the strings the manifest carries for unknown values.
func (l lateValues) placeholders() []string {
	var out []string
	for _, p := range []struct {
		on bool
		v  string
	}{{l.role, roleKnownAfterApply}, {l.profile, profileKnownAfterApply}, {l.userData, userDataKnownAfterApply}, {len(l.tagKeys) > 0, tagKnownAfterApply}} {
		if p.on {
			out = append(out, p.v)
		}
	}
	return out
}

// substitute puts placeholders into the spec where the model's values are unknown.
func (l *lateValues) substitute(m *nodeClassModel, s *nodeclass.Spec) {
	if l.role = m.Role.IsUnknown(); l.role {
		s.Role = roleKnownAfterApply
	}
	if l.profile = m.InstanceProfile.IsUnknown(); l.profile {
		s.InstanceProfile = profileKnownAfterApply
	}
	if l.userData = m.UserData.IsUnknown(); l.userData {
		ud := userDataKnownAfterApply
		s.UserData = &ud
	}
	if l.tags = m.Tags.IsUnknown(); l.tags {
		s.Tags = nil
		return
	}
	if m.Tags.IsNull() {
		return
	}
	tags := map[string]string{}
	for k, v := range m.Tags.Elements() {
		sv, _ := v.(types.String)
		if sv.IsUnknown() {
			l.tagKeys = append(l.tagKeys, k)
			tags[k] = tagKnownAfterApply
			continue
		}
		tags[k] = sv.ValueString()
	}
	s.Tags = tags
}

// unknownInResolved marks resolved's copies of the late values unknown.
func (l lateValues) unknownInResolved(ctx context.Context, obj types.Object, diags *diag.Diagnostics) types.Object {
	attrs := maps.Clone(obj.Attributes())
	attrs["hash"] = types.StringUnknown() // the hash covers every late value, the role too
	if l.profile {
		attrs["instance_profile"] = types.StringUnknown()
	}
	if l.userData {
		attrs["user_data"] = types.StringUnknown()
	}
	if l.tags {
		attrs["tags"] = types.MapUnknown(types.StringType)
	} else if len(l.tagKeys) > 0 {
		known, _ := attrs["tags"].(types.Map)
		elems := maps.Clone(known.Elements())
		for _, k := range l.tagKeys {
			elems[k] = types.StringUnknown()
		}
		attrs["tags"] = types.MapValueMust(types.StringType, elems)
	}
	out, d := types.ObjectValue(obj.AttributeTypes(ctx), attrs)
	diags.Append(d...)
	return out
}
