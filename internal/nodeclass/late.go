package nodeclass

import "maps"

// LateAttrs are the values a class may take from resources of the same apply without blanking
// its plan: none of them changes what the selectors resolve to, the zones, the pod capacity or
// the launch plan. The plan validates and renders them as placeholders; what names them (the
// manifest, resolved's copy, a template's content) is unknown until apply.
var LateAttrs = []string{"role", "instance_profile", "user_data", "tags"}

// The placeholders a plan renders in place of late values.
const (
	RoleKnownAfterApply     = "role-known-after-apply"
	ProfileKnownAfterApply  = "instance-profile-known-after-apply"
	UserDataKnownAfterApply = "user-data-known-after-apply"
	TagKnownAfterApply      = "tag-value-known-after-apply"
)

// Late records which of LateAttrs a plan does not know yet.
type Late struct {
	Role, InstanceProfile, UserData bool
	Tags                            bool     // the whole map
	TagKeys                         []string // single values, sorted
}

// Any reports whether any value is late.
func (l Late) Any() bool {
	return l.Role || l.InstanceProfile || l.UserData || l.Tags || len(l.TagKeys) > 0
}

// Placeholders are the strings the manifest carries for late values.
func (l Late) Placeholders() []string {
	var out []string
	for _, p := range []struct {
		on bool
		v  string
	}{{l.Role, RoleKnownAfterApply}, {l.InstanceProfile, ProfileKnownAfterApply}, {l.UserData, UserDataKnownAfterApply},
		{len(l.TagKeys) > 0, TagKnownAfterApply}} {
		if p.on {
			out = append(out, p.v)
		}
	}
	return out
}

// Substitute puts placeholders into the spec where the values are late (a late tags map leaves
// the spec without tags); the spec's tags are copied before a placeholder goes in.
func (l Late) Substitute(s *Spec) {
	if l.Role {
		s.Role = RoleKnownAfterApply
	}
	if l.InstanceProfile {
		s.InstanceProfile = ProfileKnownAfterApply
	}
	if l.UserData {
		ud := UserDataKnownAfterApply
		s.UserData = &ud
	}
	if l.Tags {
		s.Tags = nil
	}
	if len(l.TagKeys) > 0 {
		s.Tags = maps.Clone(s.Tags) // the config's map stays as it was
		if s.Tags == nil {
			s.Tags = map[string]string{}
		}
	}
	for _, k := range l.TagKeys {
		s.Tags[k] = TagKnownAfterApply
	}
}
