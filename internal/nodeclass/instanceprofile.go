package nodeclass

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
)

// Ownership tags of the AWS objects the provider creates (instance profiles here; launch
// templates and instances through launchplan, which uses the same keys).
const (
	TagNodeClass = "karpenter.k8s.aws/ec2nodeclass"
	TagManagedBy = "karpenter.nodeplane.io/managed-by"
	// TagOwner carries the owning resource's owner id: the provider reads, adopts, changes and
	// deletes only objects with its own.
	TagOwner = "karpenter.nodeplane.io/owner"
	// ManagedBy is the TagManagedBy value.
	ManagedBy = "terraform-provider-karpenter"
)

// InstanceProfilePath is the IAM path of the instance profiles the provider creates for a class
// `role`. It is deliberately not under /karpenter/: Karpenter's instance-profile garbage
// collector lists and deletes profiles under that path.
const InstanceProfilePath = "/nodeplane/"

// Limits of an IAM instance profile name.
const (
	maxInstanceProfileName = 128
	profileNamePrefix      = "nodeplane-"
	profileHashLen         = 10 // hex characters
)

var profileNameUnsafe = regexp.MustCompile(`[^\w+=,.@-]`)

// InstanceProfileName is the name of the instance profile the provider creates for a node class
// with a `role`. It depends on the cluster name, the region and the class name only, so it is
// known when the class is planned (the node pools plan their launch templates from it).
//
// The form is nodeplane-<cluster>-<class>-<hash>: the hash (of the three inputs) keeps names of
// other clusters, regions (IAM is global) and classes apart even when the readable part is cut
// to fit IAM's 128 characters. It can never equal a name Karpenter generates (<cluster>_<decimal
// hash>): ours ends in "-" and hex digits, with no "_" after the last "-".
func InstanceProfileName(cluster, region, class string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%q %q %q", cluster, region, class)))
	hash := hex.EncodeToString(sum[:])[:profileHashLen]
	readable := class
	if cluster != "" {
		readable = cluster + "-" + class
	}
	readable = profileNameUnsafe.ReplaceAllString(readable, "-")
	if room := maxInstanceProfileName - len(profileNamePrefix) - 1 - profileHashLen; len(readable) > room {
		readable = readable[:room]
	}
	return profileNamePrefix + readable + "-" + hash
}

// InstanceProfileTags are the tags of a class's instance profile: Karpenter's (the node class,
// the region and, with a cluster, kubernetes.io/cluster/<cluster> = owned) and the provider's
// ownership tags (managed-by and the owner id). The provider changes and deletes only a profile
// that carries InstanceProfileOwnership of its own owner id.
func InstanceProfileTags(cluster, region, class, owner string) map[string]string {
	tags := map[string]string{
		TagNodeClass:                    class,
		"topology.kubernetes.io/region": region,
	}
	if cluster != "" {
		tags["kubernetes.io/cluster/"+cluster] = "owned"
	}
	for k, v := range InstanceProfileOwnership(owner) {
		tags[k] = v
	}
	return tags
}

// InstanceProfileOwnership are the tags that make a profile the class's own: managed by this
// provider, with the class's owner id.
func InstanceProfileOwnership(owner string) map[string]string {
	return map[string]string{TagManagedBy: ManagedBy, TagOwner: owner}
}
