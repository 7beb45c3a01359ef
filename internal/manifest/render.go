package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// API groups, versions and kinds rendered by this package.
const (
	EC2NodeClassAPIVersion = "karpenter.k8s.aws/v1"
	EC2NodeClassKind       = "EC2NodeClass"
	NodePoolAPIVersion     = "karpenter.sh/v1"
	NodePoolKind           = "NodePool"
	NodeOverlayAPIVersion  = "karpenter.sh/v1alpha1"
	NodeOverlayKind        = "NodeOverlay"

	// DefaultNodeClassGroup and DefaultNodeClassKind fill an empty nodeClassRef group/kind.
	DefaultNodeClassGroup = "karpenter.k8s.aws"
	DefaultNodeClassKind  = EC2NodeClassKind
)

// objectMeta is the rendered metadata block.
type objectMeta struct {
	Name        string            `yaml:"name"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// document fixes the top-level field order: apiVersion, kind, metadata, spec.
type document struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       any        `yaml:"spec"`
}

// RenderEC2NodeClass renders nc as a karpenter.k8s.aws/v1 EC2NodeClass YAML document.
func RenderEC2NodeClass(nc EC2NodeClass) (string, error) {
	return render(document{
		APIVersion: EC2NodeClassAPIVersion,
		Kind:       EC2NodeClassKind,
		Metadata:   objectMeta{Name: nc.Name, Labels: nc.Labels, Annotations: nc.Annotations},
		Spec:       nc.Spec,
	})
}

// RenderNodePool renders np as a karpenter.sh/v1 NodePool YAML document. An empty
// nodeClassRef group or kind is rendered as DefaultNodeClassGroup / DefaultNodeClassKind.
func RenderNodePool(np NodePool) (string, error) {
	spec := np.Spec
	if spec.Template.Spec.NodeClassRef.Group == "" {
		spec.Template.Spec.NodeClassRef.Group = DefaultNodeClassGroup
	}
	if spec.Template.Spec.NodeClassRef.Kind == "" {
		spec.Template.Spec.NodeClassRef.Kind = DefaultNodeClassKind
	}
	return render(document{
		APIVersion: NodePoolAPIVersion,
		Kind:       NodePoolKind,
		Metadata:   objectMeta{Name: np.Name, Labels: np.Labels, Annotations: np.Annotations},
		Spec:       spec,
	})
}

// RenderNodeOverlay renders o as a karpenter.sh/v1alpha1 NodeOverlay YAML document.
func RenderNodeOverlay(o NodeOverlay) (string, error) {
	return render(document{
		APIVersion: NodeOverlayAPIVersion,
		Kind:       NodeOverlayKind,
		Metadata:   objectMeta{Name: o.Name, Labels: o.Labels, Annotations: o.Annotations},
		Spec:       o.Spec,
	})
}

func render(doc document) (string, error) {
	if doc.Metadata.Name == "" {
		return "", fmt.Errorf("%s: metadata.name must not be empty", doc.Kind)
	}
	root, err := toNode(reflect.ValueOf(doc), doc.Kind)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return "", fmt.Errorf("%s: encoding YAML: %w", doc.Kind, err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("%s: encoding YAML: %w", doc.Kind, err)
	}
	return buf.String(), nil
}

// toNode converts v into a YAML node tree. Structs keep their field order (taken from the yaml
// tags, honouring omitempty); map keys are sorted bytewise; strings get the quoting yaml.v3
// itself would choose (so "1000", "true", "yes", "~" and the like are quoted) except that
// single quotes become double quotes. path names the field for error messages.
func toNode(v reflect.Value, path string) (*yaml.Node, error) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
		}
		return toNode(v.Elem(), path)
	case reflect.Struct:
		return structNode(v, path)
	case reflect.Map:
		return mapNode(v, path)
	case reflect.Slice, reflect.Array:
		return sequenceNode(v, path)
	case reflect.String:
		return stringNode(v.String(), path)
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(v.Uint(), 10)}, nil
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); f == float64(int64(f)) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(f), 10)}, nil
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(v.Float(), 'g', -1, 64)}, nil
	default:
		return nil, fmt.Errorf("%s: unsupported type %s", path, v.Type())
	}
}

// structNode is a mapping of the struct's exported fields in declaration order, named by their
// yaml tags: "-" is skipped, omitempty drops an empty value, and an inline map's entries join
// the struct's own.
func structNode(v reflect.Value, path string) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" && opts == "inline" && f.Type.Kind() == reflect.Map {
			inline, err := toNode(v.Field(i), path)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, inline.Content...) // a nil map renders as null: no content
			continue
		}
		if name == "" {
			name = f.Name
		}
		fv := v.Field(i)
		if slices.Contains(strings.Split(opts, ","), "omitempty") && isEmpty(fv) {
			continue
		}
		child, err := toNode(fv, path+"."+name)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, plainKey(name), child)
	}
	return n, nil
}

// mapNode is a mapping of a string-keyed map, keys sorted so that the rendering is stable.
func mapNode(v reflect.Value, path string) (*yaml.Node, error) {
	if v.Type().Key().Kind() != reflect.String {
		return nil, fmt.Errorf("%s: unsupported map key type %s", path, v.Type().Key())
	}
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range keys {
		kn, err := stringNode(k, path+" key")
		if err != nil {
			return nil, err
		}
		child, err := toNode(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())), path+"["+strconv.Quote(k)+"]")
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, kn, child)
	}
	return n, nil
}

// sequenceNode is a sequence of the items, in flow style when they are short scalars.
func sequenceNode(v reflect.Value, path string) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for i := range v.Len() {
		child, err := toNode(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, child)
	}
	if flowable(n.Content) {
		n.Style = yaml.FlowStyle
	}
	return n, nil
}

// flowLimit is the longest list of scalars written on one line (`values: [c, m, r]`): short
// lists read better in a plan that way; longer ones stay one item per line.
const flowLimit = 60

// flowable reports whether a sequence of these items is written in flow style: all plain or
// quoted one-line scalars, short enough together.
func flowable(items []*yaml.Node) bool {
	if len(items) == 0 {
		return false
	}
	total := 0
	for _, c := range items {
		if c.Kind != yaml.ScalarNode || c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.ContainsAny(c.Value, "\n") {
			return false
		}
		total += len(c.Value) + 2
	}
	return total <= flowLimit
}

// isEmpty reports whether an omitempty field is left out: nil pointers, empty strings, empty
// slices and maps, zero numbers and false, and structs whose fields are all empty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array, reflect.String:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !isEmpty(v.Field(i)) {
				return false
			}
		}
		return true
	default:
		return v.IsZero()
	}
}

func plainKey(name string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}
}

var errInvalidUTF8 = errors.New("string is not valid UTF-8")

// stringNode returns a scalar node for s styled the way yaml.v3 marshals a Go string (plain when
// that reads back as the same string, quoted otherwise, literal block for multi-line text), with
// single-quoted style replaced by double quotes for uniformity, and double quotes whenever
// yaml.v3's choice does not read back as s.
func stringNode(s, path string) (*yaml.Node, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("%s: %w: %q", path, errInvalidUTF8, s)
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: stringStyle(s)}, nil
}

// stringStyle is stringNode's choice of style. yaml.v3 decides it by encoding s and reading the
// result back, which costs more than the rest of a manifest's rendering; the same keys and
// values recur in every manifest of a plan, so short strings' styles are kept.
func stringStyle(s string) yaml.Style {
	keep := len(s) <= styleKeptLen
	if keep {
		if st, ok := styles.Load(s); ok {
			if style, ok := st.(yaml.Style); ok {
				return style
			}
		}
	}
	var n yaml.Node
	st := yaml.DoubleQuotedStyle
	// Encode reparses its own output. yaml.v3 gets some literal blocks wrong (leading newlines,
	// a first line of only tabs); double quotes, with escapes, are always exact.
	if encErr := n.Encode(s); encErr == nil && n.Kind == yaml.ScalarNode && n.Value == s {
		st = n.Style
		if st&yaml.SingleQuotedStyle != 0 || s == "<<" {
			st = yaml.DoubleQuotedStyle // "<<" would be read as a merge key
		}
	}
	if keep && stylesKept.Add(1) <= styleKeptMax {
		styles.Store(s, st)
	}
	return st
}

// styleKeptLen and styleKeptMax bound what stringStyle keeps: the strings of names, keys,
// values and quantities, at most a few thousand of them.
const (
	styleKeptLen = 128
	styleKeptMax = 4096
)

var (
	styles     sync.Map
	stylesKept atomic.Int64
)
