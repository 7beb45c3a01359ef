package tfvalue

import (
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

type inner struct {
	Key    string   `tfsdk:"key"`
	Values []string `tfsdk:"values"`
	Min    *int64   `tfsdk:"min"`
}

type base struct {
	Name string `tfsdk:"name"`
}

type outer struct {
	base
	Count   int               `tfsdk:"count"`
	Ratio   float64           `tfsdk:"ratio"`
	On      *bool             `tfsdk:"on"`
	Inner   []inner           `tfsdk:"inner"`
	Tags    map[string]string `tfsdk:"tags"`
	Extra   any               `tfsdk:"extra"`
	Raw     tftypes.Value     `tfsdk:"raw"`
	Nested  *inner            `tfsdk:"nested"`
	private string            //nolint:unused // fields without a tag are left alone
}

var innerType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"key": tftypes.String, "values": tftypes.List{ElementType: tftypes.String}, "min": tftypes.Number}}

var outerType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"name": tftypes.String, "count": tftypes.Number, "ratio": tftypes.Number, "on": tftypes.Bool,
	"inner": tftypes.List{ElementType: innerType}, "tags": tftypes.Map{ElementType: tftypes.String},
	"extra": tftypes.DynamicPseudoType, "raw": tftypes.String, "nested": innerType,
}}

func TestRoundTrip(t *testing.T) {
	one := int64(1)
	on := true
	in := outer{base: base{Name: "pool"}, Count: 3, Ratio: 0.5, On: &on,
		Inner:  []inner{{Key: "k", Values: []string{"a", "b"}, Min: &one}, {Key: "e", Values: []string{}}},
		Tags:   map[string]string{"team": "a"},
		Extra:  map[string]any{"maxPods": int64(110), "list": []any{"x", true}},
		Raw:    tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		Nested: nil,
	}
	v, err := Encode(outerType, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := tftypes.ValidateValue(outerType, func() map[string]tftypes.Value { return Attributes(v) }()); err != nil {
		t.Fatal(err)
	}
	attrs := Attributes(v)
	if !attrs["nested"].IsNull() || attrs["raw"].IsKnown() {
		t.Errorf("nested %v raw %v", attrs["nested"], attrs["raw"])
	}
	var out outer
	if err := Decode(v, &out); err != nil {
		t.Fatal(err)
	}
	if out.Raw.IsKnown() {
		t.Error("raw lost its unknown")
	}
	out.Raw, in.Raw = tftypes.Value{}, tftypes.Value{}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
}

func TestDecodeUnknownAndNull(t *testing.T) {
	v := tftypes.NewValue(outerType, map[string]tftypes.Value{
		"name": tftypes.NewValue(tftypes.String, tftypes.UnknownValue), "count": tftypes.NewValue(tftypes.Number, nil),
		"ratio": tftypes.NewValue(tftypes.Number, big.NewFloat(1.5)), "on": tftypes.NewValue(tftypes.Bool, nil),
		"inner": tftypes.NewValue(tftypes.List{ElementType: innerType}, tftypes.UnknownValue),
		"tags":  tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil), "extra": tftypes.NewValue(tftypes.DynamicPseudoType, nil),
		"raw": tftypes.NewValue(tftypes.String, "r"), "nested": tftypes.NewValue(innerType, nil),
	})
	out := outer{Count: 9, Tags: map[string]string{"x": "y"}}
	if err := Decode(v, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "" || out.Count != 0 || out.Ratio != 1.5 || out.On != nil || out.Inner != nil || out.Tags != nil || out.Nested != nil {
		t.Errorf("unknown and null must decode as zero values: %+v", out)
	}
}

func TestErrors(t *testing.T) {
	if _, err := Encode(tftypes.String, 3); err == nil {
		t.Error("an int encoded as a string")
	}
	wider := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"key": tftypes.String, "typo": tftypes.String}}
	if _, err := Encode(wider, inner{Key: "k"}); err == nil {
		t.Error("an attribute without a field encoded (as null)")
	}
	var n struct {
		N int32 `tfsdk:"n"`
	}
	v := tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"n": tftypes.Number}},
		map[string]tftypes.Value{"n": tftypes.NewValue(tftypes.Number, big.NewFloat(1.5))})
	if err := Decode(v, &n); err == nil {
		t.Error("1.5 decoded into an int")
	}
	if err := Decode(v, n); err == nil {
		t.Error("a non-pointer accepted")
	}
	var d struct {
		D any `tfsdk:"d"`
	}
	dv := tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"d": tftypes.DynamicPseudoType}},
		map[string]tftypes.Value{"d": tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.String}},
			map[string]tftypes.Value{"x": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)})})
	if err := Decode(dv, &d); err == nil {
		t.Error("a dynamic value with an unknown inside decoded")
	}
}

func TestWith(t *testing.T) {
	obj, err := Encode(outerType, outer{base: base{Name: "a"}, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := With(obj, map[string]any{"count": 2, "tags": map[string]string{"k": "v"}, "raw": Unknown(tftypes.String)})
	if err != nil {
		t.Fatal(err)
	}
	var out outer
	if err := Decode(got, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "a" || out.Count != 2 || out.Tags["k"] != "v" || out.Raw.IsKnown() {
		t.Errorf("With: %+v", out)
	}
	if _, err := With(obj, map[string]any{"nope": 1}); err == nil {
		t.Error("an unknown attribute was accepted")
	}
	if _, err := With(obj, map[string]any{"raw": tftypes.NewValue(tftypes.Bool, true)}); err == nil {
		t.Error("a raw value of the wrong type was accepted")
	}
}

// flagged is a Flagged value, as a provider setting is.
type flagged[T any] struct {
	Value         T
	Null, Unknown bool
}

func (f *flagged[T]) Flag(null, unknown bool) any { f.Null, f.Unknown = null, unknown; return &f.Value }

func TestDecodeFlagged(t *testing.T) {
	type settings struct {
		Region  flagged[string]  `tfsdk:"region"`
		Retries flagged[int64]   `tfsdk:"retries"`
		Lookup  flagged[bool]    `tfsdk:"lookup"`
		Dir     *flagged[string] `tfsdk:"dir"`
	}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"region": tftypes.String, "retries": tftypes.Number, "lookup": tftypes.Bool, "dir": tftypes.String}}
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"region": tftypes.NewValue(tftypes.String, "eu-west-1"), "retries": tftypes.NewValue(tftypes.Number, tftypes.UnknownValue),
		"lookup": tftypes.NewValue(tftypes.Bool, nil), "dir": tftypes.NewValue(tftypes.String, "/tmp/c"),
	})
	out := settings{Retries: flagged[int64]{Value: 7}, Lookup: flagged[bool]{Value: true}}
	if err := Decode(v, &out); err != nil {
		t.Fatal(err)
	}
	want := settings{Region: flagged[string]{Value: "eu-west-1"}, Retries: flagged[int64]{Unknown: true},
		Lookup: flagged[bool]{Null: true}, Dir: &flagged[string]{Value: "/tmp/c"}}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got %+v, want %+v", out, want)
	}
	// A value of the wrong type is an error on its attribute, as for a plain field.
	bad := tftypes.NewValue(typ, map[string]tftypes.Value{"region": tftypes.NewValue(tftypes.String, nil),
		"retries": tftypes.NewValue(tftypes.Number, nil), "lookup": tftypes.NewValue(tftypes.Bool, nil), "dir": tftypes.NewValue(tftypes.String, nil)})
	var wrong struct {
		Region flagged[int64] `tfsdk:"region"`
		_      struct{}       `tfsdk:"retries"`
		_      struct{}       `tfsdk:"lookup"`
		_      struct{}       `tfsdk:"dir"`
	}
	if err := Decode(bad, &wrong); err != nil || !wrong.Region.Null {
		t.Errorf("null into a flagged number: %v, %+v", err, wrong)
	}
	known := tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"region": tftypes.String}},
		map[string]tftypes.Value{"region": tftypes.NewValue(tftypes.String, "x")})
	if err := Decode(known, &wrong); err == nil {
		t.Error("a string into a flagged number decoded")
	}
}

// Decode is strict: an attribute of the value with no field is an error naming the attribute
// and the Go type, at its path; a blank field tagged with its name ignores it.
func TestDecodeStrict(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name": tftypes.String, "nodes": tftypes.List{ElementType: innerType}, "manifest": tftypes.String}}
	node := tftypes.NewValue(innerType, map[string]tftypes.Value{"key": tftypes.NewValue(tftypes.String, "k"),
		"values": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, nil), "min": tftypes.NewValue(tftypes.Number, nil)})
	v := tftypes.NewValue(typ, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, "pool"),
		"nodes":    tftypes.NewValue(tftypes.List{ElementType: innerType}, []tftypes.Value{node}),
		"manifest": tftypes.NewValue(tftypes.String, "kind: NodePool")})

	type typo struct {
		Name  string   `tfsdk:"names"`
		Nodes []inner  `tfsdk:"nodes"`
		_     struct{} `tfsdk:"manifest"`
	}
	err := Decode(v, &typo{})
	if err == nil || !strings.Contains(err.Error(), `tfvalue.typo has no field for attribute "name"`) {
		t.Errorf("a typo in a tag: %v", err)
	}

	type missing struct {
		Nodes []inner `tfsdk:"nodes"`
	}
	err = Decode(v, &missing{})
	if err == nil || !strings.Contains(err.Error(), `has no field for attributes "manifest", "name"`) {
		t.Errorf("two attributes without a field: %v", err)
	}

	type short struct {
		Key string `tfsdk:"key"`
	}
	type nested struct {
		Name  string   `tfsdk:"name"`
		Nodes []short  `tfsdk:"nodes"`
		_     struct{} `tfsdk:"manifest"`
	}
	err = Decode(v, &nested{})
	if err == nil || !strings.HasPrefix(err.Error(), `nodes[0]: Go tfvalue.short has no field for attributes "min", "values"`) {
		t.Errorf("a nested object's attributes without a field: %v", err)
	}

	type ignores struct {
		Name  string   `tfsdk:"name"`
		Nodes []inner  `tfsdk:"nodes"`
		_     struct{} `tfsdk:"manifest"` // read raw elsewhere
	}
	var got ignores
	if err := Decode(v, &got); err != nil || got.Name != "pool" || len(got.Nodes) != 1 || got.Nodes[0].Key != "k" {
		t.Errorf("with the attribute ignored: %v, %+v", err, got)
	}
	// An ignored attribute is not the struct's: Names and Encode leave it out.
	if names := Names(got); len(names) != 2 {
		t.Errorf("names %v", names)
	}
	if _, err := Encode(typ, got); err == nil {
		t.Error("an ignored attribute was encoded")
	}
	// Maps read every attribute, as before.
	var m map[string]tftypes.Value
	if err := Decode(v, &m); err != nil || len(m) != 3 {
		t.Errorf("into a map: %v, %v", err, m)
	}
}
