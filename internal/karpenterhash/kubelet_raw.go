package karpenterhash

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// RawKubeletConfiguration mirrors karpenter.k8s.aws/v1 KubeletConfiguration of Karpenter 1.15:
// spec.kubelet as a free-form map from kubelet configuration field to its JSON value (any
// KubeletConfiguration key; maxPods may be a string CEL expression). Karpenter does not hash the
// field itself; hash version v6 hashes String() next to the spec instead.
type RawKubeletConfiguration map[string]apiextensionsv1.JSON

// String is the canonical JSON of the map as Karpenter 1.15 hashes it (see CanonicalJSON); it
// names the error instead when a value is not valid JSON.
func (kc RawKubeletConfiguration) String() string {
	s, err := kc.CanonicalJSON()
	if err != nil {
		return "<invalid spec.kubelet: " + err.Error() + ">"
	}
	return s
}

// CanonicalJSON is the string Karpenter 1.15 hashes for spec.kubelet: encoding/json's encoding
// of the map (keys sorted, each value compacted as the API server served it), or "null" when
// spec.kubelet is empty or absent. It fails on a value that is not valid JSON, on which
// Karpenter would exit.
func (kc RawKubeletConfiguration) CanonicalJSON() (string, error) {
	if len(kc) == 0 {
		return "null", nil
	}
	out, err := json.Marshal(map[string]apiextensionsv1.JSON(kc))
	if err != nil {
		return "", fmt.Errorf("spec.kubelet: %w", err)
	}
	return string(out), nil
}

// rawKubelet converts spec.kubelet as the stored object holds it (a decoded JSON object) into
// the map Karpenter 1.15 decodes: each value re-encoded as the API server serves it (object
// keys sorted, numbers as decoded). A JSON null value is kept as an empty JSON, which encodes
// as null like Karpenter's.
func rawKubelet(v any) (RawKubeletConfiguration, error) {
	if v == nil {
		return nil, nil
	}
	fields, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("spec.kubelet is %T, not an object", v)
	}
	out := make(RawKubeletConfiguration, len(fields))
	for k, fv := range fields {
		var j apiextensionsv1.JSON
		if fv != nil {
			raw, err := json.Marshal(fv)
			if err != nil {
				return nil, err
			}
			j.Raw = raw
		}
		out[k] = j
	}
	return out, nil
}
