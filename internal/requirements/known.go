package requirements

import (
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// ValidateKnown is Validate without the findings about the requirements in unknown (by index):
// a requirement with a value known only after apply is checked when it is known.
func ValidateKnown(reqs []Requirement, unknown map[int]bool) []attrpath.Finding {
	var known []attrpath.Finding
	for _, f := range Validate(reqs) {
		if steps := f.Path.Steps(); len(steps) == 0 || !unknown[steps[0].Index] {
			known = append(known, f)
		}
	}
	return known
}

// wellKnownDomains are the Kubernetes, Karpenter and AWS label domains (and their subdomains).
var wellKnownDomains = []string{"kubernetes.io", "k8s.io", "karpenter.sh", "karpenter.k8s.aws", "k8s.aws"}

// IsWellKnownDomain reports whether key belongs to a Kubernetes, Karpenter or AWS label domain,
// where a requirement a listing does not evaluate is worth a warning (custom labels are
// silently passed).
func IsWellKnownDomain(key string) bool {
	domain, _, found := strings.Cut(key, "/")
	if !found {
		return false
	}
	for _, d := range wellKnownDomains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}
