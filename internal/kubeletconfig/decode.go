package kubeletconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	sigsjson "sigs.k8s.io/json"
)

// upstreamType names the type spec.kubelet is decoded against in messages.
const upstreamType = "KubeletConfiguration v1beta1"

// upstreamKubelet is what Karpenter v1.15.2 decodes spec.kubelet against: KubeletConfiguration
// of k8s.io/kubelet v0.37.0. This module builds against v0.34.2, whose type tree is the same but
// for three top-level fields; they are declared here with their v0.37.0 types.
type upstreamKubelet struct {
	kubeletv1beta1.KubeletConfiguration `json:",inline"`

	TLSCurvePreferences     []int32           `json:"tlsCurvePreferences,omitempty"`
	DefaultPodSysctls       map[string]string `json:"defaultPodSysctls,omitempty"`
	MemoryReservationPolicy string            `json:"memoryReservationPolicy,omitempty"`
}

// strictFieldRE pulls the path out of a strict error that doesn't carry one structurally.
var strictFieldRE = regexp.MustCompile(`(?:unknown|duplicate) field "([^"]*)"`)

// decodeProblems decodes raw strictly against the upstream KubeletConfiguration, as Karpenter
// does: unknown fields and wrong JSON types are problems. A string maxPods (an expression) is
// swapped for 0 so that it doesn't mask the rest of the document.
//
// A wrong type aborts the whole decode upstream, which then reports that one error alone. Here
// each key is then decoded on its own, which finds the same keys at fault (fields decode
// independently) but reports every one of them, each on its own key.
func decodeProblems(raw rawConfig) []Problem {
	doc := raw
	if value, ok := raw["maxPods"]; ok && isJSONString(value) {
		doc = maps.Clone(raw)
		doc["maxPods"] = json.RawMessage("0")
	}
	strict, err := strictDecode(doc)
	if err == nil {
		return strictProblems(doc, strict)
	}
	var problems []Problem
	for _, key := range slices.Sorted(maps.Keys(doc)) {
		one := rawConfig{key: doc[key]}
		strict, keyErr := strictDecode(one)
		if keyErr != nil {
			problems = append(problems, fatalProblem(key, keyErr))
			continue
		}
		problems = append(problems, strictProblems(one, strict)...)
	}
	if len(problems) == 0 {
		problems = append(problems, Problem{Message: trimJSONPrefix(err.Error())})
	}
	return problems
}

func strictDecode(doc rawConfig) ([]error, error) {
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return sigsjson.UnmarshalStrict(data, &upstreamKubelet{})
}

// strictProblems places each strict error (an unknown field, nested or not) on the top-level key
// whose subtree holds it.
func strictProblems(doc rawConfig, strict []error) []Problem {
	problems := make([]Problem, 0, len(strict))
	for _, err := range strict {
		path := ""
		var fieldErr sigsjson.FieldError
		if errors.As(err, &fieldErr) {
			path = fieldErr.FieldPath()
		} else if m := strictFieldRE.FindStringSubmatch(err.Error()); m != nil {
			path = m[1]
		}
		msg := trimJSONPrefix(err.Error())
		if strings.HasPrefix(msg, "unknown field") {
			msg = unknownFieldMessage(path)
		}
		problems = append(problems, Problem{Field: topLevelKey(doc, path), Message: msg})
	}
	return problems
}

// unknownFieldMessage explains an unknown field, with the closest declared name when one is near.
func unknownFieldMessage(path string) string {
	hint := "not a " + upstreamType + " field"
	parent, name := splitPath(path)
	if suggestion := closest(name, fieldNamesAt(parent)); suggestion != "" {
		hint += fmt.Sprintf("; did you mean %q?", joinPath(parent, suggestion))
	}
	return fmt.Sprintf("unknown field %q (%s)", path, hint)
}

// fatalProblem describes an error that stopped the decode of key.
func fatalProblem(key string, err error) Problem {
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		return Problem{Field: []string{key}, Message: "invalid value: " + trimJSONPrefix(err.Error())}
	}
	msg := fmt.Sprintf("got %s where %s expects %s", describeJSONValue(typeErr.Value), upstreamType, describeGoType(typeErr.Type))
	if typeErr.Field != "" && typeErr.Field != key {
		msg = typeErr.Field + ": " + msg
	}
	return Problem{Field: []string{key}, Message: msg}
}

// topLevelKey finds the key of doc that path starts in. Keys may themselves hold dots, so the
// longest key that is a whole prefix wins; failing that, the first path segment.
func topLevelKey(doc rawConfig, path string) []string {
	best := ""
	for key := range doc {
		if len(key) <= len(best) || !strings.HasPrefix(path, key) {
			continue
		}
		if rest := path[len(key):]; rest == "" || rest[0] == '.' || rest[0] == '[' {
			best = key
		}
	}
	if best == "" {
		best, _, _ = strings.Cut(path, ".")
		best, _, _ = strings.Cut(best, "[")
	}
	if best == "" {
		return nil
	}
	return []string{best}
}

func trimJSONPrefix(msg string) string { return strings.TrimPrefix(msg, "json: ") }

func describeJSONValue(value string) string {
	switch value {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "a boolean"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return value // e.g. "number 1.5": a number that doesn't fit the integer type
}

func describeGoType(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer (" + t.Kind().String() + ")"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer (" + t.Kind().String() + ")"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}
