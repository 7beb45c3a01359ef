// Package nodepool holds the NodePool settings that are not about instance types (labels,
// taints, disruption, limits, weight, replicas) and their validation, mirroring the NodePool
// CRD's schema and CEL rules. Pure: no Terraform, no AWS SDK.
package nodepool

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Consolidation policies.
const (
	PolicyWhenEmptyOrUnderutilized = "WhenEmptyOrUnderutilized"
	PolicyWhenEmpty                = "WhenEmpty"
	PolicyBalanced                 = "Balanced"
	// PolicyWhenUnderutilized is the v1beta1 name, refused with the v1 name as the fix.
	PolicyWhenUnderutilized = "WhenUnderutilized"
)

// Budget is one disruption budget.
type Budget struct {
	Nodes    string   `tfsdk:"nodes"`
	Reasons  []string `tfsdk:"reasons"`
	Schedule string   `tfsdk:"schedule"`
	Duration string   `tfsdk:"duration"`
}

// Spec is the node pool as the user wrote it, without requirements (validated by the
// requirements package) and without the node class.
type Spec struct {
	Name string
	// Object are the NodePool's own labels and annotations.
	Object                 manifest.ObjectMetadata
	Labels                 map[string]string
	Annotations            map[string]string
	Taints, StartupTaints  []manifest.Taint
	Requirements           []requirements.Requirement
	ExpireAfter            string
	TerminationGracePeriod string
	ConsolidationPolicy    string
	ConsolidateAfter       string
	Budgets                []Budget
	Limits                 map[string]string
	Weight                 *int
	Replicas               *int
	Launcher               *string
	Spread                 *string
}

// Problem is an error or a warning at an attribute path of the node pool (the empty path is
// the pool as a whole).
type Problem = attrpath.Finding

var (
	nillableDurRE = regexp.MustCompile(`^(([0-9]+(s|m|h))+|Never)$`)
	durationRE    = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	budgetNodesRE = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	budgetDurRE   = regexp.MustCompile(`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`)
	quantityRE    = regexp.MustCompile(`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`)
	budgetReasons = map[string]bool{"Underutilized": true, "Empty": true, "Drifted": true}
	policies      = map[string]bool{PolicyWhenEmptyOrUnderutilized: true, PolicyWhenEmpty: true, PolicyBalanced: true}
)

// launcherProblems: a launcher is a static pool's choice.
func launcherProblems(s Spec) []Problem {
	var out []Problem
	if s.Launcher != nil && s.Replicas == nil {
		out = append(out, Problem{Path: attrpath.Of("launcher"), Message: "launcher chooses who launches a static pool's nodes and needs replicas: " +
			"Karpenter launches a dynamic pool's nodes itself; remove launcher or set replicas"})
	}
	if s.Spread != nil && (s.Replicas == nil || s.Launcher == nil || *s.Launcher != LauncherKarpenter) {
		out = append(out, Problem{Path: attrpath.Of("spread"), Message: "spread = \"zones\" splits the replicas of a static pool that " +
			"Karpenter launches over one NodePool per zone, and needs replicas with launcher = \"karpenter\" (the provider's own " +
			"launcher already spreads its nodes over the zones; Karpenter spreads a dynamic pool's by its scheduling)"})
	}
	return out
}

// Validate returns the problems of a pool's own settings.
func Validate(s Spec) (errs []Problem) {
	add := func(p attrpath.Path, format string, args ...any) {
		errs = append(errs, Problem{Path: p, Message: fmt.Sprintf(format, args...)})
	}

	errs = append(errs, launcherProblems(s)...)
	if msgs := validation.IsDNS1123Subdomain(s.Name); len(msgs) > 0 {
		add(attrpath.Of("name"), "%q is not a valid Kubernetes object name (lower-case DNS subdomain): %s", s.Name, strings.Join(msgs, "; "))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		p := attrpath.Of("template", "labels").Key(k)
		for _, msg := range requirements.LabelKeyProblems(k) {
			add(p, "%s", msg)
		}
		if msg := requirements.LabelValueProblem(s.Labels[k]); msg != "" {
			add(p, "%s", msg)
		}
	}
	if s.ExpireAfter != "" && !nillableDurRE.MatchString(s.ExpireAfter) {
		add(attrpath.Of("template", "expire_after"), "%q is not a duration like 720h or Never", s.ExpireAfter)
	}
	if s.TerminationGracePeriod != "" && !durationRE.MatchString(s.TerminationGracePeriod) {
		add(attrpath.Of("template", "termination_grace_period"), "%q is not a duration like 48h", s.TerminationGracePeriod)
	}
	// The v1beta1 name is refused rather than rewritten: Terraform keeps the configured word in
	// state, so a rewrite would leave state and the manifest saying different things.
	if s.ConsolidationPolicy == PolicyWhenUnderutilized {
		add(attrpath.Of("disruption", "consolidation_policy"), "WhenUnderutilized is Karpenter v1beta1's name; the v1 NodePool calls it "+
			"WhenEmptyOrUnderutilized: write that")
	} else if !policies[s.ConsolidationPolicy] {
		add(attrpath.Of("disruption", "consolidation_policy"), "%q is not a consolidation policy; use WhenEmptyOrUnderutilized, WhenEmpty or Balanced", s.ConsolidationPolicy)
	}
	if !nillableDurRE.MatchString(s.ConsolidateAfter) {
		add(attrpath.Of("disruption", "consolidate_after"), "%q is not a duration like 30s or Never", s.ConsolidateAfter)
	}
	for i, b := range s.Budgets {
		p := attrpath.Of("disruption", "budgets").Index(i)
		if b.Nodes != "" && !budgetNodesRE.MatchString(b.Nodes) {
			add(p.Attr("nodes"), "%q is not a node count or a percentage (0-100%%)", b.Nodes)
		}
		for _, r := range b.Reasons {
			if !budgetReasons[r] {
				add(p.Attr("reasons"), "%q is not a disruption reason; use Underutilized, Empty or Drifted", r)
			}
		}
		if (b.Schedule == "") != (b.Duration == "") {
			add(p, "`schedule` and `duration` go together: set both or neither")
		}
		if b.Duration != "" && !budgetDurRE.MatchString(b.Duration) {
			add(p.Attr("duration"), "%q is not a budget duration like 10m or 1h30m", b.Duration)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Limits)) {
		if v := s.Limits[k]; !quantityRE.MatchString(v) || v[0] == '-' {
			add(attrpath.Of("limits").Key(k), "%q is not a non-negative quantity (e.g. 1000, 1000Gi)", v)
		}
	}
	if s.Replicas != nil {
		if *s.Replicas < 0 {
			add(attrpath.Of("replicas"), "must be 0 or more, got %d", *s.Replicas)
		}
		if s.Weight != nil {
			add(attrpath.Of("weight"), "`weight` is not allowed on a static pool (with `replicas`)")
		}
		for _, k := range slices.Sorted(maps.Keys(s.Limits)) {
			if k != "nodes" {
				add(attrpath.Of("limits").Key(k), "a static pool (with `replicas`) may only limit `nodes`")
			}
		}
		if n, ok := s.Limits["nodes"]; ok {
			if limit, err := strconv.Atoi(n); err == nil && *s.Replicas > limit {
				add(attrpath.Of("replicas"), "replicas (%d) exceeds limits.nodes (%d)", *s.Replicas, limit)
			}
		}
	}
	if s.Weight != nil && (*s.Weight < 1 || *s.Weight > 100) {
		add(attrpath.Of("weight"), "must be between 1 and 100, got %d", *s.Weight)
	}
	return errs
}
