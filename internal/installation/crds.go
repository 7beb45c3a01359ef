package installation

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// CRDNames are the CustomResourceDefinitions of the kinds the provider renders, by kind: the
// names Karpenter's charts install them under.
var CRDNames = map[string]string{
	manifest.EC2NodeClassKind: "ec2nodeclasses.karpenter.k8s.aws",
	manifest.NodePoolKind:     "nodepools.karpenter.sh",
	manifest.NodeOverlayKind:  "nodeoverlays.karpenter.sh",
}

// ServedCRD is one of those CRDs as the cluster serves it.
type ServedCRD struct {
	// Kind is the kind the CRD defines (manifest.NodePoolKind …); Name the CRD's name.
	Kind, Name string
	// Missing reports that the cluster has no CRD of that name.
	Missing bool
	// Schemas are the openAPIV3Schema (JSON) of each version the CRD serves, by version ("v1").
	Schemas map[string][]byte
}

// CRDCheck is the cluster's CRDs compared with the embedded ones of karpenter_version, ready to
// judge manifests by. A nil CRDCheck, or a kind whose CRD was not read, checks nothing.
type CRDCheck struct {
	version string
	kinds   map[string]*servedKind
}

// servedKind is what the check knows of one kind's served CRD.
type servedKind struct {
	kind, name string
	// absent says why the cluster cannot hold objects of the kind ("" when it can).
	absent string
	// same: the served schema is karpenter_version's, which the plan's admission already applied.
	same bool
	// guesses are the embedded Karpenter minors whose schema equals the served one, oldest first.
	guesses []string
	// older: the served schema lacks fields karpenter_version's declares (undeclared), or is an
	// older minor's.
	older      bool
	undeclared []manifest.Path
	// crd is the served schema compiled: it prunes and validates as the cluster's API server does.
	crd *manifest.CRD
	// want is karpenter_version's CRD of the kind.
	want *manifest.CRD
}

var pathKarpenterVersion = attrpath.Of("karpenter_version")

// CompareCRDs compares the served CRDs with the embedded CRDs of version (karpenter_version).
// Warnings, once per plan: a served CRD older than version's (it would drop or refuse fields
// the plan admits: manifests that use them fail in Check), and a served schema the check cannot
// read, which leaves that kind unchecked. A missing CRD is no warning here: only a manifest of
// its kind makes it an error (a configuration without NodeOverlays needs no NodeOverlay CRD).
func CompareCRDs(version string, served []ServedCRD) (*CRDCheck, []attrpath.Finding) {
	want, err := manifest.CRDsFor(version)
	if err != nil {
		return nil, []attrpath.Finding{{Path: pathKarpenterVersion, Summary: "Karpenter CRDs not checked", Message: err.Error()}}
	}
	check := &CRDCheck{version: version, kinds: map[string]*servedKind{}}
	var warnings []attrpath.Finding
	for _, s := range served {
		w := want[s.Kind]
		if w == nil {
			continue // not a kind the provider renders
		}
		k, err := compareCRD(version, w, s)
		switch {
		case err != nil:
			warnings = append(warnings, attrpath.Finding{Path: pathKarpenterVersion, Summary: "Karpenter CRD not checked",
				Message: fmt.Sprintf("the cluster's CustomResourceDefinition %s cannot be read as a schema: %v; %s manifests are not "+
					"checked against it", s.Name, err, s.Kind)})
			continue
		case k.older:
			warnings = append(warnings, attrpath.Finding{Path: pathKarpenterVersion, Summary: "Karpenter CRD older than karpenter_version",
				Message: fmt.Sprintf("%s. The plan checks every %s of this configuration against it: a field it would drop or refuse "+
					"is an error on the attribute. %s", k.describe(version, true), s.Kind, k.fix())})
		}
		check.kinds[s.Kind] = k
	}
	return check, warnings
}

// compareCRD reads one served CRD against want, karpenter_version's CRD of its kind.
func compareCRD(version string, want *manifest.CRD, s ServedCRD) (*servedKind, error) {
	k := &servedKind{kind: s.Kind, name: s.Name, want: want}
	if s.Missing {
		k.absent = "the cluster has no CustomResourceDefinition " + s.Name
		return k, nil
	}
	raw, ok := s.Schemas[want.Version]
	if !ok {
		served := cmp.Or(strings.Join(slices.Sorted(maps.Keys(s.Schemas)), ", "), "no version")
		k.absent = fmt.Sprintf("the cluster's CustomResourceDefinition %s does not serve %s (it serves %s)", s.Name, want.APIVersion(), served)
		return k, nil
	}
	var schema apiextensionsv1.JSONSchemaProps
	if err := utiljson.Unmarshal(raw, &schema); err != nil {
		return nil, err
	}
	k.guesses = sameSchema(s.Kind, &schema)
	if slices.Contains(k.guesses, version) {
		k.same = true
		return k, nil
	}
	if len(k.guesses) > 0 {
		// An embedded minor's schema: its compiled CRD is shared with admission, compiled once.
		crds, err := manifest.CRDsFor(k.guesses[len(k.guesses)-1])
		if err != nil {
			return nil, err
		}
		k.crd = crds[s.Kind]
	} else {
		g, v, _ := strings.Cut(want.APIVersion(), "/")
		crd, err := manifest.CompileCRD(g, v, s.Kind, &schema)
		if err != nil {
			return nil, err
		}
		k.crd = crd
	}
	k.undeclared = k.crd.Undeclared(want)
	k.older = len(k.undeclared) > 0 || (len(k.guesses) > 0 && manifest.CompareVersions(k.guesses[len(k.guesses)-1], version) < 0)
	return k, nil
}

// describe says what the served CRD is: "The cluster's NodePool CRD (nodepools.karpenter.sh) is
// Karpenter 1.9's, older than karpenter_version "1.15"" and, with lacks, the fields it lacks.
func (k *servedKind) describe(version string, lacks bool) string {
	what := fmt.Sprintf("The cluster's %s CRD (%s)", k.kind, k.name)
	switch len(k.guesses) {
	case 0:
		what += fmt.Sprintf(" matches no Karpenter release this provider knows (%s to %s; a patch release it does not embed, or an "+
			"edited CRD)", manifest.Versions()[0], manifest.Versions()[len(manifest.Versions())-1])
	case 1:
		what += fmt.Sprintf(" is Karpenter %s's", k.guesses[0])
	default: // releases whose CRD did not change
		what += fmt.Sprintf(" has the schema of Karpenter %s and %s", strings.Join(k.guesses[:len(k.guesses)-1], ", "),
			k.guesses[len(k.guesses)-1])
	}
	if k.older && len(k.guesses) > 0 {
		what += fmt.Sprintf(", older than karpenter_version %q", version)
	}
	if lacks && len(k.undeclared) > 0 {
		names := make([]string, len(k.undeclared))
		for i, p := range k.undeclared {
			names[i] = fieldName(p)
		}
		what += fmt.Sprintf(": it has no %s, which Karpenter %s's declares", strings.Join(names, ", "), version)
	}
	return what
}

// fix is what to do about a served CRD that is not karpenter_version's.
func (k *servedKind) fix() string {
	release := strings.TrimPrefix(k.want.KarpenterVersion, "v")
	out := fmt.Sprintf("Install the CRDs of Karpenter %s first, e.g. with Karpenter's karpenter-crd chart: `helm upgrade --install "+
		"karpenter-crd oci://public.ecr.aws/karpenter/karpenter-crd --version %s --namespace <Karpenter's namespace>` (upgrading the "+
		"karpenter chart leaves the CRDs of its crds/ folder as they were)", release, release)
	if k.older && len(k.guesses) > 0 {
		out += fmt.Sprintf("; or, if the cluster runs Karpenter %s, set karpenter_version = %q", k.guesses[len(k.guesses)-1],
			k.guesses[len(k.guesses)-1])
	}
	return out + "."
}

// fieldName writes a schema field as the API server does, a list's items as [*].
func fieldName(p manifest.Path) string {
	return strings.ReplaceAll(p.String(), "[0]", "[*]")
}

// Check judges doc, a rendered manifest of kind, by the CRD the cluster serves: a missing CRD
// (or one that does not serve the manifest's version) is an error on the resource; each field
// the served schema would drop is an error on its attribute; and, when admitted (the plan's own
// admission against karpenter_version found nothing, so nothing would be said twice), each
// refusal of the served schema's validation.
func (c *CRDCheck) Check(kind, doc string, admitted bool) ([]attrpath.Finding, error) {
	var k *servedKind
	if c != nil {
		k = c.kinds[kind]
	}
	switch {
	case k == nil || k.same:
		return nil, nil
	case k.absent != "":
		return []attrpath.Finding{{Summary: "Karpenter CRD not installed", Message: fmt.Sprintf("%s: the API server would refuse this %s "+
			"(no matches for kind %q in version %q). %s", k.absent, kind, kind, k.want.APIVersion(), k.fix())}}, nil
	}
	dropped, refused, err := k.crd.Store(doc)
	if err != nil {
		return nil, err
	}
	var out []attrpath.Finding
	for _, p := range dropped {
		out = append(out, attrpath.Finding{Path: manifest.AttributePath(kind, p), Summary: "The cluster's " + kind + " CRD lacks this field",
			Message: fmt.Sprintf("%s, and has no %s: the API server would drop it from this %s (or refuse the object, under the strict "+
				"field validation kubectl apply asks for), and Karpenter would run without it. %s", k.describe(c.version, false), p, kind,
				k.fix())})
	}
	if !admitted {
		return out, nil
	}
	for _, v := range refused {
		out = append(out, attrpath.Finding{Path: manifest.AttributePath(kind, v.Field), Summary: "The cluster's " + kind + " CRD would reject it",
			Message: fmt.Sprintf("%s\n\n%s. Its validation refuses this %s, which Karpenter %s's CRD admits. %s", v, k.describe(c.version, false),
				kind, c.version, k.fix())})
	}
	return out, nil
}

// sameSchema are the embedded minors whose kind CRD has the schema served, descriptions aside
// (the embedded ones have none), oldest first.
func sameSchema(kind string, served *apiextensionsv1.JSONSchemaProps) []string {
	got, err := canonical(served)
	if err != nil {
		return nil
	}
	var out []string
	for _, v := range manifest.Versions() {
		if bytes.Equal(embeddedCanonical()[v][kind], got) {
			out = append(out, v)
		}
	}
	return out
}

// embeddedCanonical are the embedded schemas written by canonical, by minor and kind, once per
// process.
var embeddedCanonical = sync.OnceValue(func() map[string]map[string][]byte {
	out := map[string]map[string][]byte{}
	for _, v := range manifest.Versions() {
		schemas, err := manifest.SchemasFor(v)
		if err != nil {
			continue // embedded at build time; a broken version matches nothing
		}
		out[v] = map[string][]byte{}
		for kind, s := range schemas {
			out[v][kind], _ = canonical(s)
		}
	}
	return out
})

// canonical is a schema as JSON without its descriptions, each object's keys sorted: two schemas
// that validate alike write the same bytes however the API server ordered or described them.
func canonical(s *apiextensionsv1.JSONSchemaProps) ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := utiljson.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	return json.Marshal(withoutDescriptions(tree))
}

// withoutDescriptions drops every "description" whose value is text; a property named
// description has a schema (an object) for value and stays.
func withoutDescriptions(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["description"].(string); ok {
			delete(t, "description")
		}
		for key, child := range t {
			t[key] = withoutDescriptions(child)
		}
	case []any:
		for i, child := range t {
			t[i] = withoutDescriptions(child)
		}
	}
	return v
}
