package provider

import (
	"slices"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
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

// lateOf reads which late values of a class are unknown.
func lateOf(v *classValue) lateValues {
	l := lateValues{role: v.unknown("role"), profile: v.unknown("instance_profile"), userData: v.unknown("user_data"), tags: v.unknown("tags")}
	if !l.tags {
		for k, e := range tfvalue.Attributes(tfvalue.Attributes(v.raw)["tags"]) {
			if !e.IsKnown() {
				l.tagKeys = append(l.tagKeys, k)
			}
		}
		slices.Sort(l.tagKeys)
	}
	return l
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

// substitute puts placeholders into the spec where the values are unknown.
func (l lateValues) substitute(s *nodeclass.Spec) {
	if l.role {
		s.Role = roleKnownAfterApply
	}
	if l.profile {
		s.InstanceProfile = profileKnownAfterApply
	}
	if l.userData {
		ud := userDataKnownAfterApply
		s.UserData = &ud
	}
	if l.tags {
		s.Tags = nil
	}
	for _, k := range l.tagKeys {
		s.Tags[k] = tagKnownAfterApply
	}
}

// unknownInResolved marks resolved's copies of the late values unknown.
func (l lateValues) unknownInResolved(resolved tftypes.Value) (tftypes.Value, error) {
	typ := resolved.Type()
	values := map[string]any{"hash": tfvalue.Unknown(tftypes.String)} // the hash covers every late value, the role too
	if l.profile {
		values["instance_profile"] = tfvalue.Unknown(tftypes.String)
	}
	if l.userData {
		values["user_data"] = tfvalue.Unknown(tftypes.String)
	}
	tagsType := tfvalue.AttributeType(typ, "tags")
	switch {
	case l.tags:
		values["tags"] = tfvalue.Unknown(tagsType)
	case len(l.tagKeys) > 0:
		elems := tfvalue.Attributes(tfvalue.Attributes(resolved)["tags"])
		if elems == nil {
			elems = map[string]tftypes.Value{}
		}
		for _, k := range l.tagKeys {
			elems[k] = tfvalue.Unknown(tftypes.String)
		}
		values["tags"] = tftypes.NewValue(tagsType, elems)
	}
	return tfvalue.With(resolved, values)
}
