package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
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
		func() function.Function { return autoModeMaxPodsFunction },
		func() function.Function { return autoModeIPsPerNodeFunction },
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

var (
	autoModeParameter = function.DynamicParameter{Name: "auto_mode", AllowNullValue: true,
		MarkdownDescription: "The EKS Auto Mode NodeClass's networking, as an object with any of `ipv4_prefix_size` " +
			"(`advancedNetworking.ipv4PrefixSize`: `\"Auto\"`, the default, for /28 prefixes, or `\"32\"` for secondary IPs) and " +
			"`pod_subnets` (`true` when the class sets `podSubnetSelectorTerms`: the primary ENI then carries no pods); " +
			"`{}` or `null` is the defaults."}
	autoModeNote = " EKS Auto Mode runs its own networking, not the VPC CNI " +
		"([Auto Mode networking](https://docs.aws.amazon.com/eks/latest/userguide/auto-networking.html)); it launches no type with " +
		"1 vCPU or of a nano, micro or small size " +
		"([instance types](https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html)), an error here. IPv4 only."
)

var autoModeMaxPodsFunction = &tableFunction{
	name: "auto_mode_max_pods",
	def: function.Definition{
		Summary: "The max pods EKS Auto Mode gives an instance type",
		MarkdownDescription: "The pods per node EKS Auto Mode gives the instance type under this NodeClass networking: the ENI " +
			"figure (ENIs x (IPv4 per ENI - 1), times 16 with /28 prefixes, plus 2; the primary ENI left out with pod subnets), " +
			"then capped at 110 ([Create a node class](https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html))." +
			autoModeNote + tableNote,
		Parameters: []function.Parameter{typeParameter, autoModeParameter},
		Return:     function.Int64Return{},
	},
	run: func(ctx context.Context, req function.RunRequest) (any, *function.FuncError) {
		var typ string
		var auto types.Dynamic
		if err := req.Arguments.Get(ctx, &typ, &auto); err != nil {
			return nil, err
		}
		n, a, ferr := autoModeArguments(ctx, typ, auto)
		if ferr != nil {
			return nil, ferr
		}
		r, err := capacity.Compute(n, capacity.Settings{AutoMode: &a})
		if err != nil {
			return nil, autoModeError(err)
		}
		return int64(r.MaxPods), nil
	},
}

var autoModeIPsAttrTypes = map[string]attr.Type{
	"node_subnet": types.Int64Type, "pod_subnet": types.Int64Type, "prefixes": types.Int64Type,
}

var autoModeIPsPerNodeFunction = &tableFunction{
	name: "auto_mode_ips_per_node",
	def: function.Definition{
		Summary: "The IPv4 addresses an EKS Auto Mode node running a number of pods holds",
		MarkdownDescription: "The IPv4 addresses one EKS Auto Mode node of the instance type holds when it runs `pods` pods " +
			"(clamped to its max pods, each counted as needing an address): an object with `node_subnet` (the node's subnet: " +
			"each ENI's primary address, and the pods' addresses without pod subnets), `pod_subnet` (the pod subnets, with " +
			"`pod_subnets`; else 0) and `prefixes` (the /28 blocks among them, one per 16 pods and at least one per node; 0 with " +
			"`ipv4_prefix_size = \"32\"`). Any warm pool beyond what the pods need is not counted." + autoModeNote + tableNote,
		Parameters: []function.Parameter{typeParameter, autoModeParameter,
			function.Int64Parameter{Name: "pods", MarkdownDescription: "Pods on the node."}},
		Return: function.ObjectReturn{AttributeTypes: autoModeIPsAttrTypes},
	},
	run: func(ctx context.Context, req function.RunRequest) (any, *function.FuncError) {
		var typ string
		var auto types.Dynamic
		var pods int64
		if err := req.Arguments.Get(ctx, &typ, &auto, &pods); err != nil {
			return nil, err
		}
		n, a, ferr := autoModeArguments(ctx, typ, auto)
		if ferr != nil {
			return nil, ferr
		}
		if pods < 0 {
			return nil, function.NewArgumentFuncError(2, fmt.Sprintf("pods must not be negative, got %d", pods))
		}
		node, pod, prefixes, err := capacity.AutoModeIPsAtPods(n, a, int(min(pods, math.MaxInt32)))
		if err != nil {
			return nil, autoModeError(err)
		}
		v, diags := types.ObjectValue(autoModeIPsAttrTypes, map[string]attr.Value{"node_subnet": types.Int64Value(int64(node)),
			"pod_subnet": types.Int64Value(int64(pod)), "prefixes": types.Int64Value(int64(prefixes))})
		return v, function.FuncErrorFromDiags(ctx, diags)
	},
}

// autoModeArguments are the instance type's network data and the auto_mode argument: any of
// ipv4_prefix_size (a string; a whole number such as 32 is taken as its digits) and pod_subnets,
// null values and a null argument meaning the defaults.
func autoModeArguments(ctx context.Context, typ string, d types.Dynamic) (capacity.Network, capacity.AutoMode, *function.FuncError) {
	var a capacity.AutoMode
	n, ok := typelimits.Network(typ)
	if !ok {
		return n, a, function.NewArgumentFuncError(0, fmt.Sprintf("%q is not in the provider's instance type table (%d types); "+
			"for other types use the karpenter_pod_capacity data source with auto_mode, which asks EC2", typ, typelimits.Len()))
	}
	m, ferr := objectArgument(ctx, d, 1, "auto_mode", `must be an object such as { ipv4_prefix_size = "32", pod_subnets = true }`)
	if ferr != nil {
		return n, a, ferr
	}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch v := m[k]; k {
		case "ipv4_prefix_size":
			switch x := v.(type) {
			case nil:
			case string:
				a.IPv4PrefixSize = x
			case int64:
				a.IPv4PrefixSize = strconv.FormatInt(x, 10)
			case float64:
				a.IPv4PrefixSize = strconv.FormatFloat(x, 'f', -1, 64)
			default:
				errs = append(errs, fmt.Errorf("auto_mode.ipv4_prefix_size must be a string, got %T", v))
			}
		case "pod_subnets":
			if b, ok := v.(bool); ok {
				a.PodSubnets = b
			} else if v != nil {
				errs = append(errs, fmt.Errorf("auto_mode.pod_subnets must be a bool, got %T", v))
			}
		default:
			errs = append(errs, fmt.Errorf("auto_mode.%s is not an auto_mode attribute; expected ipv4_prefix_size or pod_subnets", k))
		}
	}
	for _, f := range capacity.ValidateSettings(capacity.Settings{AutoMode: &a}) {
		errs = append(errs, fmt.Errorf("%s %s", f.Path, f.Message))
	}
	if len(errs) > 0 {
		return n, a, function.NewArgumentFuncError(1, errors.Join(errs...).Error())
	}
	return n, a, nil
}

// autoModeError is an engine error as a function error: a type Auto Mode does not launch on the
// instance_type argument, no ENI left for pods on auto_mode.
func autoModeError(err error) *function.FuncError {
	if errors.Is(err, capacity.ErrAutoModeUnsupported) {
		return function.NewArgumentFuncError(0, err.Error())
	}
	return function.NewArgumentFuncError(1, err.Error())
}

// networkingArgument is the networking argument as plain values; null is no settings.
func networkingArgument(ctx context.Context, d types.Dynamic) (map[string]any, *function.FuncError) {
	return objectArgument(ctx, d, 1, "networking", "must be an object of networking attributes, such as { prefix_delegation = true }")
}

// objectArgument is the object argument arg, named name, as plain values (nil when null), or an
// error on it: "<name> <notObject>" when it is not an object.
func objectArgument(ctx context.Context, d types.Dynamic, arg int64, name, notObject string) (map[string]any, *function.FuncError) {
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
		err = errors.New(notObject)
	}
	return nil, function.NewArgumentFuncError(arg, name+" "+err.Error())
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
