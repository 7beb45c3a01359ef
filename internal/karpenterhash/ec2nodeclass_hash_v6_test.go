package karpenterhash

// Ported from the Describe("Hash") tests of karpenter-provider-aws v1.15.2
// (pkg/apis/v1/ec2nodeclass_hash_test.go; hash version v6). The pinned values are upstream's.

import (
	"encoding/json"
	"testing"
)

// v6Suite is v1.15.2's Describe("Hash"), run on EC2NodeClassHashForVersion("v6").
var v6Suite = upstreamHashSuite{
	hash:       v6Hash,
	staticHash: "11148166120438674859",
	fieldEntries: []namedHash{
		{"UserData", "11774429238106843388"},
		{"Tags", "9327338697296909506"},
		{"Context", "2279761750428738028"},
		{"DetailedMonitoring", "1936848126751988570"},
		{"InstanceStorePolicy", "16697988646989909967"},
		{"AssociatePublicIPAddress", "16141801171825097963"},
		{"MetadataOptions HTTPEndpoint", "14969742554812447671"},
		{"MetadataOptions HTTPProtocolIPv6", "1581716956216772561"},
		{"MetadataOptions HTTPPutResponseHopLimit", "14046948658064232764"},
		{"MetadataOptions HTTPTokens", "1346719102507290084"},
		{"BlockDeviceMapping DeviceName", "8979166653850509463"},
		{"BlockDeviceMapping RootVolume", "8875796205856543692"},
		{"BlockDeviceMapping DeleteOnTermination", "1470935115846151531"},
		{"BlockDeviceMapping Encrypted", "5252376125396833097"},
		{"BlockDeviceMapping IOPS", "11651419893470054855"},
		{"BlockDeviceMapping KMSKeyID", "1488385067008138755"},
		{"BlockDeviceMapping SnapshotID", "12786013539168652330"},
		{"BlockDeviceMapping Throughput", "1873429003468556999"},
		{"BlockDeviceMapping VolumeType", "6743466905516550702"},
		{"EnclaveOptions Enabled", "7236976372141148292"},
		{"EnclaveOptions Disabled", "12655667132181172925"},
		{"ConnectionTracking TCPEstablishedTimeout", "1619669030802245540"},
		{"ConnectionTracking UDPStreamTimeout", "13743705849402595405"},
		{"ConnectionTracking UDPTimeout", "17941926745862994490"},
		{"CPUOptions NestedVirtualization", "6157846767212910604"},
	},
	// Upstream's "should change hash when static fields are updated" table has no
	// "EnclaveOptions Disabled" entry.
	notChangeEntries:    map[string]bool{"EnclaveOptions Disabled": true},
	volumeSizeHash:      "10372902467896351912",
	instanceProfileHash: "10323991363677716244",
}

func v6Hash(s EC2NodeClassSpec) (string, error) {
	return EC2NodeClassHashForVersion(EC2NodeClassHashV6, s, testCABundle)
}

// mustRawKubelet builds spec.kubelet as upstream's test helper MustMakeKubeletConfiguration
// does: obj encoded as JSON, then decoded into the map.
func mustRawKubelet(t *testing.T, obj any) RawKubeletConfiguration {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var kc RawKubeletConfiguration
	if err := json.Unmarshal(raw, &kc); err != nil {
		t.Fatal(err)
	}
	return kc
}

func TestEC2NodeClassHashV6(t *testing.T) {
	v6Suite.run(t)
	of := func(t *testing.T, s EC2NodeClassSpec) string {
		t.Helper()
		return mustHash(t, func() (string, error) { return v6Hash(s) })
	}
	t.Run("should distinguish omitted enclave options from explicitly disabled", func(t *testing.T) {
		s := testNodeClass()
		omitted := of(t, s)
		s.EnclaveOptions = &EnclaveOptions{Enabled: false}
		if got := of(t, s); got == omitted {
			t.Errorf("hash unchanged: %s", got)
		}
	})
	kubeletPair := func(name string, a, b int) {
		t.Run(name, func(t *testing.T) {
			s := testNodeClass()
			s.RawKubelet = mustRawKubelet(t, map[string]any{"maxPods": a})
			before := of(t, s)
			s.RawKubelet = mustRawKubelet(t, map[string]any{"maxPods": b})
			if after := of(t, s); after == before {
				t.Errorf("hash unchanged: %s", after)
			}
		})
	}
	kubeletPair("should change hash when kubelet configuration is updated", 110, 220)
	kubeletPair("should not collide for kubelet configs that are byte-permutations of one another", 12, 21)
}
