// Package crdcheck validates rendered Karpenter manifests against a CustomResourceDefinition file.
// It is test support: only tests import it (it pulls in a JSON Schema validator the provider
// binary does not need).
//
// Validate converts the CRD's v1 openAPIV3Schema into a JSON Schema (draft 2020-12), validates
// the object with github.com/santhosh-tekuri/jsonschema/v6, and then applies Go versions of the
// CEL rules (x-kubernetes-validations) of the EC2NodeClass and NodePool CRDs that a JSON Schema
// cannot express. Rules that compare with the old object (transition rules using oldSelf) cannot
// be checked on a single document and are skipped.
//
// Two deliberate differences from the API server: unknown fields are rejected (the API server
// prunes or warns; here they almost always mean a misspelt field), and defaults are not applied
// (the document is checked as written).
package crdcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// crd is one loaded CustomResourceDefinition, compiled.
type crd struct {
	group  string
	kind   string
	schema *jsonschema.Schema
	// allowedAWSLabels lists the karpenter.k8s.aws/* label keys the NodePool CRD lets users
	// use in requirements and template labels (read from the CRD's own CEL rule).
	allowedAWSLabels map[string]bool
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*crd{}
)

// Validate checks yamlDoc (exactly one YAML document) against the CRD at crdPath: apiVersion and
// kind, metadata.name, the v1 schema, and the CEL rules this package implements. It returns nil
// when the document is valid, or an error listing every violation found. The compiled schema is
// cached per (absolute) path.
func Validate(crdPath, yamlDoc string) error {
	c, err := load(crdPath)
	if err != nil {
		return err
	}
	obj, err := parseDocument(yamlDoc)
	if err != nil {
		return err
	}
	var errs []error
	root, _ := obj.(map[string]any)
	if root == nil {
		return errors.New("document is not a YAML mapping")
	}
	if got, want := root["apiVersion"], c.group+"/v1"; got != want {
		errs = append(errs, fmt.Errorf("apiVersion: got %v, want %s", got, want))
	}
	if got := root["kind"]; got != c.kind {
		errs = append(errs, fmt.Errorf("kind: got %v, want %s", got, c.kind))
	}
	errs = append(errs, checkMetadata(root["metadata"])...)
	if err := c.schema.Validate(obj); err != nil {
		errs = append(errs, fmt.Errorf("schema: %w", err))
	}
	spec, _ := root["spec"].(map[string]any)
	switch c.kind {
	case "EC2NodeClass":
		errs = append(errs, ec2NodeClassRules(spec)...)
	case "NodePool":
		errs = append(errs, c.nodePoolRules(spec)...)
	}
	return errors.Join(errs...)
}

var dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func checkMetadata(v any) []error {
	md, ok := v.(map[string]any)
	if !ok {
		return []error{errors.New("metadata: missing or not a mapping")}
	}
	name, _ := md["name"].(string)
	if name == "" {
		return []error{errors.New("metadata.name: required")}
	}
	var errs []error
	if len(name) > 253 || !dns1123Subdomain.MatchString(name) {
		errs = append(errs, fmt.Errorf("metadata.name: %q is not a lowercase RFC 1123 subdomain", name))
	}
	labels, _ := md["labels"].(map[string]any)
	for _, k := range sortedKeys(labels) {
		if msg := qualifiedName(k); msg != "" {
			errs = append(errs, fmt.Errorf("metadata.labels: key %q: %s", k, msg))
		}
		if v, ok := labels[k].(string); !ok || len(v) > 63 || !labelValue.MatchString(v) {
			errs = append(errs, fmt.Errorf("metadata.labels[%q]: %#v is not a valid label value", k, labels[k]))
		}
	}
	annotations, _ := md["annotations"].(map[string]any)
	for _, k := range sortedKeys(annotations) {
		if msg := qualifiedName(k); msg != "" {
			errs = append(errs, fmt.Errorf("metadata.annotations: key %q: %s", k, msg))
		}
		if _, ok := annotations[k].(string); !ok {
			errs = append(errs, fmt.Errorf("metadata.annotations[%q]: %#v is not a string", k, annotations[k]))
		}
	}
	return errs
}

var (
	labelName  = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	labelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
)

// qualifiedName checks a Kubernetes label or annotation key: an optional DNS subdomain prefix
// and "/", then a name of at most 63 characters.
func qualifiedName(key string) string {
	prefix, name, found := strings.Cut(key, "/")
	if !found {
		name = key
	} else if prefix == "" || len(prefix) > 253 || !dns1123Subdomain.MatchString(prefix) {
		return "prefix must be a lowercase DNS subdomain"
	}
	if name == "" || len(name) > 63 || !labelName.MatchString(name) {
		return "name must be 1-63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric"
	}
	return ""
}

// parseDocument decodes exactly one YAML document into JSON-compatible values (maps with string
// keys, []any, string, bool, json.Number, nil).
func parseDocument(doc string) (any, error) {
	dec := yaml.NewDecoder(strings.NewReader(doc))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("parsing YAML: %w", err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, fmt.Errorf("parsing YAML: %w", err)
		}
		return nil, errors.New("parsing YAML: more than one document")
	}
	v, err := jsonCompatible(v, "")
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("converting YAML to JSON: %w", err)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// jsonCompatible rejects what JSON cannot hold (non-string keys, timestamps, binary) and turns
// map[any]any into map[string]any.
func jsonCompatible(v any, path string) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			c, err := jsonCompatible(e, path+"/"+k)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("%s: map key %v (%T) is not a string", path, k, k)
			}
			c, err := jsonCompatible(e, path+"/"+ks)
			if err != nil {
				return nil, err
			}
			out[ks] = c
		}
		return out, nil
	case []any:
		for i, e := range t {
			c, err := jsonCompatible(e, fmt.Sprintf("%s/%d", path, i))
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	case nil, string, bool, int, int64, uint64:
		return t, nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("%s: %v is not a JSON number", path, t)
		}
		return t, nil
	default:
		return nil, fmt.Errorf("%s: value %v (%T) has no JSON form", path, t, t)
	}
}

func load(path string) (*crd, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if c, ok := cache[abs]; ok {
		return c, nil
	}
	c, err := compile(abs)
	if err != nil {
		return nil, err
	}
	cache[abs] = c
	return c, nil
}

func compile(path string) (*crd, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading CRD: %w", err)
	}
	def, err := findCRD(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	spec, _ := def["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	if group == "" || kind == "" {
		return nil, fmt.Errorf("%s: CRD has no spec.group or spec.names.kind", path)
	}
	var openAPI map[string]any
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if vm["name"] == "v1" {
			s, _ := vm["schema"].(map[string]any)
			openAPI, _ = s["openAPIV3Schema"].(map[string]any)
		}
	}
	if openAPI == nil {
		return nil, fmt.Errorf("%s: no spec.versions[name=v1].schema.openAPIV3Schema", path)
	}

	js := toJSONSchema(openAPI)
	js["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	// Round-trip through JSON so every number is a json.Number, as the compiler expects.
	b, err := json.Marshal(js)
	if err != nil {
		return nil, fmt.Errorf("%s: marshalling converted schema: %w", path, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	url := "file:///crdcheck/" + group + "/" + kind + ".json"
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	if err := comp.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sch, err := comp.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s: compiling converted schema: %w", path, err)
	}
	return &crd{group: group, kind: kind, schema: sch, allowedAWSLabels: awsLabelAllowlist(openAPI)}, nil
}

// findCRD returns the first CustomResourceDefinition document in raw.
func findCRD(raw []byte) (map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no CustomResourceDefinition document")
		}
		if err != nil {
			return nil, fmt.Errorf("parsing CRD YAML: %w", err)
		}
		if doc["kind"] == "CustomResourceDefinition" {
			return doc, nil
		}
	}
}

// Keywords copied unchanged from an OpenAPI v3 (Kubernetes structural) schema node.
var passThrough = []string{
	"type", "required", "enum", "pattern", "minimum", "maximum", "maxItems", "minItems",
	"maxLength", "minLength", "maxProperties", "minProperties", "uniqueItems", "multipleOf",
}

// toJSONSchema converts one Kubernetes OpenAPI v3 schema node into a JSON Schema (2020-12) node:
//   - the keywords in passThrough are kept; properties, items, additionalProperties, allOf,
//     anyOf, oneOf and not are converted recursively;
//   - description, default, example, x-kubernetes-validations and other x-kubernetes-* keywords
//     are dropped;
//   - x-kubernetes-int-or-string: true becomes anyOf [integer, string];
//   - nullable: true adds "null" to the type;
//   - format int32/int64 become minimum/maximum bounds, date-time is kept, other formats dropped;
//   - x-kubernetes-list-type: set becomes uniqueItems;
//   - an object with properties but no additionalProperties and no
//     x-kubernetes-preserve-unknown-fields gets additionalProperties: false;
//   - boolean exclusiveMinimum/exclusiveMaximum (OpenAPI 3.0) become their numeric 2020-12 form.
func toJSONSchema(in map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range passThrough {
		if v, ok := in[k]; ok {
			out[k] = v
		}
	}
	if props, ok := in["properties"].(map[string]any); ok {
		cp := make(map[string]any, len(props))
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok {
				cp[name] = toJSONSchema(pm)
			}
		}
		out["properties"] = cp
	}
	if items, ok := in["items"].(map[string]any); ok {
		out["items"] = toJSONSchema(items)
	}
	switch ap := in["additionalProperties"].(type) {
	case map[string]any:
		out["additionalProperties"] = toJSONSchema(ap)
	case bool:
		out["additionalProperties"] = ap
	case nil:
		if _, hasProps := in["properties"]; hasProps && in["x-kubernetes-preserve-unknown-fields"] != true {
			out["additionalProperties"] = false
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := in[k].([]any); ok {
			var conv []any
			for _, e := range list {
				if em, ok := e.(map[string]any); ok {
					conv = append(conv, toJSONSchema(em))
				}
			}
			out[k] = conv
		}
	}
	if not, ok := in["not"].(map[string]any); ok {
		out["not"] = toJSONSchema(not)
	}
	if in["x-kubernetes-int-or-string"] == true {
		delete(out, "type")
		out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	}
	if in["nullable"] == true {
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
	}
	switch in["format"] {
	case "int32":
		if _, ok := out["minimum"]; !ok {
			out["minimum"] = math.MinInt32
		}
		if _, ok := out["maximum"]; !ok {
			out["maximum"] = math.MaxInt32
		}
	case "int64":
		if _, ok := out["minimum"]; !ok {
			out["minimum"] = math.MinInt64
		}
		if _, ok := out["maximum"]; !ok {
			out["maximum"] = math.MaxInt64
		}
	case "date-time":
		out["format"] = "date-time"
	}
	if in["x-kubernetes-list-type"] == "set" {
		out["uniqueItems"] = true
	}
	for k, bound := range map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"} {
		if in[k] == true {
			if v, ok := out[bound]; ok {
				out[k] = v
				delete(out, bound)
			}
		}
	}
	return out
}

// awsLabelAllowlist reads the karpenter.k8s.aws/* keys that the NodePool CRD's requirement-key
// CEL rule accepts. It returns nil for CRDs without such a rule.
func awsLabelAllowlist(openAPI map[string]any) map[string]bool {
	key := dig(openAPI, "properties", "spec", "properties", "template", "properties", "spec",
		"properties", "requirements", "items", "properties", "key")
	rules, _ := key["x-kubernetes-validations"].([]any)
	quoted := regexp.MustCompile(`"(karpenter\.k8s\.aws/[^"]+)"`)
	var out map[string]bool
	for _, r := range rules {
		rm, _ := r.(map[string]any)
		rule, _ := rm["rule"].(string)
		if !strings.Contains(rule, `endsWith("karpenter.k8s.aws")`) {
			continue
		}
		out = map[string]bool{}
		for _, m := range quoted.FindAllStringSubmatch(rule, -1) {
			out[m[1]] = true
		}
	}
	return out
}

func dig(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		next, _ := m[p].(map[string]any)
		if next == nil {
			return nil
		}
		m = next
	}
	return m
}
