package manifest

import (
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// DefaultVersion is the Karpenter minor manifests are rendered and admitted for when the
// provider's karpenter_version is not set: the newest one embedded (a test keeps them equal).
const DefaultVersion = "1.15"

// Versions are the Karpenter minors whose CRDs are embedded, oldest first ("1.9" … "1.15"):
// one folder crds/v<minor> each.
var Versions = sync.OnceValue(func() []string {
	entries, err := fs.ReadDir(crdFiles, "crds")
	if err != nil {
		panic(err) // embedded at build time
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "v") {
			out = append(out, strings.TrimPrefix(e.Name(), "v"))
		}
	}
	slices.SortFunc(out, CompareVersions)
	return out
})

// MinorOf is the "v<major>.<minor>" of a release name: MinorOf("v1.15.2") = "v1.15".
func MinorOf(release string) string {
	parts := strings.SplitN(strings.TrimPrefix(release, "v"), ".", 3)
	if len(parts) < 2 {
		return "v" + strings.TrimPrefix(release, "v")
	}
	return "v" + parts[0] + "." + parts[1]
}

// CompareVersions orders "1.9" before "1.10" (numeric per part); for slices.SortFunc.
func CompareVersions(a, b string) int {
	pa, pb := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, errX := strconv.Atoi(pa[i])
		y, errY := strconv.Atoi(pb[i])
		if errX != nil || errY != nil {
			if c := strings.Compare(pa[i], pb[i]); c != 0 {
				return c
			}
			continue
		}
		if x != y {
			return x - y
		}
	}
	return len(pa) - len(pb)
}

// AtLeast reports whether version (a minor, "1.12") is min or newer.
func AtLeast(version, minVersion string) bool { return CompareVersions(version, minVersion) >= 0 }

// FirstVersionWith is the oldest embedded minor whose kind CRD declares the field at path (a
// field below one that preserves unknown fields counts as declared), and the release that
// minor's data came from; false when no embedded version has it.
func FirstVersionWith(kind string, field Path) (minor, release string, ok bool) {
	for _, v := range Versions() {
		set, err := uncompiled(v)
		if err != nil || set[kind] == nil {
			continue
		}
		if declares(set[kind].structural, field) {
			return v, set[kind].release, true
		}
	}
	return "", "", false
}

// declares reports whether a CRD's structural schema has a node at field.
func declares(node *structuralschema.Structural, field Path) bool {
	for _, s := range field {
		if node == nil {
			return false
		}
		if node.XPreserveUnknownFields {
			return true
		}
		switch s.Kind {
		case IndexStep:
			node = node.Items
		case KeyStep:
			if node.AdditionalProperties == nil || node.AdditionalProperties.Structural == nil {
				return node.AdditionalProperties != nil && node.AdditionalProperties.Bool
			}
			node = node.AdditionalProperties.Structural
		default:
			child, ok := node.Properties[s.Name]
			if !ok {
				return false
			}
			node = &child
		}
	}
	return node != nil
}

// unknownFieldMessage is strict field validation's refusal of a field the schema of version
// lacks, naming the first embedded version that declares it.
func unknownFieldMessage(kind, raw string, field Path, version string) string {
	msg := fmt.Sprintf("unknown field %q", raw)
	if kind == AutoModeNodeClassKind {
		return msg + ": the EKS user guide documents no such field of the Auto Mode NodeClass"
	}
	minor, release, ok := FirstVersionWith(kind, field)
	switch {
	case ok && CompareVersions(minor, version) > 0:
		return fmt.Sprintf("%s: Karpenter %s's %s has no %s; it first appears in Karpenter %s (%s's CRD). Set the provider's "+
			"karpenter_version to %q or newer if the cluster runs it, or remove the setting.", msg, version, kind, field, minor, release, minor)
	case !ok:
		return msg + fmt.Sprintf(": no supported Karpenter version (%s to %s) declares it", Versions()[0], Versions()[len(Versions())-1])
	}
	return msg
}

// DifferentialGroup is the API group a minor's copy of a Karpenter CRD is installed under on the
// test API server (cmd/k8s-crds -differential): DifferentialGroup("karpenter.sh", "1.9") =
// "v1-9.karpenter.sh". The validator differential sends each version's documents there.
func DifferentialGroup(group, version string) string {
	return "v" + strings.ReplaceAll(version, ".", "-") + "." + group
}

// uncompiledCRD is an embedded CRD read without compiling validators or CEL rules (CRDsFor does
// that, for admission): what walking or defaulting the schema needs, at a fraction of the memory.
type uncompiledCRD struct {
	schema     *apiextensionsv1.JSONSchemaProps
	structural *structuralschema.Structural
	release    string // the Karpenter release the file came from
}

// uncompiledSets reads each version's CRDs once per process, on first use.
var uncompiledSets = sync.OnceValue(func() map[string]func() (map[string]*uncompiledCRD, error) {
	out := map[string]func() (map[string]*uncompiledCRD, error){}
	for _, v := range Versions() {
		out[v] = sync.OnceValues(func() (map[string]*uncompiledCRD, error) { return readUncompiled(v) })
	}
	return out
})

func uncompiled(version string) (map[string]*uncompiledCRD, error) {
	load, ok := uncompiledSets()[version]
	if !ok {
		return nil, fmt.Errorf("no CRDs for Karpenter %q; supported: %s", version, strings.Join(Versions(), ", "))
	}
	return load()
}

func readUncompiled(version string) (map[string]*uncompiledCRD, error) {
	dir := "crds/v" + version
	entries, err := crdFiles.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]*uncompiledCRD{}
	for _, e := range entries {
		raw, err := crdFiles.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return nil, err
		}
		var f GeneratedFile
		if err := utiljson.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, e.Name(), err)
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(f.Schema, &internal, nil); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, e.Name(), err)
		}
		st, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: not a structural schema: %w", dir, e.Name(), err)
		}
		out[f.Kind] = &uncompiledCRD{schema: f.Schema, structural: st, release: f.Source.KarpenterVersion}
	}
	return out, nil
}

// SchemasFor returns the openAPIV3Schema of each embedded CRD of a Karpenter minor by kind, read
// without compiling validators or CEL rules.
func SchemasFor(version string) (map[string]*apiextensionsv1.JSONSchemaProps, error) {
	set, err := uncompiled(version)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*apiextensionsv1.JSONSchemaProps, len(set))
	for kind, c := range set {
		out[kind] = c.schema
	}
	return out, nil
}

// StructuralsFor returns the structural schema of each embedded CRD of a Karpenter minor by
// kind (pruning and defaulting need no more), read without compiling validators or CEL rules.
func StructuralsFor(version string) (map[string]*structuralschema.Structural, error) {
	set, err := uncompiled(version)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*structuralschema.Structural, len(set))
	for kind, c := range set {
		out[kind] = c.structural
	}
	return out, nil
}

// InDifferentialGroup is a rendered EC2NodeClass, NodePool or NodeOverlay moved to version's
// differential group (its apiVersion rewritten), for the copy of that version's CRDs on the
// test API server.
func InDifferentialGroup(doc, version string) string {
	for _, apiVersion := range []string{EC2NodeClassAPIVersion, NodePoolAPIVersion, NodeOverlayAPIVersion} {
		g, v, _ := strings.Cut(apiVersion, "/")
		doc = strings.Replace(doc, "apiVersion: "+apiVersion+"\n", "apiVersion: "+DifferentialGroup(g, version)+"/"+v+"\n", 1)
	}
	return doc
}
