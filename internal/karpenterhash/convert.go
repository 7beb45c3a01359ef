package karpenterhash

import (
	"bytes"
	"encoding/json"
	"fmt"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// placeholderName stands in for an empty object name when rendering: the name is not hashed,
// but the renderer requires one.
const placeholderName = "karpenterhash"

// FromManifestNodePool returns the spec.template Karpenter hashes for np: np rendered by
// manifest.RenderNodePool, then read back as DecodeNodePool does (CRD defaults applied).
func FromManifestNodePool(np manifest.NodePool) (NodeClaimTemplate, error) {
	if np.Name == "" {
		np.Name = placeholderName
	}
	doc, err := manifest.RenderNodePool(np)
	if err != nil {
		return NodeClaimTemplate{}, err
	}
	return DecodeNodePool(doc)
}

// FromManifestEC2NodeClass returns the spec Karpenter hashes for nc: nc rendered by
// manifest.RenderEC2NodeClass, then read back as DecodeEC2NodeClass does (CRD defaults
// applied).
func FromManifestEC2NodeClass(nc manifest.EC2NodeClass) (EC2NodeClassSpec, error) {
	if nc.Name == "" {
		nc.Name = placeholderName
	}
	doc, err := manifest.RenderEC2NodeClass(nc)
	if err != nil {
		return EC2NodeClassSpec{}, err
	}
	return DecodeEC2NodeClass(doc)
}

// DecodeNodePool is DecodeNodePoolFor(HashKarpenterVersion, doc).
func DecodeNodePool(doc string) (NodeClaimTemplate, error) {
	return DecodeNodePoolFor(HashKarpenterVersion, doc)
}

// DecodeNodePoolFor reads spec.template of the karpenter.sh/v1 NodePool YAML (or JSON) document
// doc the way Karpenter karpenterMinor ("1.9" … "1.15") sees it once the API server has stored
// the object: unknown fields pruned and the defaults of that minor's embedded CRD schema applied
// (expireAfter "720h" among them). It does not validate the document (see manifest.Admit); it
// fails on a document of another kind and on a field the mirror types do not know.
func DecodeNodePoolFor(karpenterMinor, doc string) (NodeClaimTemplate, error) {
	var t NodeClaimTemplate
	spec, err := storedSpec(karpenterMinor, doc, manifest.NodePoolAPIVersion, manifest.NodePoolKind)
	if err != nil {
		return t, err
	}
	template, ok := spec["template"]
	if !ok {
		return t, fmt.Errorf("%s: spec.template is missing", manifest.NodePoolKind)
	}
	if err := decodeStrict(template, &t); err != nil {
		return t, fmt.Errorf("%s: spec.template: %w", manifest.NodePoolKind, err)
	}
	return t, nil
}

// DecodeEC2NodeClass is DecodeEC2NodeClassFor(HashKarpenterVersion, doc): the spec hash version
// v5 (EC2NodeClassHash) hashes.
func DecodeEC2NodeClass(doc string) (EC2NodeClassSpec, error) {
	return DecodeEC2NodeClassFor(HashKarpenterVersion, doc)
}

// DecodeEC2NodeClassFor reads spec of the karpenter.k8s.aws/v1 EC2NodeClass YAML (or JSON)
// document doc the way Karpenter karpenterMinor ("1.9" … "1.15") sees it once the API server
// has stored the object: unknown fields pruned (a field that minor's CRD lacks is dropped) and
// the defaults of that minor's embedded CRD schema applied (metadataOptions). For Karpenter 1.15
// spec.kubelet is free-form and lands in RawKubelet; for earlier minors it decodes into the
// typed Kubelet. It does not validate the document (see manifest.AdmitFor); it fails on a
// document of another kind and on a field the mirror types do not know.
func DecodeEC2NodeClassFor(karpenterMinor, doc string) (EC2NodeClassSpec, error) {
	var s EC2NodeClassSpec
	hashVersion, err := EC2NodeClassHashVersionFor(karpenterMinor)
	if err != nil {
		return s, err
	}
	spec, err := storedSpec(karpenterMinor, doc, manifest.EC2NodeClassAPIVersion, manifest.EC2NodeClassKind)
	if err != nil {
		return s, err
	}
	if hashVersion == EC2NodeClassHashV6 {
		raw, err := rawKubelet(spec["kubelet"])
		if err != nil {
			return s, fmt.Errorf("%s: %w", manifest.EC2NodeClassKind, err)
		}
		delete(spec, "kubelet")
		s.RawKubelet = raw
	}
	if err := decodeStrict(spec, &s); err != nil {
		return s, fmt.Errorf("%s: spec: %w", manifest.EC2NodeClassKind, err)
	}
	return s, nil
}

// storedSpec parses doc, checks its apiVersion and kind, prunes and defaults it with the
// structural schema of the CRD of Karpenter karpenterMinor as the API server does on create, and
// returns its spec.
func storedSpec(karpenterMinor, doc, apiVersion, kind string) (map[string]any, error) {
	obj, err := manifest.DecodeObject(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: document is %w", kind, err)
	}
	if obj["apiVersion"] != apiVersion || obj["kind"] != kind {
		return nil, fmt.Errorf("document is %v %v, not %s %s", obj["apiVersion"], obj["kind"], apiVersion, kind)
	}
	schemas, err := manifest.StructuralsFor(karpenterMinor) // not CRDsFor: hashing needs no validators
	if err != nil {
		return nil, err
	}
	s := schemas[kind]
	if s == nil {
		return nil, fmt.Errorf("no embedded Karpenter %s CRD schema for %s", karpenterMinor, kind)
	}
	structuralpruning.Prune(obj, s, true)
	structuraldefaulting.Default(obj, s)
	spec, ok := obj["spec"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: spec is missing or not an object", kind)
	}
	return spec, nil
}

// HashKarpenterVersion is the Karpenter minor whose hash functions DecodeNodePool,
// DecodeEC2NodeClass, NodePoolHash and EC2NodeClassHash reproduce; its CRD defaults are applied
// before hashing. The ...For functions take the minor.
const HashKarpenterVersion = "1.14"

// decodeStrict re-encodes v and decodes it into out, failing on fields out does not have.
func decodeStrict(v any, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(out)
}
