package catalog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// The data sources' reads of the catalog: karpenter_instance_types (List, read with prices by
// launchplan.ReadInstanceTypes) and karpenter_pod_capacity (PodCapacity, read by
// ReadPodCapacity). Their findings are on the data sources' attribute paths
// (zones[1], requirements[0].min_values, instance_type).

var (
	pathZones        = attrpath.Of("zones")
	pathRequirements = attrpath.Of("requirements")
	pathInstanceType = attrpath.Of("instance_type")
)

// CheckZoneNames checks the configured zones: an empty name (a null entry arrives as "") and a
// repeated one are errors on the entry. The entries in unknown (by index) are known only after
// apply and left alone.
func CheckZoneNames(zones []string, unknown map[int]bool) []attrpath.Finding {
	var errs []attrpath.Finding
	seen := map[string]bool{}
	for i, z := range zones {
		switch {
		case unknown[i]:
		case strings.TrimSpace(z) == "":
			errs = append(errs, attrpath.Finding{Path: pathZones.Index(i), Summary: "Invalid zone", Message: "zone names must not be empty"})
		case seen[z]:
			errs = append(errs, attrpath.Finding{Path: pathZones.Index(i), Summary: "Duplicate zone", Message: fmt.Sprintf("zone %q is listed twice", z)})
		default:
			seen[z] = true
		}
	}
	return errs
}

// CheckZones reports each of zones (the zones attribute) that no instance type is offered in.
func (c *Catalog) CheckZones(region string, zones []string) []attrpath.Finding {
	var errs []attrpath.Finding
	for i, z := range zones {
		if !c.HasZone(z) {
			errs = append(errs, attrpath.Finding{Path: pathZones.Index(i), Summary: "Unknown availability zone",
				Message: fmt.Sprintf("%q is not an availability zone of %s with instance type offerings. The region's zones are: %s.",
					z, region, strings.Join(c.Zones(), ", "))})
		}
	}
	return errs
}

// ListQuery is one karpenter_instance_types read.
type ListQuery struct {
	Requirements []requirements.Requirement
	// Zones limit the offerings (none: every zone); each must be one of the catalog's.
	Zones    []string
	Region   string
	Settings capacity.Settings
	// WindowsBuild is the node.kubernetes.io/windows-build of the settings' AMI family ("" for
	// the Linux families).
	WindowsBuild string
}

// Listed is one listed type with its pod capacity under the query's settings.
type Listed struct {
	Selected
	Capacity capacity.Result
}

// TypeOutput is one `instance_types` entry of karpenter_instance_types, shaped as its schema
// (the provider encodes it by the tfsdk tags). The prices are launchplan's to add
// (InstanceTypes): nil is "no price".
type TypeOutput struct {
	Name           string            `tfsdk:"name"`
	VCPU           int               `tfsdk:"vcpu"`
	MemoryMiB      int               `tfsdk:"memory_mib"`
	Architecture   string            `tfsdk:"architecture"`
	Hypervisor     string            `tfsdk:"hypervisor"`
	Zones          []string          `tfsdk:"zones"`
	MaxENIs        int               `tfsdk:"max_enis"`
	IPv4PerENI     int               `tfsdk:"ipv4_per_eni"`
	EFASupported   bool              `tfsdk:"efa_supported"`
	NetworkCards   int               `tfsdk:"network_cards"`
	Labels         map[string]string `tfsdk:"labels"`
	ENILimitedPods int               `tfsdk:"eni_limited_pods"`
	MaxPods        int               `tfsdk:"max_pods"`
	OnDemandPrice  *float64          `tfsdk:"on_demand_price"`
	SpotPrice      *float64          `tfsdk:"spot_price"`
}

// Output is the listed type as an `instance_types` entry, without prices. A type offered in
// none of the zones has an empty (not a null) `zones`; `labels` is never null either.
func (l Listed) Output() TypeOutput {
	it := l.Type
	zones, labels := l.Zones, l.Labels
	if zones == nil {
		zones = []string{}
	}
	if labels == nil {
		labels = map[string]string{}
	}
	return TypeOutput{
		Name: it.Name, VCPU: it.VCPUs, MemoryMiB: it.MemoryMiB, Architecture: it.KubeArch(), Hypervisor: it.Hypervisor,
		Zones: zones, MaxENIs: it.MaxENIs, IPv4PerENI: it.IPv4PerENI, EFASupported: it.EFASupported,
		NetworkCards: len(it.NetworkCards), Labels: labels,
		ENILimitedPods: l.Capacity.ENILimitedPods, MaxPods: l.Capacity.MaxPods,
	}
}

// Listing is the outcome of List: nothing but Errors when the query cannot be answered.
type Listing struct {
	Types            []Listed // sorted by name
	Errors, Warnings []attrpath.Finding
}

// List selects the instance types the requirements allow in the zones, as Select does, with
// the OS of the settings' AMI family, and computes each one's pod capacity. A type whose
// capacity cannot be computed is left out with a warning; so is, with a warning, a requirement
// on a well-known label the catalog does not evaluate.
func (c *Catalog) List(q ListQuery) Listing {
	if errs := c.CheckZones(q.Region, q.Zones); len(errs) > 0 {
		return Listing{Errors: errs}
	}
	opts := SelectOptions{Region: q.Region, Zones: q.Zones}
	if capacity.IsWindows(capacity.ResolveFamily(q.Settings.AMIFamily)) {
		opts.OS, opts.WindowsBuild = "windows", q.WindowsBuild
	}
	sel, err := c.Select(q.Requirements, opts)
	var mv *requirements.MinValuesError
	if errors.As(err, &mv) {
		return Listing{Errors: []attrpath.Finding{{Path: pathRequirements.Index(mv.Index).Attr("min_values"), Summary: "min_values not satisfied",
			Message: fmt.Sprintf("The matching instance types offer %d distinct value(s) of %q but min_values is %d. "+
				"Loosen the other requirements or lower min_values.", mv.Got, mv.Key, mv.Want)}}}
	} else if err != nil {
		return Listing{Errors: []attrpath.Finding{{Summary: "Cannot evaluate requirements", Message: err.Error()}}}
	}
	var l Listing
	for _, i := range sel.Ignored {
		if key := q.Requirements[i].Key; requirements.IsWellKnownDomain(key) {
			l.Warnings = append(l.Warnings, attrpath.Finding{Path: pathRequirements.Index(i).Attr("key"), Summary: "Requirement not evaluated",
				Message: fmt.Sprintf("%q is not an instance-type label this data source evaluates (it needs node class or launch "+
					"state, such as subnets or placement groups), so it does not narrow the list. Karpenter still applies it.", key)})
		}
	}
	dropped := capacity.Dropped{}
	for _, st := range sel.Types {
		r, err := capacity.Compute(ToNetwork(st.Type), q.Settings)
		if err != nil {
			dropped.Add(st.Type.Name, err)
			continue
		}
		l.Types = append(l.Types, Listed{Selected: st, Capacity: r})
	}
	l.Warnings = append(l.Warnings, dropped.Findings()...)
	return l
}

// CheckTypeName reports an instance_type that names nothing.
func CheckTypeName(name string) []attrpath.Finding {
	if strings.TrimSpace(name) != "" {
		return nil
	}
	return []attrpath.Finding{{Path: pathInstanceType, Summary: "Missing instance type",
		Message: "instance_type must name an EC2 instance type, e.g. \"m5.large\"."}}
}

// Lookup finds name, or reports it on instance_type with the closest names.
func (c *Catalog) Lookup(name, region string) (*InstanceType, []attrpath.Finding) {
	if it, ok := c.Get(name); ok {
		return it, nil
	}
	msg := fmt.Sprintf("%q is not an EC2 instance type in %s (%d types known).", name, region, c.Len())
	if s := c.Suggest(name, 5); len(s) > 0 {
		msg += " Did you mean " + quoteJoin(s) + "?"
	}
	return nil, []attrpath.Finding{{Path: pathInstanceType, Summary: "Unknown instance type", Message: msg}}
}

// quoteJoin writes names as `"a", "b" or "c"`.
func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// PodCapacity is the pod capacity of instance type name under s (karpenter_pod_capacity):
// errors when the catalog has no such type or its capacity cannot be computed, else the
// result's caveats as warnings.
func (c *Catalog) PodCapacity(name, region string, s capacity.Settings) (r capacity.Result, errs, warnings []attrpath.Finding) {
	it, errs := c.Lookup(name, region)
	if it == nil {
		return capacity.Result{}, errs, nil
	}
	r, err := capacity.Compute(ToNetwork(it), s)
	if err != nil {
		return capacity.Result{}, capacity.ComputeFindings(it.Name, s, err), nil
	}
	return r, nil, r.WarningFindings(it.Name)
}
