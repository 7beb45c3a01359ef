package provider

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

// What a person sees of a diagnostic is the terraform CLI's source range, and Terraform finds
// it only for a path to a top-level attribute plus one index or key on it: nested attributes are
// not walked, and a longer path falls back to the resource's header (or, worse, to a top-level
// attribute named like the path's last step). Every diagnostic the provider sends, the plugin
// framework's validators included, therefore carries the longest prefix Terraform resolves,
// and its detail opens with the full path.

// NewServer is the provider's protocol 6 server as Terraform talks to it: the plugin
// framework's, with diagnostic paths made resolvable (resolvableServer).
func NewServer(version string) func() (tfprotov6.ProviderServer, error) {
	return serverOf(func() *karpenterProvider {
		p := &karpenterProvider{version: version, newClient: awsclient.New}
		if wrapClients != nil {
			p.newClient = wrapClients(p, p.newClient)
		}
		return p
	})
}

// serverOf wraps the framework server of the provider newProvider builds.
func serverOf(newProvider func() *karpenterProvider) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		p := newProvider()
		s, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		pools, err := newPoolPlanner(context.Background())
		if err != nil {
			return nil, err
		}
		classes, err := newClassPlanner(context.Background())
		if err != nil {
			return nil, err
		}
		return guarded(resolvableServer{ProviderServer: s, provider: p, pools: pools, classes: classes,
			poolConfigs: newPoolValidator(context.Background())}), nil
	}
}

// resolvableServer rewrites the diagnostics of every call that returns them (resolvable), and
// plans node pools and classes itself (directPlanner) once the provider is configured.
type resolvableServer struct {
	tfprotov6.ProviderServer
	provider       *karpenterProvider
	pools, classes *directPlanner
	poolConfigs    *directValidator
}

func (s resolvableServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := s.ProviderServer.ConfigureProvider(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if req != nil && req.TypeName == s.poolConfigs.typeName {
		if resp, ok := s.poolConfigs.validate(ctx, req); ok {
			resolvable(resp.Diagnostics)
			return resp, nil
		}
	}
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.ProviderServer.ReadResource(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	for _, direct := range []*directPlanner{s.pools, s.classes} {
		if req != nil && direct != nil && req.TypeName == direct.typeName {
			if resp, ok := direct.plan(ctx, s.provider.meta.Load(), req); ok {
				resolvable(resp.Diagnostics)
				return resp, nil
			}
		}
	}
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	resp, err := s.ProviderServer.ImportResourceState(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

// resolvable trims each diagnostic's path to what Terraform resolves (resolvablePrefix) and,
// when it trimmed, opens the detail with the full path.
func resolvable(diags []*tfprotov6.Diagnostic) {
	for _, d := range diags {
		if d == nil || d.Attribute == nil {
			continue
		}
		steps := d.Attribute.Steps()
		keep := resolvablePrefix(steps)
		if keep == len(steps) {
			continue
		}
		full := terraformPath(steps)
		if !strings.HasPrefix(d.Detail, full+":") {
			d.Detail = full + ": " + d.Detail
		}
		d.Attribute = tftypes.NewAttributePathWithSteps(steps[:keep])
	}
}

// resolvablePrefix is how many leading steps of a path Terraform resolves to a source range:
// the top-level attribute and, when the next step is one, a list index or a map key.
func resolvablePrefix(steps []tftypes.AttributePathStep) int {
	if len(steps) == 0 {
		return 0
	}
	if _, ok := steps[0].(tftypes.AttributeName); !ok {
		return 0
	}
	if len(steps) > 1 {
		switch steps[1].(type) {
		case tftypes.ElementKeyInt, tftypes.ElementKeyString:
			return 2
		}
	}
	return 1
}

// terraformPath writes a path as Terraform does: template.taints[0].key, tags["aws:owner"].
func terraformPath(steps []tftypes.AttributePathStep) string {
	var b strings.Builder
	for _, s := range steps {
		switch s := s.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			b.WriteString("[" + strconv.FormatInt(int64(s), 10) + "]")
		case tftypes.ElementKeyString:
			b.WriteString("[" + strconv.Quote(string(s)) + "]")
		default:
			b.WriteString("[…]") // a set element: no key Terraform could show
		}
	}
	return b.String()
}

// addFindings reports the pure packages' findings (attrpath.Finding: every rule's one shape) as
// diagnostics, errors and then warnings, each on its path under its own summary; the detail
// names the full path.
func addFindings(diags *diag.Diagnostics, errs, warnings []attrpath.Finding) {
	for _, f := range errs {
		if f.Path.IsEmpty() {
			diags.AddError(f.Summary, f.Error())
		} else {
			diags.AddAttributeError(tfPath(f.Path), f.Summary, f.Error())
		}
	}
	for _, f := range warnings {
		if f.Path.IsEmpty() {
			diags.AddWarning(f.Summary, f.Error())
		} else {
			diags.AddAttributeWarning(tfPath(f.Path), f.Summary, f.Error())
		}
	}
}

// tfPath is the framework's path of an attribute path.
func tfPath(p attrpath.Path) path.Path {
	out := path.Empty()
	for _, st := range p.Steps() {
		switch st.Kind {
		case attrpath.Index:
			out = out.AtListIndex(st.Index)
		case attrpath.Key:
			out = out.AtMapKey(st.Name)
		default:
			out = out.AtName(st.Name)
		}
	}
	return out
}

// The list-resource calls (Terraform >= 1.14, `terraform query`) are served by the framework's
// server, behind an interface of their own that the embedded ProviderServer does not carry.
var _ tfprotov6.ProviderServerWithListResource = resolvableServer{} //nolint:staticcheck // the interface the protocol still asks for

func (s resolvableServer) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	ls, ok := s.ProviderServer.(tfprotov6.ListResourceServer)
	if !ok {
		return nil, errNoListResources
	}
	resp, err := ls.ValidateListResourceConfig(ctx, req)
	if resp != nil {
		resolvable(resp.Diagnostics)
	}
	return resp, err
}

func (s resolvableServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	ls, ok := s.ProviderServer.(tfprotov6.ListResourceServer)
	if !ok {
		return nil, errNoListResources
	}
	return ls.ListResource(ctx, req)
}

// errNoListResources: the framework's server always serves list resources; a test double may not.
var errNoListResources = errors.New("the provider server does not serve list resources")
