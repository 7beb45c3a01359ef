package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

// List resources (Terraform >= 1.14, `terraform query`): the cluster's EC2NodeClasses, EKS Auto
// Mode NodeClasses, NodePools and NodeOverlays, and the provider's static pools in EC2, each with
// its identity and, for -generate-config-out, the value an import by name would give.

var (
	_ list.ListResourceWithConfigure = (*nodeClassList)(nil)
	_ list.ListResourceWithConfigure = (*autoModeNodeClassList)(nil)
	_ list.ListResourceWithConfigure = (*nodePoolList)(nil)
	_ list.ListResourceWithConfigure = (*nodeOverlayList)(nil)
)

// listFilter is a list block's config.
type listFilter struct {
	NamePrefix string            `tfsdk:"name_prefix"`
	Labels     map[string]string `tfsdk:"labels"`
}

func listFilterSchema(kind string, extra string) listschema.Schema {
	return listschema.Schema{
		MarkdownDescription: "Lists the cluster's " + plural(kind) + " (the provider's `kubernetes` access, `list` on them)" + extra +
			"; with `-generate-config-out`, each is written as an import by name would write it.",
		Attributes: map[string]listschema.Attribute{
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only names that start with this."},
			"labels": listschema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Only objects that carry these labels (" + kind + " labels, a label selector)."},
		},
	}
}

// plural is a kind's plural (EC2NodeClasses, NodePools).
func plural(kind string) string {
	if strings.HasSuffix(kind, "s") {
		return kind + "es"
	}
	return kind + "s"
}

// selector is the label selector of a filter's labels.
func (f listFilter) selector() string {
	var parts []string
	for k, v := range f.Labels {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// listed are the names of the objects a filter selects, sorted; an error diagnostic when the
// cluster cannot be read.
func listed(ctx context.Context, m *Meta, apiVersion, resourceName string, req list.ListRequest, diags *diag.Diagnostics) (listFilter, []string) {
	var f listFilter
	if !decodeInto(req.Config.Raw, &f, "list block", diags) {
		return f, nil
	}
	if m == nil || m.Kube == nil {
		diags.AddError("Listing needs cluster access", "set the provider's `kubernetes` block (host, token, cluster_ca_certificate) "+
			"with list on "+resourceName+": the objects are read from the cluster")
		return f, nil
	}
	objs, err := m.Kube.Objects(ctx, apiVersion, resourceName, f.selector())
	if err != nil {
		diags.AddError("Cannot list "+resourceName, err.Error())
		return f, nil
	}
	var names []string
	for _, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		if name, _ := meta["name"].(string); strings.HasPrefix(name, f.NamePrefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return f, names
}

// adoptFunc writes the object an import ID names into raw, a null value of its resource's type
// (the resource's adopt).
type adoptFunc func(ctx context.Context, id string, raw *tftypes.Value, diags *diag.Diagnostics)

// result is one listed instance of kind: its identity, display name and, when asked, its value
// (adopt writes it from id; the adoption's warnings stay with the import). An object that cannot
// be adopted fails alone: Terraform ends a query at a result's error, so its errors become a
// warning that names it, with no result (notListed), and the others are listed.
func result(ctx context.Context, req list.ListRequest, kind, name, display string, adopt adoptFunc, id string) list.ListResult {
	r := req.NewListResult(ctx)
	r.DisplayName = display
	r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root("name"), name)...)
	if req.IncludeResource {
		var diags diag.Diagnostics
		adopt(ctx, id, &r.Resource.Raw, &diags)
		r.Diagnostics.Append(diags.Errors()...)
	}
	if r.Diagnostics.HasError() {
		return notListed(kind, display, r.Diagnostics)
	}
	return r
}

type nodeClassList struct{ meta *Meta }

func newNodeClassList() list.ListResource { return &nodeClassList{} }

func (l *nodeClassList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_class"
}

func (l *nodeClassList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (l *nodeClassList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listFilterSchema(manifest.EC2NodeClassKind, "")
}

func (l *nodeClassList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	listClasses(ctx, l.meta, manifest.EC2NodeClassKind, manifest.EC2NodeClassAPIVersion, "ec2nodeclasses", req, stream, nil,
		(&nodeClassResource{meta: l.meta}).adopt)
}

// listClasses streams the cluster's node classes of one kind by name, but those skip names, each
// written as its resource's import (adopt) writes it, or left out alone with a warning (result).
func listClasses(ctx context.Context, meta *Meta, kind, apiVersion, resource string, req list.ListRequest, stream *list.ListResultsStream,
	skip func(string) bool, adopt adoptFunc) {
	var diags diag.Diagnostics
	_, names := listed(ctx, meta, apiVersion, resource, req, &diags)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	if skip != nil {
		names = slices.DeleteFunc(names, skip)
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for _, name := range names {
			if !push(result(ctx, req, kind, name, name, adopt, name)) {
				return
			}
		}
	}
}

type autoModeNodeClassList struct{ meta *Meta }

func newAutoModeNodeClassList() list.ListResource { return &autoModeNodeClassList{} }

func (l *autoModeNodeClassList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_auto_mode_node_class"
}

func (l *autoModeNodeClassList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (l *autoModeNodeClassList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listFilterSchema("EKS Auto Mode "+manifest.AutoModeNodeClassKind, ", except `default`, the NodeClass EKS keeps for its "+
		"built-in node pools")
}

func (l *autoModeNodeClassList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	listClasses(ctx, l.meta, "EKS Auto Mode "+manifest.AutoModeNodeClassKind, manifest.AutoModeNodeClassAPIVersion, "nodeclasses", req, stream,
		func(n string) bool { return n == automode.ReservedName }, (&autoModeNodeClassResource{meta: l.meta}).adopt)
}

type nodePoolList struct{ meta *Meta }

func newNodePoolList() list.ListResource { return &nodePoolList{} }

func (l *nodePoolList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_pool"
}

func (l *nodePoolList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (l *nodePoolList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listFilterSchema(manifest.NodePoolKind, ", and the provider's own static pools found in EC2 by their "+
		"ownership tags (`name_prefix` applies to them; `labels` does not, as they have no NodePool)")
}

// List streams the cluster's NodePools by name, then the provider's static pools found in EC2,
// each written as an import writes it, or left out alone with a warning (result).
func (l *nodePoolList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	f, names := listed(ctx, l.meta, manifest.NodePoolAPIVersion, "nodepools", req, &diags)
	var static []planner.StaticPool
	if !diags.HasError() && len(f.Labels) == 0 {
		ports := planner.PoolPorts{EC2: planner.PoolEC2{Listing: l.meta.Client}}
		found, errs := planner.StaticPools(ctx, ports, planner.PoolFacts{ClusterName: l.meta.ClusterName}, f.NamePrefix, names)
		static = found
		addFindings(&diags, errs, nil)
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	adopt := (&nodePoolResource{meta: l.meta}).adopt
	stream.Results = func(push func(list.ListResult) bool) {
		for _, name := range names {
			if !push(result(ctx, req, manifest.NodePoolKind, name, name, adopt, name)) {
				return
			}
		}
		for _, s := range static {
			display := fmt.Sprintf("%s (static, owner %s)", s.Name, s.Owner)
			if !push(result(ctx, req, "static pool", s.Name, display, adopt, s.Name+"/"+s.Owner)) {
				return
			}
		}
	}
}

type nodeOverlayList struct{ meta *Meta }

func newNodeOverlayList() list.ListResource { return &nodeOverlayList{} }

func (l *nodeOverlayList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_overlay"
}

func (l *nodeOverlayList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (l *nodeOverlayList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listFilterSchema(manifest.NodeOverlayKind, "")
}

// List streams the cluster's NodeOverlays by name, each written as an import writes it, or left
// out alone with a warning (result).
func (l *nodeOverlayList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	_, names := listed(ctx, l.meta, manifest.NodeOverlayAPIVersion, "nodeoverlays", req, &diags)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	adopt := (&nodeOverlayResource{meta: l.meta}).adopt
	stream.Results = func(push func(list.ListResult) bool) {
		for _, name := range names {
			if !push(result(ctx, req, manifest.NodeOverlayKind, name, name, adopt, name)) {
				return
			}
		}
	}
}

// notListed is the result of an object that cannot be adopted: its errors as one warning, and no
// identity, so that Terraform skips it and lists the others.
func notListed(kind, name string, errs diag.Diagnostics) list.ListResult {
	var parts []string
	for _, e := range errs.Errors() {
		parts = append(parts, e.Summary()+": "+e.Detail())
	}
	var out list.ListResult
	out.Diagnostics.AddWarning(kind+" "+name+" not listed", fmt.Sprintf("%s cannot be adopted, so the query leaves it out: %s\n\n"+
		"Fix it in the cluster, or import it by name to see the error on its attribute.", name, strings.Join(parts, "\n")))
	return out
}
