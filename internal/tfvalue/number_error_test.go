package tfvalue

import (
	"errors"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestNumberErrorNamesItsAttribute(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"weight": tftypes.Number,
		"workloads": tftypes.Map{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{
			"sizes": tftypes.List{ElementType: tftypes.Number}}}},
	}}
	type workload struct {
		Sizes []int64 `tfsdk:"sizes"`
	}
	var dst struct {
		Weight    *int64              `tfsdk:"weight"`
		Workloads map[string]workload `tfsdk:"workloads"`
	}
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"weight": tftypes.NewValue(tftypes.Number, big.NewFloat(2)),
		"workloads": tftypes.NewValue(typ.AttributeTypes["workloads"], map[string]tftypes.Value{
			`we"b`: tftypes.NewValue(typ.AttributeTypes["workloads"].(tftypes.Map).ElementType, map[string]tftypes.Value{
				"sizes": tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{
					tftypes.NewValue(tftypes.Number, big.NewFloat(1)), tftypes.NewValue(tftypes.Number, big.NewFloat(1.5)),
				}),
			}),
		}),
	})
	err := Decode(v, &dst)
	var ne *NumberError
	if !errors.As(err, &ne) {
		t.Fatalf("err %v, want a NumberError", err)
	}
	if got, want := ne.Path().String(), `workloads["we\"b"].sizes[1]`; got != want {
		t.Errorf("path %s, want %s (error %q)", got, want, ne)
	}
	if ne.Error() != `workloads["we\"b"].sizes[1]: 1.5 is not a whole number in range` {
		t.Errorf("message %q", ne)
	}
	for at, want := range map[string]string{"kubelet.max_pods": "kubelet.max_pods", "a[3].b": "a[3].b", `m["k"]`: `m["k"]`, "": ""} {
		if got := parsePath(at).String(); got != want {
			t.Errorf("parsePath(%q) = %q, want %q", at, got, want)
		}
	}
}
