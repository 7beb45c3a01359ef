// Package tfvalue converts between Terraform values (tftypes) and plain Go structs tagged like
// the plugin framework's models (`tfsdk:"name"`), without the framework's attr.Value layer:
// the provider decodes only the attributes it reads and encodes what it computes straight
// into the schema's types. Struct field plans are cached per Go type.
//
// Go shapes: string, bool, signed integers, float64, pointers (nil is null), slices (lists,
// sets and tuples; nil is null, empty is empty), maps with string keys, structs (objects), `any`
// (a dynamic value as JSON decodes one: map[string]any, []any, string, bool, int64 or
// float64), and tftypes.Value (the value as it is, for what must stay unknown).
//
// Decode reads unknown values as zero values: callers that care check the raw value
// (IsFullyKnown) first, or decode into a Flagged type, which keeps the two flags. Decode is
// strict: an object attribute with no field in the struct is an error (a typo in a tag is not
// silent), unless the struct lists it as ignored with a blank field,
//
//	_ struct{} `tfsdk:"manifest"` // read as a raw value elsewhere
//
// one per attribute the struct deliberately does not read. Fields without an attribute are
// left alone. Encode needs a field for every attribute of an object type (an ignored attribute
// cannot be encoded; a map may leave attributes out: they are null).
package tfvalue

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var rawType = reflect.TypeOf(tftypes.Value{})

// Flagged is a Go value (by pointer) that keeps whether its Terraform value is null or known
// only after apply, such as a provider setting: Decode hands it the two flags and decodes the
// value into the pointer Flag returns (the zero value when null or unknown).
type Flagged interface {
	Flag(null, unknown bool) any
}

var (
	flaggedType  = reflect.TypeOf((*Flagged)(nil)).Elem()
	flaggedTypes sync.Map // reflect.Type -> bool: does a pointer to it implement Flagged
)

// isFlagged reports whether *t implements Flagged, looked up once per type: decode asks for
// every struct it reads.
func isFlagged(t reflect.Type) bool {
	if v, ok := flaggedTypes.Load(t); ok {
		return v.(bool) //nolint:forcetypeassert // only bools are stored
	}
	is := reflect.PointerTo(t).Implements(flaggedType)
	flaggedTypes.Store(t, is)
	return is
}

// plan is how a struct type maps attributes: the fields that read them, and the attributes it
// deliberately ignores (blank fields tagged with their names).
type plan struct {
	fields  map[string][]int // attribute name -> field index
	ignored map[string]bool
}

var plans sync.Map // reflect.Type -> plan

func planOf(t reflect.Type) plan {
	if p, ok := plans.Load(t); ok {
		if p, ok := p.(plan); ok {
			return p
		}
	}
	p := plan{fields: map[string][]int{}, ignored: map[string]bool{}}
	collectFields(t, nil, p)
	plans.Store(t, p)
	return p
}

// fieldsOf maps a struct type's attribute names to field indexes.
func fieldsOf(t reflect.Type) map[string][]int { return planOf(t).fields }

// collectFields walks t's fields, embedded structs included (their attributes are t's own).
func collectFields(t reflect.Type, prefix []int, p plan) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(append([]int(nil), prefix...), i)
		name, _, _ := strings.Cut(f.Tag.Get("tfsdk"), ",")
		switch {
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			collectFields(f.Type, idx, p)
		case f.Name == "_" && name != "" && name != "-":
			p.ignored[name] = true
		case name != "" && name != "-" && f.IsExported():
			p.fields[name] = idx
		}
	}
}

// Decode reads v into dst, a non-nil pointer.
func Decode(v tftypes.Value, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("tfvalue.Decode: want a non-nil pointer, got %T", dst)
	}
	return decode(v, rv.Elem(), "")
}

func decode(v tftypes.Value, dst reflect.Value, at string) error {
	if dst.Type() == rawType {
		dst.Set(reflect.ValueOf(v))
		return nil
	}
	if dst.Kind() == reflect.Struct && dst.CanAddr() && isFlagged(dst.Type()) {
		f, _ := dst.Addr().Interface().(Flagged)
		return decode(v, reflect.ValueOf(f.Flag(v.IsNull(), !v.IsKnown())).Elem(), at)
	}
	if v.IsNull() || !v.IsKnown() {
		dst.SetZero()
		return nil
	}
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := decode(v, p.Elem(), at); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.Interface:
		x, err := plain(v)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if x != nil {
			dst.Set(reflect.ValueOf(x))
		}
		return nil
	case reflect.String:
		var s string
		if err := v.As(&s); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		dst.SetString(s)
	case reflect.Bool:
		var b bool
		if err := v.As(&b); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int32, reflect.Int64:
		n, err := number(v, at)
		if err != nil {
			return err
		}
		i, acc := n.Int64()
		if acc != big.Exact || dst.OverflowInt(i) {
			return &NumberError{At: at, Value: n.String()}
		}
		dst.SetInt(i)
	case reflect.Float64:
		n, err := number(v, at)
		if err != nil {
			return err
		}
		f, _ := n.Float64()
		dst.SetFloat(f)
	case reflect.Slice, reflect.Map, reflect.Struct:
		return decodeComposite(v, dst, at)
	default:
		return fmt.Errorf("%s: unsupported Go type %s", at, dst.Type())
	}
	return nil
}

// decodeComposite reads a known list, set, tuple, map or object into a slice, map or struct.
func decodeComposite(v tftypes.Value, dst reflect.Value, at string) error {
	switch dst.Kind() {
	case reflect.Slice:
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		s := reflect.MakeSlice(dst.Type(), len(elems), len(elems))
		for i, e := range elems {
			if err := decode(e, s.Index(i), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		dst.Set(s)
	case reflect.Map:
		var elems map[string]tftypes.Value
		if err := v.As(&elems); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		m := reflect.MakeMapWithSize(dst.Type(), len(elems))
		for k, e := range elems {
			ev := reflect.New(dst.Type().Elem()).Elem()
			if err := decode(e, ev, fmt.Sprintf("%s[%q]", at, k)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), ev)
		}
		dst.Set(m)
	case reflect.Struct:
		var attrs map[string]tftypes.Value
		if err := v.As(&attrs); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		p := planOf(dst.Type())
		if err := unread(attrs, p, dst.Type(), at); err != nil {
			return err
		}
		for name, av := range attrs {
			idx, ok := p.fields[name]
			if !ok {
				continue
			}
			if err := decode(av, dst.FieldByIndex(idx), join(at, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// unread is the error for the attributes of an object that t neither reads nor ignores.
func unread(attrs map[string]tftypes.Value, p plan, t reflect.Type, at string) error {
	var names []string
	for name := range attrs {
		if _, ok := p.fields[name]; !ok && !p.ignored[name] {
			names = append(names, strconv.Quote(name))
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	where := ""
	if at != "" {
		where = at + ": "
	}
	what := "attribute " + names[0]
	if len(names) > 1 {
		what = "attributes " + strings.Join(names, ", ")
	}
	return fmt.Errorf("%sGo %s has no field for %s (add one, or ignore it with a blank field: _ struct{} `tfsdk:%s`)", where, t, what, names[0])
}

func number(v tftypes.Value, at string) (*big.Float, error) {
	var n big.Float
	if err := v.As(&n); err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	return &n, nil
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// Plain is a known value as JSON decodes one (map[string]any, []any, string, bool, int64 or
// float64; null is nil); a value with anything unknown in it is an error.
func Plain(v tftypes.Value) (any, error) { return plain(v) }

func plain(v tftypes.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() {
		return nil, errors.New("a value is known only after apply")
	}
	t := v.Type()
	switch {
	case t.Is(tftypes.String):
		var s string
		err := v.As(&s)
		return s, err
	case t.Is(tftypes.Bool):
		var b bool
		err := v.As(&b)
		return b, err
	case t.Is(tftypes.Number):
		var n big.Float
		if err := v.As(&n); err != nil {
			return nil, err
		}
		if i, acc := n.Int64(); acc == big.Exact {
			return i, nil
		}
		f, _ := n.Float64()
		return f, nil
	case t.Is(tftypes.List{}), t.Is(tftypes.Set{}), t.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return nil, err
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			x, err := plain(e)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case t.Is(tftypes.Map{}), t.Is(tftypes.Object{}):
		var elems map[string]tftypes.Value
		if err := v.As(&elems); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(elems))
		for k, e := range elems {
			x, err := plain(e)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value type %s", t)
}

// Encode builds a value of type typ from src.
func Encode(typ tftypes.Type, src any) (tftypes.Value, error) {
	if src == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	return encode(typ, reflect.ValueOf(src), "")
}

// MustEncode is Encode for values whose shape the provider's own code fixes: an error is a bug.
func MustEncode(typ tftypes.Type, src any) tftypes.Value {
	v, err := Encode(typ, src)
	if err != nil {
		panic(err)
	}
	return v
}

func encode(typ tftypes.Type, src reflect.Value, at string) (tftypes.Value, error) {
	if src.Type() == rawType {
		v, _ := src.Interface().(tftypes.Value)
		if v.Type() == nil || !v.Type().Equal(typ) && !typ.Is(tftypes.DynamicPseudoType) {
			if v.Type() == nil { // the zero Value: null
				return tftypes.NewValue(typ, nil), nil
			}
			return tftypes.Value{}, fmt.Errorf("%s: value of type %s where %s is expected", at, v.Type(), typ)
		}
		return v, nil
	}
	switch src.Kind() {
	case reflect.Pointer, reflect.Interface:
		if src.IsNil() {
			return tftypes.NewValue(typ, nil), nil
		}
		return encode(typ, src.Elem(), at)
	case reflect.Slice, reflect.Map:
		if src.IsNil() {
			return tftypes.NewValue(typ, nil), nil
		}
	}
	if typ.Is(tftypes.DynamicPseudoType) {
		t, err := impliedType(src)
		if err != nil {
			return tftypes.Value{}, fmt.Errorf("%s: %w", at, err)
		}
		return encode(t, src, at)
	}
	switch {
	case typ.Is(tftypes.String):
		if src.Kind() == reflect.String {
			return tftypes.NewValue(typ, src.String()), nil
		}
	case typ.Is(tftypes.Bool):
		if src.Kind() == reflect.Bool {
			return tftypes.NewValue(typ, src.Bool()), nil
		}
	case typ.Is(tftypes.Number):
		switch src.Kind() {
		case reflect.Int, reflect.Int32, reflect.Int64:
			return tftypes.NewValue(typ, new(big.Float).SetInt64(src.Int())), nil
		case reflect.Float64, reflect.Float32:
			return tftypes.NewValue(typ, big.NewFloat(src.Float())), nil
		}
	}
	switch t := typ.(type) {
	case tftypes.List:
		return encodeElems(typ, t.ElementType, nil, src, at)
	case tftypes.Set:
		return encodeElems(typ, t.ElementType, nil, src, at)
	case tftypes.Tuple:
		return encodeElems(typ, nil, t.ElementTypes, src, at)
	case tftypes.Map:
		if src.Kind() == reflect.Map && src.Type().Key().Kind() == reflect.String {
			elems := make(map[string]tftypes.Value, src.Len())
			it := src.MapRange()
			for it.Next() {
				k := it.Key().String()
				e, err := encode(t.ElementType, it.Value(), fmt.Sprintf("%s[%q]", at, k))
				if err != nil {
					return tftypes.Value{}, err
				}
				elems[k] = e
			}
			return tftypes.NewValue(typ, elems), nil
		}
	case tftypes.Object:
		return encodeObject(t, src, at)
	}
	return tftypes.Value{}, fmt.Errorf("%s: cannot encode Go %s as %s", at, src.Type(), typ)
}

// encodeElems encodes a slice as a list or set (elem) or a tuple (elems).
func encodeElems(typ, elem tftypes.Type, elems []tftypes.Type, src reflect.Value, at string) (tftypes.Value, error) {
	if src.Kind() != reflect.Slice {
		return tftypes.Value{}, fmt.Errorf("%s: cannot encode Go %s as %s", at, src.Type(), typ)
	}
	if elems != nil && len(elems) != src.Len() {
		return tftypes.Value{}, fmt.Errorf("%s: %d elements for a tuple of %d", at, src.Len(), len(elems))
	}
	out := make([]tftypes.Value, src.Len())
	for i := range out {
		et := elem
		if elems != nil {
			et = elems[i]
		}
		e, err := encode(et, src.Index(i), fmt.Sprintf("%s[%d]", at, i))
		if err != nil {
			return tftypes.Value{}, err
		}
		out[i] = e
	}
	return tftypes.NewValue(typ, out), nil
}

func encodeObject(typ tftypes.Object, src reflect.Value, at string) (tftypes.Value, error) {
	attrs := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	switch src.Kind() {
	case reflect.Struct:
		fs := fieldsOf(src.Type())
		for name, at2 := range typ.AttributeTypes {
			idx, ok := fs[name]
			if !ok {
				return tftypes.Value{}, fmt.Errorf("%s: Go %s has no field for attribute %q", at, src.Type(), name)
			}
			v, err := encode(at2, src.FieldByIndex(idx), join(at, name))
			if err != nil {
				return tftypes.Value{}, err
			}
			attrs[name] = v
		}
	case reflect.Map:
		for name, at2 := range typ.AttributeTypes {
			e := src.MapIndex(reflect.ValueOf(name))
			if !e.IsValid() {
				attrs[name] = tftypes.NewValue(at2, nil)
				continue
			}
			v, err := encode(at2, e, join(at, name))
			if err != nil {
				return tftypes.Value{}, err
			}
			attrs[name] = v
		}
	default:
		return tftypes.Value{}, fmt.Errorf("%s: cannot encode Go %s as an object", at, src.Type())
	}
	return tftypes.NewValue(typ, attrs), nil
}

// impliedType is the Terraform type of a plain value (what a dynamic attribute holds).
// A raw value has its own type; a nil has none, so it is a null string, as a YAML or JSON null.
func impliedType(src reflect.Value) (tftypes.Type, error) {
	for src.Kind() == reflect.Pointer || src.Kind() == reflect.Interface {
		if src.IsNil() {
			return tftypes.String, nil
		}
		src = src.Elem()
	}
	if src.Type() == rawType {
		v, _ := src.Interface().(tftypes.Value)
		return v.Type(), nil
	}
	switch src.Kind() {
	case reflect.String:
		return tftypes.String, nil
	case reflect.Bool:
		return tftypes.Bool, nil
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Float64, reflect.Float32:
		return tftypes.Number, nil
	case reflect.Slice:
		ets := make([]tftypes.Type, src.Len())
		for i := range ets {
			t, err := impliedType(src.Index(i))
			if err != nil {
				return nil, err
			}
			ets[i] = t
		}
		return tftypes.Tuple{ElementTypes: ets}, nil
	case reflect.Map:
		ats := make(map[string]tftypes.Type, src.Len())
		it := src.MapRange()
		for it.Next() {
			t, err := impliedType(it.Value())
			if err != nil {
				return nil, err
			}
			ats[it.Key().String()] = t
		}
		return tftypes.Object{AttributeTypes: ats}, nil
	}
	return nil, fmt.Errorf("no Terraform type for Go %s", src.Type())
}

// Attributes is an object value's attributes (nil for a null or unknown object).
func Attributes(v tftypes.Value) map[string]tftypes.Value {
	var attrs map[string]tftypes.Value
	if v.IsNull() || !v.IsKnown() || v.As(&attrs) != nil {
		return nil
	}
	return attrs
}

// With is the object value obj with the given attributes replaced, in one pass: values are Go
// values encoded to each attribute's type (tftypes.Value as it is).
func With(obj tftypes.Value, values map[string]any) (tftypes.Value, error) {
	ot, ok := obj.Type().(tftypes.Object)
	attrs := Attributes(obj)
	switch {
	case !ok || !obj.IsKnown():
		return obj, fmt.Errorf("tfvalue.With: not a known object: %s", obj.Type())
	case obj.IsNull(): // e.g. an import's empty state: every other attribute null
		attrs = make(map[string]tftypes.Value, len(ot.AttributeTypes))
		for name, t := range ot.AttributeTypes {
			attrs[name] = tftypes.NewValue(t, nil)
		}
	}
	for name, src := range values {
		t, ok := ot.AttributeTypes[name]
		if !ok {
			return obj, fmt.Errorf("tfvalue.With: no attribute %q", name)
		}
		v, err := Encode(t, src)
		if err != nil {
			return obj, fmt.Errorf("%s: %w", name, err)
		}
		attrs[name] = v
	}
	return tftypes.NewValue(ot, attrs), nil
}

// Unknown is an unknown value of typ.
func Unknown(typ tftypes.Type) tftypes.Value { return tftypes.NewValue(typ, tftypes.UnknownValue) }

// AttributeType is the type of attribute name of an object type (nil when there is none).
func AttributeType(obj tftypes.Type, name string) tftypes.Type {
	if ot, ok := obj.(tftypes.Object); ok {
		return ot.AttributeTypes[name]
	}
	return nil
}

// Set is the object value obj with each tagged field of src (a struct) written to its
// attribute, in one pass; the other attributes are kept.
func Set(obj tftypes.Value, src any) (tftypes.Value, error) {
	rv := reflect.ValueOf(src)
	for rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return obj, fmt.Errorf("tfvalue.Set: want a struct, got %T", src)
	}
	values := map[string]any{}
	for name, idx := range fieldsOf(rv.Type()) {
		values[name] = rv.FieldByIndex(idx).Interface()
	}
	return With(obj, values)
}

// Names are the attribute names of a struct's tagged fields (embedded structs' included).
func Names(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for name := range fieldsOf(t) {
		out = append(out, name)
	}
	return out
}
