package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/drift"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// TestDecodeCoversEverySchema decodes a value of each schema with every attribute set (computed
// ones too, one element per list and map) into the Go type the provider reads it with, and the
// attributes kept raw into the types a step decodes them with. tfvalue.Decode is strict: an
// attribute with no field (a typo in a tag, an attribute added to a schema alone) fails here
// rather than in a plan.
func TestDecodeCoversEverySchema(t *testing.T) {
	ctx := context.Background()
	full := func(typ tftypes.Type) tftypes.Value { return sampleOfType(typ) }
	decodes := func(t *testing.T, v tftypes.Value, dst any) {
		t.Helper()
		if err := tfvalue.Decode(v, dst); err != nil {
			t.Errorf("%T: %v", dst, err)
		}
	}
	dataSource := func(d datasource.DataSource) tftypes.Type {
		var resp datasource.SchemaResponse
		d.Schema(ctx, datasource.SchemaRequest{}, &resp)
		return resp.Schema.Type().TerraformType(ctx)
	}

	t.Run("provider", func(t *testing.T) {
		var resp provider.SchemaResponse
		(&karpenterProvider{}).Schema(ctx, provider.SchemaRequest{}, &resp)
		decodes(t, full(resp.Schema.Type().TerraformType(ctx)), &providerSettings{})
	})
	t.Run("karpenter_node_class", func(t *testing.T) {
		var v classValue
		decodes(t, full(nodeClassSchema().Type().TerraformType(ctx)), &v)
		decodes(t, v.Resolved, &launchplan.ClassRef{})
	})
	t.Run("karpenter_node_pool", func(t *testing.T) {
		var v poolValue
		decodes(t, full(nodePoolSchema().Type().TerraformType(ctx)), &v)
		for _, raw := range []struct {
			v   tftypes.Value
			dst any
		}{
			{v.NodeClass, &launchplan.ClassRef{}},
			{v.Summary, &launchplan.Summary{}},
			{v.InstanceTypes, &[]string{}},
			{v.Zones, &map[string]launchplan.ZoneOutput{}},
			{v.LaunchTemplates, &[]planner.TemplateRecord{}},
			{v.Nodes, &[]planner.Node{}},
			{v.Drift, &drift.Output{}},
			{v.Manifest, new(string)},
		} {
			if !raw.v.IsKnown() || raw.v.IsNull() {
				t.Errorf("%T: the sample is not set", raw.dst)
			}
			decodes(t, raw.v, raw.dst)
		}
	})
	t.Run("karpenter_node_overlay", func(t *testing.T) {
		var v overlayValue
		raw := full(nodeOverlaySchema().Type().TerraformType(ctx))
		decodes(t, raw, &v)
		decodes(t, tfvalue.Attributes(raw)["resolved"], &nodeoverlay.Config{})
	})
	for name, d := range map[string]datasource.DataSource{
		"karpenter_subnets": &subnetsDataSource{}, "karpenter_security_groups": &securityGroupsDataSource{},
		"karpenter_pod_capacity": &podCapacityDataSource{}, "karpenter_instance_types": &instanceTypesDataSource{},
	} {
		t.Run(name, func(t *testing.T) {
			v := full(dataSource(d))
			var diags diag.Diagnostics
			switch d.(type) {
			case *subnetsDataSource:
				decodes(t, v, &nodeclass.SubnetsQuery{})
			case *securityGroupsDataSource:
				decodes(t, v, &nodeclass.SecurityGroupsQuery{})
			case *podCapacityDataSource:
				podCapacityQuery(v, &diags)
			case *instanceTypesDataSource:
				instanceTypesQuery(v, &diags)
			default:
				t.Fatalf("%T: no decode case", d)
			}
			for _, e := range diags.Errors() {
				t.Errorf("%s: %s", e.Summary(), e.Detail())
			}
		})
	}
}

// decodeAnswer reads the attributes of a data source's state that dst's fields name: the
// read's answer, without the query's attributes (which tfvalue.Decode would reject).
func decodeAnswer(state tftypes.Value, dst any) error {
	attrs := tfvalue.Attributes(state)
	types, values := map[string]tftypes.Type{}, map[string]tftypes.Value{}
	for _, name := range tfvalue.Names(dst) {
		v, ok := attrs[name]
		if !ok {
			return fmt.Errorf("the state has no attribute %q", name)
		}
		types[name], values[name] = v.Type(), v
	}
	return tfvalue.Decode(tftypes.NewValue(tftypes.Object{AttributeTypes: types}, values), dst)
}
