package manifest

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// fieldRenames are CRD field names whose attribute name is not the plain snake_case spelling.
var fieldRenames = map[string]string{
	"httpProtocolIPv6": "http_protocol_ipv6",
	"nodeClassRef":     "node_class",
}

// SnakeCase spells a CRD field name the way the provider's attributes do:
// associatePublicIPAddress → associate_public_ip_address, kmsKeyID → kms_key_id.
func SnakeCase(name string) string {
	if r, ok := fieldRenames[name]; ok {
		return r
	}
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prevLower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// AttributePath maps a field of a rendered manifest of kind (EC2NodeClass or NodePool) onto the
// resource attribute that produced it: metadata.name → name; EC2NodeClass spec.X → X;
// NodePool spec.template.spec.X and spec.template.metadata.X → template.X, nodeClassRef →
// node_class, other spec.X → X. Names become snake_case, indexes and map keys stay. A field
// that no single attribute produced (spec itself, the object root) maps to the empty path,
// the resource as a whole.
func AttributePath(kind string, field Path) attrpath.Path {
	rest, out := field, attrpath.Path{}
	switch {
	case hasFields(rest, "metadata", "name"):
		return attrpath.Of("name")
	case hasFields(rest, "metadata", "labels") || hasFields(rest, "metadata", "annotations"):
		rest, out = rest[1:], attrpath.Of("metadata")
	case kind == NodePoolKind && (hasFields(rest, "spec", "template", "spec") || hasFields(rest, "spec", "template", "metadata")):
		rest, out = rest[3:], attrpath.Of("template")
		if len(rest) > 0 && rest[0].Name == "nodeClassRef" {
			return attrpath.Of("node_class")
		}
	case hasFields(rest, "spec"):
		rest = rest[1:]
	default:
		return out
	}
	for _, s := range rest {
		switch s.Kind {
		case IndexStep:
			out = out.Index(s.Index)
		case KeyStep:
			out = out.Key(s.Name)
		default:
			out = out.Attr(SnakeCase(s.Name))
		}
	}
	return out
}

func hasFields(p Path, names ...string) bool {
	if len(p) < len(names) {
		return false
	}
	for i, n := range names {
		if p[i].Kind != FieldStep || p[i].Name != n {
			return false
		}
	}
	return true
}

// Findings are what the API server (admission) and Karpenter's controller (runtime) refuse in a
// manifest of kind, each on the attribute that produced the field, quoting the refusal and
// saying who refuses it.
func Findings(version, kind string, admission, runtime []Violation) []attrpath.Finding {
	var out []attrpath.Finding
	against := func() string {
		if kind == AutoModeNodeClassKind {
			return fmt.Sprintf("AWS publishes no CRD for the EKS Auto Mode %s: the provider admits it against a schema written from "+
				"the EKS user guide's rules (%s), which this manifest breaks.", kind, AutoModeSchemaFile)
		}
		crd, err := CRDFor(version, kind) // loaded by the admission that found the violations
		if err != nil {
			return "The API server would refuse this manifest at `kubectl apply`."
		}
		return fmt.Sprintf("The API server validates a %s against Karpenter's CRD (%s, Karpenter %s, the provider's "+
			"karpenter_version %q) and would refuse this manifest at `kubectl apply`.", kind, crd.APIVersion(), crd.KarpenterVersion, version)
	}()
	for _, v := range admission {
		detail := fmt.Sprintf("%s\n\n%s", v, against)
		out = append(out, attrpath.Finding{Path: AttributePath(kind, v.Field), Summary: "Kubernetes would reject the " + kind, Message: detail})
	}
	if len(admission) > 0 {
		return out // the controller never sees what the API server refuses
	}
	for _, v := range runtime {
		detail := fmt.Sprintf("%s\n\nThe API server accepts this manifest, but Karpenter %s validates a %s again at runtime and would not "+
			"use it: the %s would show a failed validation condition and launch nothing.", v, version, kind, kind)
		out = append(out, attrpath.Finding{Path: AttributePath(kind, v.Field), Summary: "Karpenter would refuse the " + kind, Message: detail})
	}
	return out
}
