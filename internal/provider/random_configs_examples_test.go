package provider

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/releasezip"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// karpenterExamples are Karpenter's own examples/v1 (of the release the CRDs were generated
// from, read from its module zip) adopted into configurations of the class and pool schemas:
// the seeds the random run mutates. Objects adoption refuses are left out.
func karpenterExamples(t *testing.T, classType, poolType tftypes.Object) (classes, pools []tftypes.Value) {
	t.Helper()
	_, files, err := releasezip.Examples()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		objs, err := releasezip.Documents(bytes.ReplaceAll(f.Data, []byte("${CLUSTER_NAME}"), []byte(worldCluster))) // the examples' placeholder
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, obj := range objs {
			switch obj["kind"] {
			case manifest.EC2NodeClassKind:
				if c, err := adopt.ReadClass(obj); err == nil {
					classes = append(classes, encodeConfig(t, classType, c.Config))
				}
			case manifest.NodePoolKind:
				if p, err := adopt.ReadPool(obj); err == nil && !p.AutoMode {
					pools = append(pools, encodeConfig(t, poolType, p.Config))
				}
			}
		}
	}
	return classes, pools
}

// encodeConfig is a configuration struct as a value of the resource's type: the attributes the
// struct has by their tfsdk names, the others null.
func encodeConfig(t *testing.T, typ tftypes.Object, cfg any) tftypes.Value {
	t.Helper()
	has := tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
	for _, name := range tfvalue.Names(cfg) {
		if at, ok := typ.AttributeTypes[name]; ok {
			has.AttributeTypes[name] = at
		}
	}
	m := structFields(cfg, has)
	part, err := tfvalue.Encode(has, m)
	if err != nil {
		t.Fatalf("encoding %T: %v", cfg, err)
	}
	vals := tfvalue.Attributes(part)
	for name, at := range typ.AttributeTypes {
		if _, ok := vals[name]; !ok {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(typ, vals)
}

// structFields are the fields of a struct by tfsdk name, for the names of has (embedded
// structs' fields included).
func structFields(cfg any, has tftypes.Object) map[string]any {
	out := map[string]any{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if name := f.Tag.Get("tfsdk"); name != "" {
				if _, ok := has.AttributeTypes[name]; ok {
					out[name] = v.Field(i).Interface()
				}
			} else if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(cfg))
	return out
}

// overlaySeeds are valid node overlays, as the NodeOverlay documentation shows them: a price
// adjustment, a price, and an extended resource.
func overlaySeeds(t *testing.T, typ tftypes.Object) []tftypes.Value {
	t.Helper()
	req := func(key, op string, values ...string) map[string]any {
		return map[string]any{"key": key, "operator": op, "values": values}
	}
	seeds := []map[string]any{
		{"name": "spot-discount", "price_adjustment": "-10%", "requirements": []any{req("karpenter.sh/capacity-type", "In", "spot")}},
		{"name": "m5-price", "price": "0.05", "weight": 10, "requirements": []any{req("node.kubernetes.io/instance-type", "In", "m5.large")}},
		{"name": "fuse", "capacity": map[string]string{"smarter-devices/fuse": "1"},
			"requirements": []any{req("karpenter.k8s.aws/instance-family", "In", "m5", "c5")}},
		{"name": "arm", "price_adjustment": "+0.01", "requirements": []any{req("kubernetes.io/arch", "In", "arm64"),
			req("karpenter.k8s.aws/instance-cpu", "Gt", "1")}},
	}
	var out []tftypes.Value
	for _, s := range seeds {
		v, err := tfvalue.Encode(typ, s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
