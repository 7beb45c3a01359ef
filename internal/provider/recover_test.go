package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// panicky is a protocol server whose every resource, data source, function and list call
// panics, as a rule with a bug would.
type panicky struct {
	tfprotov6.ProviderServer
}

func (panicky) PlanResourceChange(context.Context, *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return nil, plantedIndex(nil) // an index out of range: a runtime panic, as a bug would raise
}

func plantedIndex(xs []error) error { return xs[1] }

func (panicky) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	panic("planted in a rule")
}

func (panicky) ApplyResourceChange(context.Context, *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	panic("planted in apply")
}

func (panicky) ReadDataSource(context.Context, *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	panic("planted in a data source")
}

func (panicky) CallFunction(context.Context, *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	panic("planted in a function")
}

func (panicky) ValidateListResourceConfig(context.Context, *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	panic("planted in a list's configuration")
}

func (panicky) ListResource(context.Context, *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	return &tfprotov6.ListResourceServerStream{Results: func(yield func(tfprotov6.ListResourceResult) bool) {
		if !yield(tfprotov6.ListResourceResult{DisplayName: "first"}) {
			return
		}
		panic("planted while listing")
	}}, nil
}

func wantCrash(t *testing.T, call string, diags []*tfprotov6.Diagnostic, parts ...string) {
	t.Helper()
	if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError || diags[0].Summary != "Internal error in the karpenter provider" {
		t.Fatalf("%s: diagnostics %+v, want one internal error", call, diags)
	}
	for _, p := range parts {
		if !strings.Contains(diags[0].Detail, p) {
			t.Errorf("%s: detail %q lacks %q", call, diags[0].Detail, p)
		}
	}
}

// A panic in any call becomes an error diagnostic on that call, naming the resource type and the
// call; nothing escapes to end the process.
func TestPanicsBecomeDiagnostics(t *testing.T) {
	ctx := context.Background()
	s := guarded(panicky{}).(guardedServer)
	plan, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "karpenter_node_pool"})
	if err != nil {
		t.Fatal(err)
	}
	wantCrash(t, "plan", plan.Diagnostics, "karpenter_node_pool failed while answering PlanResourceChange", "index out of range")
	v, _ := s.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "karpenter_node_class"})
	wantCrash(t, "validate", v.Diagnostics, "karpenter_node_class", "planted in a rule")
	prior := &tfprotov6.DynamicValue{JSON: []byte(`{"id":"x"}`)}
	a, _ := s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: "karpenter_node_pool", PriorState: prior})
	wantCrash(t, "apply", a.Diagnostics, "planted in apply")
	if a.NewState != prior {
		t.Error("a failed apply does not keep the prior state")
	}
	d, _ := s.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "karpenter_pod_capacity"})
	wantCrash(t, "data source", d.Diagnostics, "karpenter_pod_capacity")
	f, _ := s.CallFunction(ctx, &tfprotov6.CallFunctionRequest{Name: "max_pods"})
	if f.Error == nil || !strings.Contains(f.Error.Text, "max_pods failed while answering CallFunction") {
		t.Errorf("function: %+v", f.Error)
	}
	lv, _ := s.ValidateListResourceConfig(ctx, &tfprotov6.ValidateListResourceConfigRequest{TypeName: "karpenter_node_class"})
	wantCrash(t, "list validate", lv.Diagnostics, "planted in a list's configuration")
	stream, err := s.ListResource(ctx, &tfprotov6.ListResourceRequest{TypeName: "karpenter_node_pool"})
	if err != nil {
		t.Fatal(err)
	}
	var got []tfprotov6.ListResourceResult
	for r := range stream.Results {
		got = append(got, r)
	}
	if len(got) != 2 || got[0].DisplayName != "first" {
		t.Fatalf("listing: %+v, want the first result and then the error", got)
	}
	wantCrash(t, "list", got[1].Diagnostics, "planted while listing")
}

// The provider's own server is guarded.
func TestProviderServerIsGuarded(t *testing.T) {
	s, err := NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(guardedServer); !ok {
		t.Fatalf("NewServer serves %T, not the guarded server", s)
	}
	if _, ok := s.(tfprotov6.ListResourceServer); !ok {
		t.Error("the guarded server does not serve list resources")
	}
}
