package launchplan

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
)

// A node pool's plan reads its class's whole resolution, and Terraform only hands a resource
// what its configuration references: in the apply walk a pool whose class did not change is
// planned again in a provider process that never planned the class, and that final plan must
// reproduce every value the first one showed (Terraform passes the pool the prior state's
// private data, not the plan's). So the resolution travels with the reference. It used to
// travel as the ClassValue object itself: some thirty attribute paths that Terraform and the
// plugin framework walk, encode, compare and print for every pool of every plan.
//
// ClassRef is the class's `resolved` value as a pool's `node_class` takes it: Karpenter's
// nodeClassRef (group, kind, name), a fingerprint a person can compare, the resolution as one
// opaque string, and, beside it, the values a class may know only after apply (its instance
// profile, user data, tags and hash), which a pool plans around while they are unknown.

// ClassRef is the `resolved` object a class publishes and a pool's `node_class` holds. Its Go
// shape defines the Terraform type, so it uses native field types only.
type ClassRef struct {
	Group string `tfsdk:"group"`
	Kind  string `tfsdk:"kind"`
	Name  string `tfsdk:"name"`
	// Fingerprint identifies Resolution: the first 16 hex digits of its SHA-256.
	Fingerprint string `tfsdk:"fingerprint"`
	// Resolution is the ClassValue without its late values and AMIUnresolved, as base64 of its JSON.
	Resolution string `tfsdk:"resolution"`
	// AMIUnresolved says why an alias was left to Karpenter (null when it was not): a sentence for
	// people, beside the resolution rather than inside it.
	AMIUnresolved   *string           `tfsdk:"ami_unresolved"`
	InstanceProfile *string           `tfsdk:"instance_profile"`
	UserData        *string           `tfsdk:"user_data"`
	Tags            map[string]string `tfsdk:"tags"`
	Hash            *string           `tfsdk:"hash"`
}

// The reference's group and kind: Karpenter's EC2NodeClass, or EKS Auto Mode's NodeClass.
const (
	EC2NodeClassGroup      = "karpenter.k8s.aws"
	EC2NodeClassKind       = "EC2NodeClass"
	AutoModeNodeClassGroup = "eks.amazonaws.com"
	AutoModeNodeClassKind  = "NodeClass"
)

// LateRefAttrs are the ClassRef attributes that may be unknown at plan (a class whose role,
// instance profile, user data or tags come from resources created in the same apply).
var LateRefAttrs = []string{"instance_profile", "user_data", "tags", "hash"}

// Ref is the reference to the class with its resolution. It is a pure function of v: the same
// resolution gives the same string and fingerprint in every process.
func (v ClassValue) Ref() ClassRef {
	r := ClassRef{Group: EC2NodeClassGroup, Kind: EC2NodeClassKind, Name: v.Name, InstanceProfile: v.InstanceProfile,
		UserData: v.UserData, Tags: maps.Clone(v.Tags), Hash: v.Hash, AMIUnresolved: v.AMIUnresolved}
	if v.AutoMode != nil {
		r.Group, r.Kind = AutoModeNodeClassGroup, AutoModeNodeClassKind
	}
	v.InstanceProfile, v.UserData, v.Tags, v.Hash, v.AMIUnresolved = nil, nil, nil, nil, nil
	b, err := json.Marshal(v) // struct fields in order, map keys sorted: deterministic
	if err != nil {
		panic(fmt.Sprintf("launchplan: a ClassValue does not marshal: %v", err)) // native fields only
	}
	sum := sha256.Sum256(b)
	r.Fingerprint = hex.EncodeToString(sum[:8])
	r.Resolution = base64.RawStdEncoding.EncodeToString(b)
	return r
}

// Value is the class the reference carries, its late values from the reference. A resolution
// that does not decode, or whose fingerprint does not match it, is an error: the reference was
// not written by Ref.
func (r ClassRef) Value() (ClassValue, error) {
	var v ClassValue
	b, err := base64.RawStdEncoding.DecodeString(r.Resolution)
	if err != nil {
		return v, fmt.Errorf("the node class reference's resolution is not base64: %w", err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:8]) != r.Fingerprint {
		return v, fmt.Errorf("the node class reference's resolution does not match its fingerprint %q: "+
			"set node_class to karpenter_node_class.<name>.resolved", r.Fingerprint)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("the node class reference's resolution does not decode: %w", err)
	}
	if (v.AutoMode != nil) != (r.Group == AutoModeNodeClassGroup && r.Kind == AutoModeNodeClassKind) {
		return v, fmt.Errorf("the node class reference names %s/%s but carries the resolution of another kind of node class", r.Group, r.Kind)
	}
	v.Name, v.InstanceProfile, v.UserData, v.Tags, v.Hash = r.Name, r.InstanceProfile, r.UserData, maps.Clone(r.Tags), r.Hash
	v.AMIUnresolved = r.AMIUnresolved
	return v, nil
}
