package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
	"github.com/nodeplane/terraform-provider-karpenter/internal/typelimits"
)

var _ provider.ProviderWithFunctions = (*karpenterProvider)(nil)

// Functions are the provider functions (Terraform 1.8 and later): pure answers from the
// instance type table compiled into the provider (internal/typelimits).
func (p *karpenterProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		func() function.Function { return maxPodsFunction },
		func() function.Function { return eniLimitedPodsFunction },
		func() function.Function { return ipsPerNodeFunction },
	}
}

// tableFunction is one provider function: its definition and how it answers.
type tableFunction struct {
	name string
	def  function.Definition
	run  func(ctx context.Context, req function.RunRequest) (any, *function.FuncError)
}

func (f *tableFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = f.name
}

func (f *tableFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = f.def
}

func (f *tableFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	v, ferr := f.run(ctx, req)
	if ferr == nil {
		ferr = resp.Result.Set(ctx, v)
	}
	resp.Error = ferr
}

var (
	typeParameter = function.StringParameter{Name: "instance_type",
		MarkdownDescription: "EC2 instance type, e.g. `m5.large`, one of the provider's instance type table."}
	networkingParameter = function.DynamicParameter{Name: "networking", AllowNullValue: true,
		MarkdownDescription: "Any subset of a node class's `networking` attributes, as an object: `{}` (or `null`) is the VPC CNI's " +
			"defaults, `{ prefix_delegation = true }` enough for prefix delegation; a class's own `networking` works as it is."}
	tableNote = " Terraform 1.8 or later. The figures come from the engine of the `karpenter_pod_capacity` data source over an " +
		"instance type table compiled into the provider (" + fmt.Sprint(typelimits.Len()) + " types; source: " + typelimits.Source +
		"), not from EC2: an unknown type is an error naming that data source, which asks EC2."
)

var maxPodsFunction = &tableFunction{
	name: "max_pods",
	def: function.Definition{
		Summary: "The kubelet max pods a node class with this networking gives an instance type",
		MarkdownDescription: "The kubelet max pods a node class with this `networking` gives the instance type (AL2023, no kubelet " +
			"`max_pods`): the ENI formula after the VPC CNI's own reservations (custom networking, the trunk ENI of security groups " +
			"for pods, `reserved_enis`), or with prefix delegation the /28 formula capped at 110 up to 30 vCPUs and 250 above (the EKS calculator's caps)." + tableNote,
		Parameters: []function.Parameter{typeParameter, networkingParameter},
		Return:     function.Int64Return{},
	},
	run: func(ctx context.Context, req function.RunRequest) (any, *function.FuncError) {
		var typ string
		var networking types.Dynamic
		if err := req.Arguments.Get(ctx, &typ, &networking); err != nil {
			return nil, err
		}
		m, ferr := networkingArgument(ctx, networking)
		if ferr != nil {
			return nil, ferr
		}
		return funcResult(typelimits.MaxPods(typ, m))
	},
}

var eniLimitedPodsFunction = &tableFunction{
	name: "eni_limited_pods",
	def: function.Definition{
		Summary: "Karpenter's ENI-limited pod count of an instance type",
		MarkdownDescription: "Karpenter's ENI-limited pod count of the instance type with no reserved ENIs: default-card ENIs times " +
			"(IPv4 per ENI - 1), plus 2 (the `eni-max-pods.txt` value)." + tableNote,
		Parameters: []function.Parameter{typeParameter},
		Return:     function.Int64Return{},
	},
	run: func(ctx context.Context, req function.RunRequest) (any, *function.FuncError) {
		var typ string
		if err := req.Arguments.Get(ctx, &typ); err != nil {
			return nil, err
		}
		return funcResult(typelimits.ENILimitedPods(typ))
	},
}

var ipsAttrTypes = map[string]attr.Type{"node_subnet": types.Int64Type, "pod_subnet": types.Int64Type}

var ipsPerNodeFunction = &tableFunction{
	name: "ips_per_node",
	def: function.Definition{
		Summary: "The IPv4 addresses the VPC CNI holds on one node running a number of pods",
		MarkdownDescription: "The IPv4 addresses the VPC CNI's ipamd holds on one node of the instance type with this `networking` " +
			"when it runs `pods` pods (clamped to the node's max pods; the first two are the host-network daemons), warm targets " +
			"included: an object with `node_subnet` (addresses in the node's subnet) and `pod_subnet` (in the ENIConfig pod subnet; " +
			"custom networking only, else 0)." + tableNote,
		Parameters: []function.Parameter{typeParameter, networkingParameter,
			function.Int64Parameter{Name: "pods", MarkdownDescription: "Pods on the node, host-network daemons included."}},
		Return: function.ObjectReturn{AttributeTypes: ipsAttrTypes},
	},
	run: func(ctx context.Context, req function.RunRequest) (any, *function.FuncError) {
		var typ string
		var networking types.Dynamic
		var pods int64
		if err := req.Arguments.Get(ctx, &typ, &networking, &pods); err != nil {
			return nil, err
		}
		m, ferr := networkingArgument(ctx, networking)
		if ferr != nil {
			return nil, ferr
		}
		ips, err := typelimits.IPsPerNode(typ, m, pods)
		if err != nil {
			return funcResult(0, err)
		}
		v, diags := types.ObjectValue(ipsAttrTypes, map[string]attr.Value{
			"node_subnet": types.Int64Value(ips.NodeSubnet), "pod_subnet": types.Int64Value(ips.PodSubnet)})
		return v, function.FuncErrorFromDiags(ctx, diags)
	},
}

// networkingArgument is the networking argument as plain values; null is no settings.
func networkingArgument(ctx context.Context, d types.Dynamic) (map[string]any, *function.FuncError) {
	if d.IsNull() || d.IsUnderlyingValueNull() {
		return nil, nil
	}
	tv, err := d.ToTerraformValue(ctx)
	var v any
	if err == nil {
		v, err = tfvalue.Plain(tv)
	}
	if m, ok := v.(map[string]any); ok && err == nil {
		return m, nil
	}
	if err == nil {
		err = fmt.Errorf("must be an object of networking attributes, such as { prefix_delegation = true }")
	}
	return nil, function.NewArgumentFuncError(1, "networking "+err.Error())
}

// funcResult turns a typelimits answer into a function result, argument errors on their argument.
func funcResult(v any, err error) (any, *function.FuncError) {
	var ae *typelimits.ArgError
	switch {
	case err == nil:
		return v, nil
	case errors.As(err, &ae):
		return nil, function.NewArgumentFuncError(int64(ae.Arg), ae.Msg)
	default:
		return nil, function.NewFuncError(err.Error())
	}
}
