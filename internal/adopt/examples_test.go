package adopt_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubetest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/releasezip"
)

// The corpus: Karpenter's own examples/v1 of the newest supported release, read from its module
// zip (the hash the CRD generator recorded), every EC2NodeClass and NodePool in them.
const (
	minExampleFiles   = 20
	minExampleObjects = 40
)

// refusedExamples are the examples import refuses naming the fix: windows-custom-userdata's
// nodeClassRef group carries a version, which the CRD's pattern refuses too (and Karpenter would
// ignore such a pool).
var refusedExamples = map[string]string{
	"windows-custom-userdata.yaml/NodePool/windows2022": `group "karpenter.k8s.aws/v1"`,
}

type example struct {
	file string
	obj  map[string]any
}

func examples(t *testing.T) []example {
	t.Helper()
	module, files, err := releasezip.Examples()
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, f := range files {
		objs, err := releasezip.Documents(f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, obj := range objs {
			if k := obj["kind"]; k == manifest.EC2NodeClassKind || k == manifest.NodePoolKind {
				out = append(out, example{file: f.Name, obj: obj})
			}
		}
	}
	if len(files) < minExampleFiles || len(out) < minExampleObjects {
		t.Fatalf("%d example files with %d objects in %s; want at least %d and %d", len(files), len(out), module, minExampleFiles, minExampleObjects)
	}
	slices.SortFunc(out, func(a, b example) int { return strings.Compare(a.file+kindName(a.obj), b.file+kindName(b.obj)) })
	return out
}

func kindName(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	return fmt.Sprint(obj["kind"], "/", meta["name"])
}

// rendered is the object's configuration rendered again, as the provider renders it.
func read(obj map[string]any) (doc string, a adopt.Adopted, err error) {
	if obj["kind"] == manifest.EC2NodeClassKind {
		c, err := adopt.ReadClass(obj)
		if err != nil {
			return "", a, err
		}
		s, _ := c.Config.Spec()
		doc, err = nodeclass.Manifest(s)
		return doc, c.Adopted, err
	}
	p, err := adopt.ReadPool(obj)
	if err != nil {
		return "", a, err
	}
	doc, err = nodepool.Manifest(p.Config.Spec(), p.NodeClass)
	return doc, p.Adopted, err
}

// TestExamplesRoundTrip: every example, defaulted as the API server defaults it with the CRD
// of its release, is read into a configuration whose manifest is the same object, which the
// CRD admits, with nothing left unexpressed.
func TestExamplesRoundTrip(t *testing.T) {
	schemas, err := manifest.StructuralsFor(manifest.DefaultVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples(t) {
		t.Run(ex.file+"/"+kindName(ex.obj), func(t *testing.T) {
			structuraldefaulting.Default(ex.obj, schemas[ex.obj["kind"].(string)])
			doc, a, err := read(ex.obj)
			if want, refused := refusedExamples[ex.file+"/"+kindName(ex.obj)]; refused {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("read = %v; want the refusal %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Unexpressed) > 0 || len(a.LeftToCluster) > 0 {
				t.Errorf("unexpressed %v, left to the cluster %v\n%s", a.Unexpressed, a.LeftToCluster, doc)
			}
			var rendered map[string]any // the rendered object, defaulted as the API server would: the example itself
			if err := yaml.Unmarshal([]byte(doc), &rendered); err != nil {
				t.Fatal(err)
			}
			structuraldefaulting.Default(rendered, schemas[ex.obj["kind"].(string)])
			if got, want := canonical(t, rendered), canonical(t, ex.obj); got != want {
				t.Errorf("the rendered object differs from the example:\n%s\nwant\n%s", got, want)
			}
			admission, runtime, err := manifest.AdmitAll(manifest.DefaultVersion, doc)
			if err != nil || len(admission)+len(runtime) > 0 {
				t.Errorf("the rendered manifest is refused: %v %v %v\n%s", err, admission, runtime, doc)
			}
		})
	}
}

// TestExamplesRoundTripOnAPIServer: in acceptance runs, every example is created on the local
// API server (a dry run: nothing is stored) and the object it answers — its CRD's defaults
// applied by the server itself — reads into a configuration that renders the same object.
func TestExamplesRoundTripOnAPIServer(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance runs only (TF_ACC): needs the local API server")
	}
	api, err := kubetest.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, ex := range examples(t) {
		live, code := created(t, api, ex.obj)
		if _, refused := refusedExamples[ex.file+"/"+kindName(ex.obj)]; refused {
			if code != 422 { // the CRD's pattern on nodeClassRef.group refuses it: it never reaches a cluster
				t.Errorf("%s %s: the API server answered %d, want 422", ex.file, kindName(ex.obj), code)
			}
			continue
		}
		if code != 201 {
			t.Fatalf("%s %s: dry-run create answered %d", ex.file, kindName(ex.obj), code)
		}
		doc, a, err := read(live)
		if err != nil {
			t.Fatalf("%s %s: %v", ex.file, kindName(ex.obj), err)
		}
		if len(a.Unexpressed) > 0 {
			t.Errorf("%s %s: unexpressed %v\n%s", ex.file, kindName(ex.obj), a.Unexpressed, doc)
		}
		compared++
	}
	if compared < minExampleObjects {
		t.Fatalf("compared %d objects, want at least %d", compared, minExampleObjects)
	}
}

// created is the object the API server answers to a dry-run create of obj, and its status code.
func created(t *testing.T, api *kubetest.API, obj map[string]any) (map[string]any, int) {
	t.Helper()
	body, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	resource := map[any]string{manifest.EC2NodeClassKind: "ec2nodeclasses", manifest.NodePoolKind: "nodepools"}[obj["kind"]]
	code, out, err := api.Do("POST", fmt.Sprintf("/apis/%s/%s?dryRun=All&fieldValidation=Strict", obj["apiVersion"], resource), "application/json", body)
	if err != nil {
		t.Fatalf("dry-run create of %s: %v", kindName(obj), err)
	}
	var live map[string]any
	if code == 201 {
		if err := json.Unmarshal(out, &live); err != nil {
			t.Fatal(err)
		}
	}
	return live, code
}

// canonical is obj's spec and metadata labels and annotations as JSON (keys sorted), limits as
// the quantity strings they mean (`cpu: 100` is `cpu: "100"`).
func canonical(t *testing.T, obj map[string]any) string {
	t.Helper()
	meta, _ := obj["metadata"].(map[string]any)
	if spec, ok := obj["spec"].(map[string]any); ok {
		if limits, ok := spec["limits"].(map[string]any); ok {
			for k, v := range limits {
				limits[k] = fmt.Sprint(v)
			}
		}
	}
	b, err := json.Marshal(map[string]any{"spec": obj["spec"], "labels": meta["labels"], "annotations": meta["annotations"]})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
