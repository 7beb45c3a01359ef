package capacity

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// The findings here are on the attribute names of the data sources that take Settings as
// inputs (karpenter_pod_capacity, karpenter_instance_types): kubelet_max_pods,
// network_interfaces[1], instance_type.

// inputNames are the data sources' names of the settings ValidateSettings names otherwise (as
// the node class's kubelet block does); the other settings share their names.
var inputNames = map[string]string{"max_pods": "kubelet_max_pods", "pods_per_core": "kubelet_pods_per_core"}

// InputFindings are ValidateSettings' findings on the data sources' attributes, each under the
// summary "Invalid <attribute>".
func InputFindings(s Settings) []attrpath.Finding {
	errs := ValidateSettings(s)
	for i, f := range errs {
		errs[i] = asInput(f)
	}
	return errs
}

// asInput renames a ValidateSettings finding's setting to the data sources' attribute.
func asInput(f attrpath.Finding) attrpath.Finding {
	steps := f.Path.Steps()
	if len(steps) == 0 {
		return f
	}
	name := steps[0].Name
	if n, ok := inputNames[name]; ok {
		name = n
	}
	f.Path = attrpath.Of(name).Join(f.Path.Tail())
	f.Summary = "Invalid " + name
	return f
}

// ComputeFindings are the errors of a Compute failure for instance type name under s, on the
// attribute the user can change to fix it.
func ComputeFindings(name string, s Settings, err error) []attrpath.Finding {
	var fe attrpath.Finding
	f := attrpath.Finding{Message: err.Error()}
	switch {
	case errors.Is(err, ErrIncompatible):
		f.Path, f.Summary = attrpath.Of("network_interfaces"), "Network interfaces do not fit "+name
		f.Message += ". Karpenter would not launch this instance type with these network interfaces."
	case errors.Is(err, ErrNoPodENI):
		f.Path, f.Summary = noPodENIPath(s), "No ENI left for pods on "+name
	case errors.Is(err, ErrInvalidNetwork):
		f.Path, f.Summary = attrpath.Of("instance_type"), "Incomplete EC2 data for "+name
	case errors.Is(err, ErrAutoModeUnsupported):
		f.Path, f.Summary = attrpath.Of("instance_type"), name+" is not available in EKS Auto Mode"
		f.Message += " (https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html)."
	case errors.As(err, &fe):
		f = asInput(fe)
	default:
		f.Summary = "Cannot compute pod capacity for " + name
	}
	return []attrpath.Finding{f}
}

// noPodENIPath is the input most likely to blame when every default-card ENI is taken.
func noPodENIPath(s Settings) attrpath.Path {
	switch {
	case s.AutoMode != nil:
		return attrpath.Of("auto_mode", "pod_subnets")
	case s.ReservedENIs > 0:
		return attrpath.Of("reserved_enis")
	case len(s.NetworkInterfaces) > 0:
		return attrpath.Of("network_interfaces")
	case s.CustomNetworking:
		return attrpath.Of("custom_networking")
	default:
		return attrpath.Of("security_groups_for_pods")
	}
}

// WarningFindings are the result's caveats as warnings about instance type name.
func (r Result) WarningFindings(name string) []attrpath.Finding {
	out := make([]attrpath.Finding, len(r.Warnings))
	for i, w := range r.Warnings {
		out[i] = attrpath.Finding{Summary: "Pod capacity of " + name, Message: w}
	}
	return out
}

// Dropped gathers the instance types a listing leaves out because Compute failed for them,
// by a short, countable reason.
type Dropped map[string][]string

// Add counts instance type name, which Compute failed for with err.
func (d Dropped) Add(name string, err error) {
	reason := dropReason(err)
	d[reason] = append(d[reason], name)
}

// dropReason is a short, countable reason for dropping a type from a listing.
func dropReason(err error) string {
	switch {
	case errors.Is(err, ErrIncompatible):
		return "network_interfaces do not fit"
	case errors.Is(err, ErrNoPodENI):
		return "no ENI left for pods"
	case errors.Is(err, ErrInvalidNetwork):
		return "incomplete EC2 network data"
	case errors.Is(err, ErrAutoModeUnsupported):
		return "not available in EKS Auto Mode"
	}
	return "other error"
}

// Findings is the one warning naming the dropped types by reason (up to 8 per reason), or none.
func (d Dropped) Findings() []attrpath.Finding {
	if len(d) == 0 {
		return nil
	}
	n := 0
	for _, names := range d {
		n += len(names)
	}
	summary := fmt.Sprintf("%d instance types left out: no pod capacity under these settings", n)
	if n == 1 {
		summary = "1 instance type left out: no pod capacity under these settings"
	}
	var b strings.Builder
	b.WriteString("These types match the requirements but their pod capacity cannot be computed with these CNI inputs, " +
		"so they are not listed:\n")
	for _, reason := range slices.Sorted(maps.Keys(d)) {
		names := d[reason]
		shown := names[:min(len(names), 8)]
		more := ""
		if len(names) > len(shown) {
			more = fmt.Sprintf(", ... (%d more)", len(names)-len(shown))
		}
		fmt.Fprintf(&b, "- %d: %s (%s%s)\n", len(names), reason, strings.Join(shown, ", "), more)
	}
	return []attrpath.Finding{{Summary: summary, Message: strings.TrimRight(b.String(), "\n")}}
}
