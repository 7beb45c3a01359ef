package karpenterhash

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePool hash annotations (karpenter.sh/v1). Karpenter treats a NodeClaim as drifted when its
// NodePoolHashAnnotationKey differs from its NodePool's while both carry the same
// NodePoolHashVersionAnnotationKey.
const (
	NodePoolHashAnnotationKey        = "karpenter.sh/nodepool-hash"
	NodePoolHashVersionAnnotationKey = "karpenter.sh/nodepool-hash-version"
	// NodePoolHashVersion is the hash version Karpenter v1.14 records next to the hash. The
	// sigs.k8s.io/karpenter releases karpenter-provider-aws 1.9 to 1.14 build with (v1.9.1,
	// v1.10.1, v1.11.0, v1.12.0, v1.13.0, v1.14.3) all record "v3" and hash the same types; the
	// one 1.15 builds with (v1.15.1) has not been checked.
	NodePoolHashVersion = "v3"
)

// NodePoolHash returns the value Karpenter v1.14 writes in a NodePool's
// karpenter.sh/nodepool-hash annotation, for a NodePool whose spec.template, as stored by the
// API server (CRD defaults applied), is t.
func NodePoolHash(t NodeClaimTemplate) (string, error) {
	return hash(t)
}

// NodeClaimTemplate mirrors karpenter.sh/v1 NodeClaimTemplate (NodePool spec.template).
type NodeClaimTemplate struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       NodeClaimTemplateSpec `json:"spec"`
}

// ObjectMeta mirrors karpenter.sh/v1 ObjectMeta, the template's metadata (labels and
// annotations only).
type ObjectMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec mirrors karpenter.sh/v1 NodeClaimTemplateSpec. Requirements are not
// hashed (Karpenter compares them separately).
type NodeClaimTemplateSpec struct {
	Taints                 []Taint                                `json:"taints,omitempty"`
	StartupTaints          []Taint                                `json:"startupTaints,omitempty"`
	Requirements           []NodeSelectorRequirementWithMinValues `json:"requirements" hash:"ignore"`
	NodeClassRef           *NodeClassReference                    `json:"nodeClassRef"`
	TerminationGracePeriod *metav1.Duration                       `json:"terminationGracePeriod,omitempty"`
	ExpireAfter            NillableDuration                       `json:"expireAfter,omitempty"`
}

// Taint mirrors k8s.io/api/core/v1 Taint, which Karpenter uses for taints and startupTaints.
// hashstructure sees only the type name, field names and kinds, so this local type hashes
// exactly as the Kubernetes one (and keeps k8s.io/api out of the direct dependencies).
type Taint struct {
	Key       string       `json:"key"`
	Value     string       `json:"value,omitempty"`
	Effect    TaintEffect  `json:"effect"`
	TimeAdded *metav1.Time `json:"timeAdded,omitempty"`
}

// TaintEffect mirrors k8s.io/api/core/v1 TaintEffect (NoSchedule, PreferNoSchedule, NoExecute).
type TaintEffect string

// NodeSelectorRequirementWithMinValues mirrors the karpenter.sh/v1 type of
// spec.template.spec.requirements entries.
type NodeSelectorRequirementWithMinValues struct {
	Key       string               `json:"key"`
	Operator  NodeSelectorOperator `json:"operator,omitempty"`
	Values    []string             `json:"values,omitempty"`
	MinValues *int                 `json:"minValues,omitempty"`
}

// NodeSelectorOperator mirrors k8s.io/api/core/v1 NodeSelectorOperator (In, NotIn, Exists,
// DoesNotExist, Gt, Lt, and Karpenter's Gte, Lte).
type NodeSelectorOperator string

// NodeClassReference mirrors karpenter.sh/v1 NodeClassReference.
type NodeClassReference struct {
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Group string `json:"group"`
}
