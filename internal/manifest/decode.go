package manifest

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// DecodeObject reads a YAML (or JSON) document as the API server reads a request body: YAML
// to JSON, then JSON to an object whose integers are int64. A plan reads each manifest it renders
// twice (admission, then Karpenter's hash of what the API server stores), and parsing YAML is
// most of either: the objects of the documents read last are kept, and every caller gets its
// own deep copy, free to prune and default it. The errors say what the document is not ("not
// YAML: …", "not an object: …") for the caller to name the document.
func DecodeObject(doc string) (map[string]any, error) {
	decoded.mu.Lock()
	obj, ok := decoded.objects[doc]
	decoded.mu.Unlock()
	if !ok {
		raw, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("not YAML: %w", err)
		}
		if err := utiljson.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("not an object: %w", err)
		}
		if obj == nil {
			return nil, nil // the document "null"
		}
		decoded.mu.Lock()
		if len(decoded.objects) >= decodedKept {
			clear(decoded.objects) // a plan's pools come and go in Terraform's batches of ten
		}
		decoded.objects[doc] = obj
		decoded.mu.Unlock()
	}
	return runtime.DeepCopyJSON(obj), nil
}

// decodedKept bounds the documents DecodeObject keeps: a few times Terraform's parallelism.
const decodedKept = 64

var decoded = struct {
	mu      sync.Mutex
	objects map[string]map[string]any
}{objects: map[string]map[string]any{}}
