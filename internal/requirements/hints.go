package requirements

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// knownValues are the values nodes carry for well-known labels whose values Kubernetes names
// itself, with the names people reach for instead (the kernel's and the catalog's architecture
// names): a requirement value outside them matches no node. The API server accepts any value,
// so a hint is a warning.
var knownValues = map[string]struct {
	values   []string
	synonyms map[string]string
}{
	LabelArch: {values: []string{"amd64", "arm64"}, synonyms: map[string]string{
		"x86_64": "amd64", "x86-64": "amd64", "x64": "amd64", "x86": "amd64", "intel": "amd64", "amd": "amd64",
		"aarch64": "arm64", "arm": "arm64", "armv8": "arm64", "arm64v8": "arm64", "graviton": "arm64",
	}},
	LabelOS: {values: []string{"linux", "windows"}},
}

// ValueHints are warnings for In and NotIn values of well-known labels that no node carries
// (kubernetes.io/arch "x86_64": nodes say "amd64"), each naming the value meant, at
// [i].values.
func ValueHints(reqs []Requirement) []attrpath.Finding {
	var out []attrpath.Finding
	for i, r := range reqs {
		known, ok := knownValues[r.Key]
		if !ok || (r.Operator != OpIn && r.Operator != OpNotIn) {
			continue
		}
		for _, v := range r.Values {
			if slices.Contains(known.values, v) {
				continue
			}
			msg := fmt.Sprintf("no node carries %s=%s: its values are %s, so this value matches nothing", r.Key, quoteShort(v),
				strings.Join(known.values, " and "))
			meant := known.synonyms[strings.ToLower(v)]
			if meant == "" {
				meant = suggest(v, known.values, 3)
			}
			if meant != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", meant)
			}
			out = append(out, attrpath.Finding{Path: attrpath.Path{}.Index(i).Attr(FieldValues), Message: msg})
		}
	}
	return out
}
