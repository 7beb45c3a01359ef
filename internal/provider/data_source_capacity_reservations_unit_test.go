package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// The schema and the planner's Go shapes agree: a value with every attribute set decodes into
// the query, a computed answer encodes into the schema's types, and node_pools takes a node
// pool's `reservations` as that attribute's Go shape defines it.
func TestCapacityReservationsSchemaShapes(t *testing.T) {
	ctx := context.Background()
	var resp datasource.SchemaResponse
	newCapacityReservationsDataSource().Schema(ctx, datasource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	typ := resp.Schema.Type().TerraformType(ctx)
	full := sampleOfType(typ)

	var q planner.ReservationsQuery
	if err := tfvalue.Decode(full, &q); err != nil {
		t.Fatalf("decoding a full configuration: %v", err)
	}
	if len(q.NodeClasses) != 1 || len(q.NodePools) != 1 || len(q.InstanceTypes) != 1 || len(q.Zones) != 1 {
		t.Errorf("decoded %+v", q)
	}

	cost := 1.5
	end := "2030-01-01T00:00:00Z"
	out := planner.ReservationsResult{Reservations: []planner.ReservationValue{{ID: "cr-1", Tags: map[string]string{}, SelectedBy: []string{"a"},
		UsedBy: []string{}, IdleReasons: []string{"p: r"}, IdleHourlyCost: &cost, EndDate: &end}}, UnselectedIDs: []string{}, IdleIDs: []string{"cr-1"}}
	var diags diag.Diagnostics
	state := tfvalue.MustEncode(typ, map[string]any{})
	setRaw(&state, out, "state", &diags)
	if diags.HasError() {
		t.Fatalf("encoding the answer: %v", diags)
	}
	var back planner.ReservationsResult
	if err := decodeAnswer(state, &back); err != nil || back.Reservations[0].IdleHourlyCost == nil || *back.Reservations[0].IdleHourlyCost != cost ||
		back.Reservations[0].StartDate != nil || back.IdleIDs[0] != "cr-1" {
		t.Errorf("round trip: %+v, %v", back, err)
	}

	// A configuration's empty id is an error on its path before any call.
	cfg := tfvalue.MustEncode(typ, map[string]any{"node_classes": map[string][]string{"gpu": {""}}})
	var vresp datasource.ValidateConfigResponse
	(&capacityReservationsDataSource{}).ValidateConfig(ctx, datasource.ValidateConfigRequest{Config: tfsdk.Config{Raw: cfg, Schema: resp.Schema}}, &vresp)
	if errs := vresp.Diagnostics.Errors(); len(errs) != 1 || errs[0].Detail() != `node_classes["gpu"][0]: a reservation id must not be empty` {
		t.Errorf("validate: %v", vresp.Diagnostics)
	}
}
