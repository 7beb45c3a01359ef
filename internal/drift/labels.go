package drift

import (
	"fmt"
	"slices"
	"sort"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Requirement drift on labels the catalog does not decide. Karpenter's RequirementsDrifted
// reads the NodeClaim's labels against the NodePool's requirements (the core's
// areRequirementsDrifted: the labels' requirements must be Compatible with the pool's, no label
// allowed to be undefined): a label must be on the node and meet the requirements on its key,
// unless those merge to NotIn or DoesNotExist. The instance type, zone and capacity type are judged through what
// the requirements allow of the catalog (Side.InstanceTypes, Zones, CapacityTypes); this file
// judges the rest: custom labels and tenancy, an offering's label the catalog cannot narrow to a
// type.

// Labels are what a pool's requirements and template say of the labels Karpenter puts on its
// nodes, for the label checks.
type Labels struct {
	Requirements []requirements.Requirement
	// Template are spec.template.metadata.labels, on every node.
	Template map[string]string
}

// tenancies are the values of karpenter.k8s.aws/instance-tenancy.
var tenancies = []string{"default", "dedicated"}

// numbered stands for the value Karpenter gives a custom label whose requirement is not In: a
// random integer within the requirement's bounds (Requirement.Any), unknown to the plan.
const numbered = "\x00a number Karpenter picks"

// labelKey reports whether a pool's requirements on key are judged here: custom labels and
// tenancy.
func labelKey(key string) bool {
	return key == requirements.LabelInstanceTenancy || custom(key)
}

// nodeValues are the values a node of the pool may carry for key, from the labels as they were:
// nil when no node carries the label.
func (l Labels) nodeValues(key string) []string {
	if v, ok := l.Template[key]; ok {
		return []string{v}
	}
	on := requirements.OnKey(l.Requirements, key)
	if key == requirements.LabelInstanceTenancy {
		return requirements.AllowedValues(on, key, tenancies)
	}
	if len(on) == 0 {
		return nil
	}
	in, hasIn := requirements.InValues(on)
	switch {
	case slices.ContainsFunc(on, func(r requirements.Requirement) bool { return r.Operator == requirements.OpDoesNotExist }):
		return nil
	case hasIn:
		return requirements.AllowedValues(on, key, in)
	default:
		return []string{numbered}
	}
}

// custom reports whether key is a custom label: outside the well-known label domains.
func custom(key string) bool { return !requirements.IsWellKnownDomain(key) }

// meets reports whether a node carrying value for key (none when value is "") meets the
// requirements of reqs on key, as Karpenter's Compatible reads it.
func meets(reqs []requirements.Requirement, key, value string) bool {
	on := requirements.OnKey(reqs, key)
	switch {
	case len(on) == 0:
		return true
	case value == "":
		return requirements.AbsentAllowed(on)
	case value == numbered:
		// Karpenter's number is not one of a list of names, nor absent.
		return !slices.ContainsFunc(on, func(r requirements.Requirement) bool {
			return r.Operator == requirements.OpIn || r.Operator == requirements.OpDoesNotExist
		})
	}
	return requirements.MatchesAll(on, map[string]string{key: value})
}

// keysOf are the distinct keys of reqs that keep accepts, in their order.
func keysOf(reqs []requirements.Requirement, keep func(key string) bool) []string {
	var keys []string
	for _, r := range reqs {
		if keep(r.Key) && !slices.Contains(keys, r.Key) {
			keys = append(keys, r.Key)
		}
	}
	return keys
}

// labelsFinding is requirement drift on custom labels and tenancy: the label values the prior
// pool's nodes carry that the planned requirements refuse.
func labelsFinding(prior, planned Labels) (gone []string, all bool) {
	keys := keysOf(planned.Requirements, labelKey)
	sort.Strings(keys)
	for _, k := range keys {
		values := prior.nodeValues(k)
		if len(values) == 0 {
			values = []string{""}
		}
		refused := 0
		for _, v := range values {
			if !meets(planned.Requirements, k, v) {
				refused++
				gone = append(gone, describeLabel(k, v))
			}
		}
		all = all || refused == len(values)
	}
	return gone, all
}

// describeLabel names a label value for a finding: "example.com/team=a", "example.com/team
// (absent)".
func describeLabel(key, value string) string {
	switch value {
	case "":
		return key + " (absent)"
	case numbered:
		return key + " (Karpenter's number)"
	}
	return key + "=" + value
}

func labelsDetail(gone []string) string {
	return fmt.Sprintf("nodes with %s", list("label", gone))
}
