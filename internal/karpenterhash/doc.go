// Package karpenterhash computes, at plan time, the two static drift hashes Karpenter writes on
// its objects, with the same values Karpenter v1.14.1 computes in the cluster:
//
//   - the NodePool hash (annotation karpenter.sh/nodepool-hash, version
//     karpenter.sh/nodepool-hash-version = NodePoolHashVersion): the hash of
//     spec.template of a karpenter.sh/v1 NodePool (sigs.k8s.io/karpenter at commit 6e7eab7a0f48,
//     the version karpenter-provider-aws v1.14.1 builds with);
//   - the EC2NodeClass hash (annotation karpenter.k8s.aws/ec2nodeclass-hash, version
//     karpenter.k8s.aws/ec2nodeclass-hash-version = EC2NodeClassHashVersion): the hash of the
//     karpenter.k8s.aws/v1 EC2NodeClass spec together with its resolved AMI family and the
//     cluster CA bundle Karpenter runs with (github.com/aws/karpenter-provider-aws v1.14.1).
//
// Karpenter computes both with github.com/mitchellh/hashstructure/v2 (FormatV2, slices as sets,
// zero values ignored, nil pointers as zero values), which walks the Go values reflectively: the
// result depends on struct type names, field names, field kinds and `hash` struct tags. The
// types here therefore mirror Karpenter's Go types field for field (same names, same kinds,
// same pointers, slices, maps and embedded structs, same `hash` tags) for everything reachable
// from what is hashed, and decode from the same JSON. They are not a general-purpose copy of the
// Karpenter API: they exist only to be hashed.
//
// Karpenter hashes the object as the API server stores it, that is after the CRD defaults are
// applied (spec.template.spec.expireAfter "720h", spec.metadataOptions). DecodeNodePool,
// DecodeEC2NodeClass, FromManifestNodePool and FromManifestEC2NodeClass produce that stored
// form from a document rendered by package manifest, with the defaults of the embedded v1.14.1
// CRD schemas applied the way the API server applies them.
//
// The tests pin upstream's own values: the hashes asserted by the v1.14.1 EC2NodeClass hash
// tests, and for the NodePool (whose upstream tests compare hashes but do not spell them out)
// the values Karpenter's code at that commit returns for the objects of its drift and hash
// controller tests. A change here that alters any hash fails those tests.
//
// The package is pure: it imports neither Terraform nor the AWS SDK.
package karpenterhash
