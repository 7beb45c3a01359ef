package karpenterhash

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// ec2NodeClassHashVersions is the EC2NodeClass hash version (EC2NodeClassHashVersion in
// karpenter-provider-aws pkg/apis/v1) of each supported Karpenter minor, as read from the
// release each minor's embedded CRDs come from: v1.9.3, v1.10.2 and v1.11.0 record v4; v1.12.0,
// v1.13.1 and v1.14.3 record v5; v1.15.2 records v6.
var ec2NodeClassHashVersions = map[string]string{
	"1.9":  EC2NodeClassHashV4,
	"1.10": EC2NodeClassHashV4,
	"1.11": EC2NodeClassHashV4,
	"1.12": EC2NodeClassHashV5,
	"1.13": EC2NodeClassHashV5,
	"1.14": EC2NodeClassHashV5,
	"1.15": EC2NodeClassHashV6,
}

// EC2NodeClassHashVersionFor is the value Karpenter karpenterMinor ("1.9" … "1.15", as
// manifest.Versions spells them) writes in the karpenter.k8s.aws/ec2nodeclass-hash-version
// annotation: EC2NodeClassHashV4, EC2NodeClassHashV5 or EC2NodeClassHashV6.
func EC2NodeClassHashVersionFor(karpenterMinor string) (string, error) {
	v, ok := ec2NodeClassHashVersions[karpenterMinor]
	if !ok {
		known := slices.SortedFunc(maps.Keys(ec2NodeClassHashVersions), manifest.CompareVersions)
		return "", fmt.Errorf("no EC2NodeClass hash for Karpenter %q; supported: %s", karpenterMinor, strings.Join(known, ", "))
	}
	return v, nil
}

// EC2NodeClassHashFor returns the EC2NodeClass hash and hash version Karpenter karpenterMinor
// ("1.9" … "1.15") writes on the karpenter.k8s.aws/v1 EC2NodeClass YAML (or JSON) document doc
// once the API server has stored it with that minor's CRD (see DecodeEC2NodeClassFor), with the
// cluster CA bundle caBundle (see EC2NodeClassHash; hash version v4 does not hash it).
func EC2NodeClassHashFor(karpenterMinor, doc, caBundle string) (hash, hashVersion string, err error) {
	hashVersion, err = EC2NodeClassHashVersionFor(karpenterMinor)
	if err != nil {
		return "", "", err
	}
	spec, err := DecodeEC2NodeClassFor(karpenterMinor, doc)
	if err != nil {
		return "", "", err
	}
	hash, err = EC2NodeClassHashForVersion(hashVersion, spec, caBundle)
	if err != nil {
		return "", "", err
	}
	return hash, hashVersion, nil
}

// EC2NodeClassHashForVersion returns the EC2NodeClass hash of hash version hashVersion for an
// EC2NodeClass whose stored spec is spec. Karpenter hashes, as one unordered set:
//
//   - v4 (Karpenter 1.9 to 1.11): the spec and the AMI family (see AMIFamily);
//   - v5 (Karpenter 1.12 to 1.14): the same and the cluster CA bundle caBundle;
//   - v6 (Karpenter 1.15): the same as v5, spec.kubelet left out of the spec, and the canonical
//     JSON of spec.kubelet (RawKubelet.CanonicalJSON, "null" when it is absent).
//
// It fails when spec does not have the form of that version: a v6 spec holds spec.kubelet in
// RawKubelet (Kubelet nil), an earlier one in Kubelet, without RawKubelet or EnclaveOptions,
// which its CRD does not declare.
func EC2NodeClassHashForVersion(hashVersion string, spec EC2NodeClassSpec, caBundle string) (string, error) {
	if err := checkSpecForm(hashVersion, spec); err != nil {
		return "", err
	}
	family, err := AMIFamily(spec)
	if err != nil {
		return "", err
	}
	switch hashVersion {
	case EC2NodeClassHashV4:
		return hash([]any{spec, family})
	case EC2NodeClassHashV5:
		return hash([]any{spec, family, caBundle})
	default: // EC2NodeClassHashV6, checked by checkSpecForm
		kubelet, err := spec.RawKubelet.CanonicalJSON()
		if err != nil {
			return "", err
		}
		return hash([]any{spec, family, caBundle, kubelet})
	}
}

// checkSpecForm fails on an unknown hash version and on a spec that uses a field the version's
// Karpenter does not have (see EC2NodeClassHashForVersion).
func checkSpecForm(hashVersion string, spec EC2NodeClassSpec) error {
	switch hashVersion {
	case EC2NodeClassHashV4, EC2NodeClassHashV5:
		if spec.RawKubelet != nil {
			return fmt.Errorf("EC2NodeClass hash %s: spec.kubelet is typed before Karpenter 1.15; set Kubelet, not RawKubelet", hashVersion)
		}
		if spec.EnclaveOptions != nil {
			return fmt.Errorf("EC2NodeClass hash %s: spec.enclaveOptions first appears in Karpenter 1.15 (hash %s)", hashVersion, EC2NodeClassHashV6)
		}
		return nil
	case EC2NodeClassHashV6:
		if spec.Kubelet != nil {
			return fmt.Errorf("EC2NodeClass hash %s: spec.kubelet is free-form in Karpenter 1.15; set RawKubelet, not Kubelet", hashVersion)
		}
		return nil
	default:
		return fmt.Errorf("unknown EC2NodeClass hash version %q (known: %s, %s, %s)", hashVersion,
			EC2NodeClassHashV4, EC2NodeClassHashV5, EC2NodeClassHashV6)
	}
}
