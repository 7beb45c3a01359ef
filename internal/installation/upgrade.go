package installation

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// maxListed is how many fields a preview names per kind before "and N more".
const maxListed = 8

// UpgradePreview says, in one finding on karpenter_version, what raising the cluster's Karpenter
// from the running release to the configuration's minor changes: the EC2NodeClass hash version
// and what Karpenter does about it, the CRD fields each kind gains, loses or defaults
// differently, the IAM actions and interruption events the new controller needs, and the order
// to upgrade in. false when there is no upgrade to preview (the
// controller is not older, or older than every release the provider has CRDs for).
func UpgradePreview(c Controller, to string) (attrpath.Finding, bool) {
	from := c.OlderMinor(to)
	if from == "" {
		return attrpath.Finding{}, false
	}
	parts := []string{hashChange(from, to)}
	before, errB := manifest.CRDsFor(from)
	after, errA := manifest.CRDsFor(to)
	if errB == nil && errA == nil {
		for _, kind := range []string{manifest.EC2NodeClassKind, manifest.NodePoolKind, manifest.NodeOverlayKind} {
			if d := schemaChanges(kind, before[kind], after[kind]); d != "" {
				parts = append(parts, d)
			}
		}
	}
	parts = append(parts, controllerGains(from, to))
	parts = append(parts, fmt.Sprintf("install the CRDs of %s before the controller (the karpenter-crd chart), grant the controller's "+
		"role the new actions, then upgrade the controller", to))
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return attrpath.Finding{Path: pathVersion, Summary: fmt.Sprintf("Upgrade preview: Karpenter %s → %s", c.Version, to),
		Message: strings.Join(parts, ". ") + "."}, true
}

// hashChange is what the EC2NodeClass hash version does between two minors.
func hashChange(from, to string) string {
	hf, errF := karpenterhash.EC2NodeClassHashVersionFor(from)
	ht, errT := karpenterhash.EC2NodeClassHashVersionFor(to)
	switch {
	case errF != nil || errT != nil:
		return "the EC2NodeClass hash version is not known for both releases"
	case hf == ht:
		return fmt.Sprintf("the EC2NodeClass hash version stays %s: a class change drifts nodes as before", hf)
	}
	return fmt.Sprintf("the EC2NodeClass hash version goes %s → %s: Karpenter re-annotates the running nodes with the new hash rather "+
		"than drift them (the plan's drift verdict does the same): the new hash version itself replaces no node", hf, ht)
}

// schemaChanges names the fields kind gains and loses between two CRDs (manifest.CRD.Undeclared:
// the outermost fields one declares and the other does not, a field under a free-form object
// counting as declared), the objects that become free-form, and the defaults that differ.
func schemaChanges(kind string, before, after *manifest.CRD) string {
	if before == nil || after == nil {
		return ""
	}
	b, a := map[string]string{}, map[string]string{}
	fieldPaths("", before.Schema, b)
	fieldPaths("", after.Schema, a)
	var defaults, opened []string
	for p, def := range a {
		switch old, ok := b[p]; {
		case def == openField && old != openField:
			opened = append(opened, p+" (any field)")
		case ok && old != def && old != openField:
			defaults = append(defaults, fmt.Sprintf("%s (%s → %s)", p, orNone(old), orNone(def)))
		}
	}
	var out []string
	for _, l := range []struct {
		what string
		list []string
	}{{"gains", pathNames(before.Undeclared(after))}, {"opens", opened}, {"loses", pathNames(after.Undeclared(before))},
		{"defaults differently", defaults}} {
		if len(l.list) > 0 {
			out = append(out, l.what+" "+listed(l.list))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return kind + " " + strings.Join(out, "; ")
}

// pathNames are the fields' paths as the API server writes them.
func pathNames(fields []manifest.Path) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.String()
	}
	return out
}

// openField marks a free-form object (x-kubernetes-preserve-unknown-fields) in fieldPaths.
const openField = "(any field)"

// fieldPaths records every property path under spec with its default (JSON, "" without one), or
// openField for a free-form object.
func fieldPaths(at string, s *apiextensionsv1.JSONSchemaProps, out map[string]string) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		path := name
		if at != "" {
			path = at + "." + name
		} else if name != "spec" {
			continue
		}
		def := ""
		switch {
		case p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields:
			def = openField
		case p.Default != nil:
			def = string(p.Default.Raw)
		}
		out[path] = def
		fieldPaths(path, &p, out)
	}
	if s.Items != nil && s.Items.Schema != nil {
		fieldPaths(at+"[]", s.Items.Schema, out)
	}
}

// listed is a sorted list of at most maxListed names and how many more.
func listed(names []string) string {
	slices.Sort(names)
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(names)-maxListed)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// controllerGains is what the new controller needs of AWS that the running one does not: IAM
// actions (ControllerNeeds) and interruption events for its queue's rules.
func controllerGains(from, to string) string {
	actions := NewControllerActions(from, to)
	_, policy := ControllerNeeds(to, true)
	var events []string
	had := InterruptionEvents(from)
	for _, e := range InterruptionEvents(to) {
		if !slices.Contains(had, e) {
			events = append(events, fmt.Sprintf("%q", e.DetailType))
		}
	}
	s := fmt.Sprintf("the controller's role needs no new IAM action (by Karpenter %s's published policy)", policy.Minor)
	if len(actions) > 0 {
		s = fmt.Sprintf("the controller's role needs %d new IAM actions (by Karpenter %s's published policy): %s", len(actions), policy.Minor,
			listed(actions))
	}
	if policy.Minor != to {
		s += fmt.Sprintf("; %s's own policy is not published at a revision the provider read", to)
	}
	if len(events) == 0 {
		return s + "; its interruption queue needs no new rule"
	}
	return s + "; its interruption queue needs a rule for each new event: " + strings.Join(events, ", ")
}
