package manifest

import (
	"fmt"
	"strings"
	"testing"
)

func TestDecodeObjectGivesEachCallerItsOwnCopy(t *testing.T) {
	doc := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: decode\nspec:\n  limits:\n    cpu: \"10\"\n  weight: 7\n"
	first, err := DecodeObject(doc)
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := first["spec"].(map[string]any)["weight"].(int64); !ok || w != 7 {
		t.Fatalf("spec.weight = %#v, want int64 7 (as the API server reads JSON)", first["spec"].(map[string]any)["weight"])
	}
	// Admission prunes and defaults its object: the next reader must not see that.
	first["spec"].(map[string]any)["limits"].(map[string]any)["cpu"] = "changed"
	delete(first, "metadata")
	second, err := DecodeObject(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got := second["spec"].(map[string]any)["limits"].(map[string]any)["cpu"]; got != "10" {
		t.Errorf("second read's spec.limits.cpu = %v, want 10", got)
	}
	if second["metadata"] == nil {
		t.Error("second read lost metadata, deleted from the first read's object")
	}
}

func TestDecodeObjectErrors(t *testing.T) {
	for doc, want := range map[string]string{
		"a: [unclosed":  "not YAML",
		"- a\n- b\n":    "not an object",
		"just a string": "not an object",
	} {
		if _, err := DecodeObject(doc); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("DecodeObject(%q) error = %v, want %q…", doc, err, want)
		}
	}
	if obj, err := DecodeObject("null"); err != nil || obj != nil {
		t.Errorf(`DecodeObject("null") = %v, %v, want nil, nil`, obj, err)
	}
}

func TestDecodeObjectKeepsABoundedNumber(t *testing.T) {
	for i := range 3 * decodedKept {
		if _, err := DecodeObject(fmt.Sprintf("kind: NodePool\nmetadata:\n  name: pool-%d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	decoded.mu.Lock()
	n := len(decoded.objects)
	decoded.mu.Unlock()
	if n == 0 || n > decodedKept {
		t.Errorf("%d documents kept, want 1…%d", n, decodedKept)
	}
}
