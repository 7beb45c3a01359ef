package catalog

import (
	"context"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

// Source is where the data sources' reads find the region's catalog (awsclient.Client).
type Source interface {
	Catalog(context.Context) (*Catalog, error)
}

// Load reads the catalog from src; nil, with the error as a finding, when it cannot be read.
func Load(ctx context.Context, src Source) (*Catalog, []attrpath.Finding) {
	cat, err := src.Catalog(ctx)
	if err != nil {
		return nil, []attrpath.Finding{{Summary: "Cannot read EC2 instance types", Message: err.Error()}}
	}
	return cat, nil
}

// PodCapacityQuery is a karpenter_pod_capacity configuration, decoded by its attribute names;
// the shell marks an instance_type not known yet.
type PodCapacityQuery struct {
	InstanceType string `tfsdk:"instance_type"`
	capacity.Input
	InstanceTypeUnknown bool
	// The read's answer (PodCapacityResult's capacity.Result), not part of the query.
	_ struct{} `tfsdk:"eni_limited_pods"`
	_ struct{} `tfsdk:"max_pods"`
	_ struct{} `tfsdk:"karpenter_assumed_pods"`
	_ struct{} `tfsdk:"consistent"`
	_ struct{} `tfsdk:"reason"`
	_ struct{} `tfsdk:"usable_enis"`
	_ struct{} `tfsdk:"ipv4_per_eni"`
	_ struct{} `tfsdk:"pod_ips_per_eni"`
	_ struct{} `tfsdk:"efa_interfaces"`
	_ struct{} `tfsdk:"pod_eni"`
	_ struct{} `tfsdk:"vpc_ips_at_max_pods"`
	_ struct{} `tfsdk:"pod_subnet_ips_at_max_pods"`
	_ struct{} `tfsdk:"prefixes_at_max_pods"`
	_ struct{} `tfsdk:"warnings"`
	_ struct{} `tfsdk:"formula"`
}

// Check reports the configuration's problems before anything is read: an instance_type that
// names nothing (once it is known) and the CNI inputs'.
func (q PodCapacityQuery) Check() []attrpath.Finding {
	var errs []attrpath.Finding
	if !q.InstanceTypeUnknown {
		errs = CheckTypeName(q.InstanceType)
	}
	return append(errs, capacity.InputFindings(q.Settings())...)
}

// PodCapacityResult is what a karpenter_pod_capacity read computes, shaped as its schema: the
// capacity and the AMI family it was computed for.
type PodCapacityResult struct {
	capacity.Result
	AMIFamily string `tfsdk:"ami_family"`
}

// ReadPodCapacity answers a karpenter_pod_capacity read: errors for invalid CNI inputs, a
// catalog that cannot be read, a type the region lacks (with the closest names) or a capacity
// that cannot be computed; else the capacity, whose caveats are the warnings and its
// `warnings` (an empty list without any).
func ReadPodCapacity(ctx context.Context, src Source, region string, q PodCapacityQuery) (PodCapacityResult, []attrpath.Finding, []attrpath.Finding) {
	s := q.Settings()
	if errs := capacity.InputFindings(s); len(errs) > 0 {
		return PodCapacityResult{}, errs, nil
	}
	cat, errs := Load(ctx, src)
	if cat == nil {
		return PodCapacityResult{}, errs, nil
	}
	r, errs, warnings := cat.PodCapacity(q.InstanceType, region, s)
	if len(errs) > 0 {
		return PodCapacityResult{}, errs, nil
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	family := capacity.ResolveFamily(s.AMIFamily)
	if s.AutoMode != nil {
		family = "" // EKS Auto Mode chooses the AMI itself
	}
	return PodCapacityResult{Result: r, AMIFamily: family}, nil, warnings
}
