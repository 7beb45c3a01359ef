package provider

import (
	"context"
	"fmt"
	"iter"
	"runtime/debug"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// guardedServer is the outermost protocol server: a panic in any rule the provider runs for a
// request becomes an error diagnostic on that request, naming the resource type and the call,
// with the stack in the provider log, instead of ending the user's whole plan with a plugin
// crash. It wraps every call that runs the provider's own code on the user's input.
type guardedServer struct {
	tfprotov6.ProviderServer
	lists tfprotov6.ListResourceServer // nil when the inner server lists nothing
}

func guarded(s tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	lists, _ := s.(tfprotov6.ListResourceServer)
	return guardedServer{ProviderServer: s, lists: lists}
}

// crashed is the diagnostic of a recovered panic, which it also logs with its stack.
func crashed(ctx context.Context, rpc, typeName string, v any) *tfprotov6.Diagnostic {
	what := "the provider"
	if typeName != "" {
		what = typeName
	}
	tflog.Error(ctx, "recovered from a panic", map[string]any{"rpc": rpc, "type": typeName, "panic": fmt.Sprint(v), "stack": string(debug.Stack())})
	return &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: "Internal error in the karpenter provider",
		Detail: fmt.Sprintf("%s failed while answering %s: %v. This is a bug in the provider, not in your configuration: the rest "+
			"of the plan is unaffected, and the provider log (TF_LOG_PROVIDER=ERROR) holds the stack to report.", what, rpc, v)}
}

// recoverInto, deferred, turns a panic into resp holding its diagnostic (set builds resp).
func recoverInto(ctx context.Context, rpc, typeName string, set func(*tfprotov6.Diagnostic)) {
	if v := recover(); v != nil {
		set(crashed(ctx, rpc, typeName, v))
	}
}

func (s guardedServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (resp *tfprotov6.ValidateProviderConfigResponse, err error) {
	defer recoverInto(ctx, "ValidateProviderConfig", "", func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ValidateProviderConfigResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.ValidateProviderConfig(ctx, req)
}

func (s guardedServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (resp *tfprotov6.ConfigureProviderResponse, err error) {
	defer recoverInto(ctx, "ConfigureProvider", "", func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ConfigureProviderResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.ConfigureProvider(ctx, req)
}

func (s guardedServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (resp *tfprotov6.ValidateResourceConfigResponse, err error) {
	defer recoverInto(ctx, "ValidateResourceConfig", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ValidateResourceConfigResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s guardedServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (resp *tfprotov6.UpgradeResourceStateResponse, err error) {
	defer recoverInto(ctx, "UpgradeResourceState", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.UpgradeResourceStateResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.UpgradeResourceState(ctx, req)
}

func (s guardedServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (resp *tfprotov6.ReadResourceResponse, err error) {
	defer recoverInto(ctx, "ReadResource", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.ReadResource(ctx, req)
}

func (s guardedServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (resp *tfprotov6.PlanResourceChangeResponse, err error) {
	defer recoverInto(ctx, "PlanResourceChange", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.PlanResourceChangeResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

func (s guardedServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (resp *tfprotov6.ApplyResourceChangeResponse, err error) {
	// The prior state stays: what the failed apply did is for the next refresh to find.
	defer recoverInto(ctx, "ApplyResourceChange", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ApplyResourceChangeResponse{NewState: req.PriorState, Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

func (s guardedServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (resp *tfprotov6.ImportResourceStateResponse, err error) {
	defer recoverInto(ctx, "ImportResourceState", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ImportResourceStateResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.ImportResourceState(ctx, req)
}

func (s guardedServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (resp *tfprotov6.ValidateDataResourceConfigResponse, err error) {
	defer recoverInto(ctx, "ValidateDataResourceConfig", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.ValidateDataResourceConfig(ctx, req)
}

func (s guardedServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (resp *tfprotov6.ReadDataSourceResponse, err error) {
	defer recoverInto(ctx, "ReadDataSource", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ReadDataSourceResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.ProviderServer.ReadDataSource(ctx, req)
}

func (s guardedServer) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (resp *tfprotov6.CallFunctionResponse, err error) {
	defer recoverInto(ctx, "CallFunction", req.Name, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.CallFunctionResponse{Error: &tfprotov6.FunctionError{Text: d.Summary + ": " + d.Detail}}, nil
	})
	return s.ProviderServer.CallFunction(ctx, req)
}

func (s guardedServer) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (resp *tfprotov6.ValidateListResourceConfigResponse, err error) {
	if s.lists == nil {
		return &tfprotov6.ValidateListResourceConfigResponse{}, nil
	}
	defer recoverInto(ctx, "ValidateListResourceConfig", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ValidateListResourceConfigResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}, nil
	})
	return s.lists.ValidateListResourceConfig(ctx, req)
}

// ListResource guards the call and the listing it streams: a panic while listing ends the
// stream with one result carrying the diagnostic.
func (s guardedServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (resp *tfprotov6.ListResourceServerStream, err error) {
	if s.lists == nil {
		return &tfprotov6.ListResourceServerStream{Results: tfprotov6.NoListResults}, nil
	}
	fail := func(d *tfprotov6.Diagnostic) iter.Seq[tfprotov6.ListResourceResult] {
		return func(yield func(tfprotov6.ListResourceResult) bool) {
			yield(tfprotov6.ListResourceResult{Diagnostics: []*tfprotov6.Diagnostic{d}})
		}
	}
	defer recoverInto(ctx, "ListResource", req.TypeName, func(d *tfprotov6.Diagnostic) {
		resp, err = &tfprotov6.ListResourceServerStream{Results: fail(d)}, nil
	})
	inner, err := s.lists.ListResource(ctx, req)
	if err != nil || inner == nil || inner.Results == nil {
		return inner, err
	}
	results := inner.Results
	return &tfprotov6.ListResourceServerStream{Results: func(yield func(tfprotov6.ListResourceResult) bool) {
		stopped := false
		defer recoverInto(ctx, "ListResource", req.TypeName, func(d *tfprotov6.Diagnostic) {
			if !stopped {
				yield(tfprotov6.ListResourceResult{Diagnostics: []*tfprotov6.Diagnostic{d}})
			}
		})
		for r := range results {
			if !yield(r) {
				stopped = true
				return
			}
		}
	}}, nil
}
