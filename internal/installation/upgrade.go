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
// differently, and the order to upgrade in. false when there is no upgrade to preview (the
// controller is not older, or older than every release the provider has CRDs for).
func UpgradePreview(c Controller, to string) (attrpath.Finding, bool) {
	from := c.OlderMinor(to)
	if from == "" {
		return attrpath.Finding{}, false
	}
	parts := []string{hashChange(from, to)}
	before, errB := manifest.SchemasFor(from)
	after, errA := manifest.SchemasFor(to)
	if errB == nil && errA == nil {
		for _, kind := range []string{manifest.EC2NodeClassKind, manifest.NodePoolKind, manifest.NodeOverlayKind} {
			if d := schemaChanges(kind, before[kind], after[kind]); d != "" {
				parts = append(parts, d)
			}
		}
	}
	parts = append(parts, fmt.Sprintf("install the CRDs of %s before the controller (the karpenter-crd chart), then the controller; this "+
		"plan does not compare the controller's IAM policy or its interruption rules across versions", to))
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

// schemaChanges names the fields kind gains, loses and defaults differently between two CRDs.
func schemaChanges(kind string, before, after *apiextensionsv1.JSONSchemaProps) string {
	if before == nil || after == nil {
		return ""
	}
	b, a := map[string]string{}, map[string]string{}
	fieldPaths("", before, b)
	fieldPaths("", after, a)
	var added, removed, defaults, opened []string
	for p, def := range a {
		if def == openField && b[p] != openField {
			opened = append(opened, p+" (any field)")
		}
	}
	for p, def := range a {
		old, ok := b[p]
		switch {
		case !ok && !parentIn(p, a, b):
			added = append(added, p)
		case ok && old != def && def != openField && old != openField:
			defaults = append(defaults, fmt.Sprintf("%s (%s → %s)", p, orNone(old), orNone(def)))
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok && !parentIn(p, b, a) && !underOpen(p, a) {
			removed = append(removed, p)
		}
	}
	var out []string
	for _, l := range []struct {
		what string
		list []string
	}{{"gains", added}, {"opens", opened}, {"loses", removed}, {"defaults differently", defaults}} {
		if len(l.list) > 0 {
			out = append(out, l.what+" "+listed(l.list))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return kind + " " + strings.Join(out, "; ")
}

// parentIn reports whether a parent of p is in has but not in lacks: then p is new (or gone)
// with its parent, which is named instead.
func parentIn(p string, has, lacks map[string]string) bool {
	for _, parent := range parents(p) {
		if _, ok := has[parent]; ok {
			if _, there := lacks[parent]; !there {
				return true
			}
		}
	}
	return false
}

// underOpen reports whether a parent of p takes any field in schema (a free-form object).
func underOpen(p string, schema map[string]string) bool {
	return slices.ContainsFunc(parents(p), func(parent string) bool { return schema[parent] == openField })
}

// parents are the property paths above p, nearest first (a list's items are their list).
func parents(p string) []string {
	var out []string
	for i := strings.LastIndexByte(p, '.'); i > 0; i = strings.LastIndexByte(p[:i], '.') {
		out = append(out, strings.TrimSuffix(p[:i], "[]"))
	}
	return out
}

// openField marks a free-form object (x-kubernetes-preserve-unknown-fields) in fieldPaths.
const openField = "(any field)"

// fieldPaths records every property path under spec with its default (JSON, "" without one).
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
