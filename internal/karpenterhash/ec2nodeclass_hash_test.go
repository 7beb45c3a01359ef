package karpenterhash

// Ported from the Describe("Hash") tests of karpenter-provider-aws v1.14.3
// (pkg/apis/v1/ec2nodeclass_hash_test.go; hash version v5; the same file, values included, in
// v1.13.1, and in v1.12.0 without the ConnectionTracking and CPUOptions entries). The pinned
// values are upstream's. This file also holds the test object, the changes and the runner that
// the ports of v1.11.0 (ec2nodeclass_hash_v4_test.go) and v1.15.2
// (ec2nodeclass_hash_v6_test.go) share.

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	testCABundle = "test-ca-bundle"
	staticHash   = "2608468723537941485"
)

// testNodeClass is upstream's test object (its metadata is not hashed).
func testNodeClass() EC2NodeClassSpec {
	return EC2NodeClassSpec{
		Role: "role-1",
		Tags: map[string]string{
			"keyTag-1": "valueTag-1",
			"keyTag-2": "valueTag-2",
		},
		Context:                  ptr("fake-context"),
		DetailedMonitoring:       ptr(false),
		AssociatePublicIPAddress: ptr(false),
		MetadataOptions: &MetadataOptions{
			HTTPEndpoint:            ptr("disabled"),
			HTTPProtocolIPv6:        ptr("disabled"),
			HTTPPutResponseHopLimit: ptr(int64(1)),
			HTTPTokens:              ptr("optional"),
		},
		BlockDeviceMappings: []*BlockDeviceMapping{
			{
				DeviceName: ptr("map-device-1"),
				RootVolume: false,
				EBS: &BlockDevice{
					DeleteOnTermination: ptr(false),
					Encrypted:           ptr(false),
					IOPS:                ptr(int64(0)),
					KMSKeyID:            ptr("fakeKMSKeyID"),
					SnapshotID:          ptr("fakeSnapshot"),
					Throughput:          ptr(int64(0)),
					VolumeSize:          resource.NewScaledQuantity(2, resource.Giga),
					VolumeType:          ptr("standard"),
				},
			},
			{
				DeviceName: ptr("map-device-2"),
			},
		},
		UserData: ptr("userdata-test-1"),
	}
}

// upstreamChanges are the objects of upstream's table entries, by entry name, for every ported
// release. Upstream applies each with mergo.Merge(WithOverride, WithSliceDeepCopy): maps gain
// the new keys, set pointers and structs are merged field by field, and the first element of a
// slice is merged with the first element of the change. These functions produce the merged
// objects.
var upstreamChanges = map[string]func(*EC2NodeClassSpec){
	"UserData":                                func(s *EC2NodeClassSpec) { s.UserData = ptr("userdata-test-2") },
	"Tags":                                    func(s *EC2NodeClassSpec) { s.Tags["keyTag-test-3"] = "valueTag-test-3" },
	"Context":                                 func(s *EC2NodeClassSpec) { s.Context = ptr("context-2") },
	"DetailedMonitoring":                      func(s *EC2NodeClassSpec) { s.DetailedMonitoring = ptr(true) },
	"InstanceStorePolicy":                     func(s *EC2NodeClassSpec) { s.InstanceStorePolicy = ptr(InstanceStorePolicyRAID0) },
	"AssociatePublicIPAddress":                func(s *EC2NodeClassSpec) { s.AssociatePublicIPAddress = ptr(true) },
	"MetadataOptions HTTPEndpoint":            func(s *EC2NodeClassSpec) { s.MetadataOptions.HTTPEndpoint = ptr("enabled") },
	"MetadataOptions HTTPProtocolIPv6":        func(s *EC2NodeClassSpec) { s.MetadataOptions.HTTPProtocolIPv6 = ptr("enabled") },
	"MetadataOptions HTTPPutResponseHopLimit": func(s *EC2NodeClassSpec) { s.MetadataOptions.HTTPPutResponseHopLimit = ptr(int64(10)) },
	"MetadataOptions HTTPTokens":              func(s *EC2NodeClassSpec) { s.MetadataOptions.HTTPTokens = ptr("required") },
	"BlockDeviceMapping DeviceName":           func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].DeviceName = ptr("map-device-test-3") },
	"BlockDeviceMapping RootVolume":           func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].RootVolume = true },
	"BlockDeviceMapping DeleteOnTermination":  func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.DeleteOnTermination = ptr(true) },
	"BlockDeviceMapping Encrypted":            func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.Encrypted = ptr(true) },
	"BlockDeviceMapping IOPS":                 func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.IOPS = ptr(int64(10)) },
	"BlockDeviceMapping KMSKeyID":             func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.KMSKeyID = ptr("test") },
	"BlockDeviceMapping SnapshotID":           func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.SnapshotID = ptr("test") },
	"BlockDeviceMapping Throughput":           func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.Throughput = ptr(int64(10)) },
	"BlockDeviceMapping VolumeType":           func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.VolumeType = ptr("io1") },
	"EnclaveOptions Enabled":                  func(s *EC2NodeClassSpec) { s.EnclaveOptions = &EnclaveOptions{Enabled: true} },
	"EnclaveOptions Disabled":                 func(s *EC2NodeClassSpec) { s.EnclaveOptions = &EnclaveOptions{Enabled: false} },
	"ConnectionTracking TCPEstablishedTimeout": func(s *EC2NodeClassSpec) {
		s.ConnectionTracking = &ConnectionTracking{TCPEstablishedTimeout: ptr(int32(300))}
	},
	"ConnectionTracking UDPStreamTimeout": func(s *EC2NodeClassSpec) {
		s.ConnectionTracking = &ConnectionTracking{UDPStreamTimeout: ptr(int32(120))}
	},
	"ConnectionTracking UDPTimeout":   func(s *EC2NodeClassSpec) { s.ConnectionTracking = &ConnectionTracking{UDPTimeout: ptr(int32(45))} },
	"CPUOptions NestedVirtualization": func(s *EC2NodeClassSpec) { s.CPUOptions = &CPUOptions{NestedVirtualization: ptr("enabled")} },

	// Behavior / dynamic fields: upstream expects the static hash.
	"Modified AMISelector": func(s *EC2NodeClassSpec) {
		s.AMISelectorTerms = []AMISelectorTerm{{Tags: map[string]string{"": "ami-test-value"}}}
	},
	"Modified SubnetSelector": func(s *EC2NodeClassSpec) {
		s.SubnetSelectorTerms = []SubnetSelectorTerm{{Tags: map[string]string{"subnet-test-key": "subnet-test-value"}}}
	},
	"Modified SecurityGroupSelector": func(s *EC2NodeClassSpec) {
		s.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{Tags: map[string]string{"security-group-test-key": "security-group-test-value"}}}
	},
}

// behaviorEntries are the entries of upstream's static-hash table that expect the static hash,
// the same in every ported release.
var behaviorEntries = []string{"Modified AMISelector", "Modified SubnetSelector", "Modified SecurityGroupSelector"}

// namedHash is an upstream table entry: its name (a key of upstreamChanges) and pinned hash.
type namedHash struct{ name, hash string }

// upstreamHashSuite is one release's Describe("Hash"): the pinned values and the hash function.
type upstreamHashSuite struct {
	hash       func(EC2NodeClassSpec) (string, error)
	staticHash string
	// fieldEntries are the static-field entries of "should match static hash on field value
	// change", in upstream's order.
	fieldEntries []namedHash
	// notChangeEntries names field entries missing from "should change hash when static fields
	// are updated".
	notChangeEntries    map[string]bool
	volumeSizeHash      string
	instanceProfileHash string
}

func (u upstreamHashSuite) of(t *testing.T, s EC2NodeClassSpec) string {
	t.Helper()
	return mustHash(t, func() (string, error) { return u.hash(s) })
}

// changed is the test object with the named upstream change applied.
func changed(name string) EC2NodeClassSpec {
	s := testNodeClass()
	upstreamChanges[name](&s)
	return s
}

// run runs upstream's Describe("Hash") tests common to the ported releases, named as upstream.
func (u upstreamHashSuite) run(t *testing.T) {
	t.Run("should match static hash on field value change", func(t *testing.T) {
		entries := append([]namedHash{{"Base EC2NodeClass", u.staticHash}}, u.fieldEntries...)
		for _, name := range behaviorEntries {
			entries = append(entries, namedHash{name, u.staticHash})
		}
		for _, e := range entries {
			t.Run(e.name, func(t *testing.T) {
				s := testNodeClass()
				if change := upstreamChanges[e.name]; change != nil {
					change(&s)
				}
				if got := u.of(t, s); got != e.hash {
					t.Errorf("hash = %s, want %s", got, e.hash)
				}
			})
		}
	})
	u.runStatic(t)
	t.Run("should change hash when static fields are updated", func(t *testing.T) {
		for _, e := range u.fieldEntries {
			if u.notChangeEntries[e.name] {
				continue
			}
			t.Run(e.name, func(t *testing.T) {
				if before, after := u.of(t, testNodeClass()), u.of(t, changed(e.name)); after == before {
					t.Errorf("hash unchanged: %s", after)
				}
			})
		}
	})
	u.runChanges(t)
}

// runStatic runs upstream's It tests that expect a pinned value.
func (u upstreamHashSuite) runStatic(t *testing.T) {
	expect := func(t *testing.T, s EC2NodeClassSpec, want string) {
		t.Helper()
		if got := u.of(t, s); got != want {
			t.Errorf("hash = %s, want %s", got, want)
		}
	}
	t.Run("should match static hash when updating blockDeviceMapping volumeSize", func(t *testing.T) {
		s := testNodeClass()
		s.BlockDeviceMappings[0].EBS.VolumeSize = resource.NewScaledQuantity(10, resource.Giga)
		expect(t, s, u.volumeSizeHash)
	})
	t.Run("should match static hash for instanceProfile", func(t *testing.T) {
		s := testNodeClass()
		s.Role = ""
		s.InstanceProfile = ptr("test-instance-profile")
		expect(t, s, u.instanceProfileHash)
	})
	t.Run("should match static hash when reordering tags", func(t *testing.T) {
		s := testNodeClass()
		s.Tags = map[string]string{"keyTag-2": "valueTag-2", "keyTag-1": "valueTag-1"}
		expect(t, s, u.staticHash)
	})
	t.Run("should match static hash when reordering blockDeviceMappings", func(t *testing.T) {
		s := testNodeClass()
		s.BlockDeviceMappings[0], s.BlockDeviceMappings[1] = s.BlockDeviceMappings[1], s.BlockDeviceMappings[0]
		expect(t, s, u.staticHash)
	})
}

// runChanges runs upstream's It tests that compare the hash before and after a change.
func (u upstreamHashSuite) runChanges(t *testing.T) {
	compare := func(name string, wantSame bool, prepare, change func(*EC2NodeClassSpec)) {
		t.Run(name, func(t *testing.T) {
			s := testNodeClass()
			prepare(&s)
			before := u.of(t, s)
			change(&s)
			if after := u.of(t, s); (after == before) != wantSame {
				t.Errorf("hash before %s, after %s; want equal: %v", before, after, wantSame)
			}
		})
	}
	noop := func(*EC2NodeClassSpec) {}
	compare("should change hash blockDeviceMapping volumeSize is updated", false, noop, func(s *EC2NodeClassSpec) {
		s.BlockDeviceMappings[0].EBS.VolumeSize = resource.NewScaledQuantity(10, resource.Giga)
	})
	compare("should change hash when instanceProfile is updated", false,
		func(s *EC2NodeClassSpec) { s.Role, s.InstanceProfile = "", ptr("test-instance-profile") },
		func(s *EC2NodeClassSpec) { s.InstanceProfile = ptr("other-instance-profile") })
	compare("should not change hash when tags are re-ordered", true, noop, func(s *EC2NodeClassSpec) {
		s.Tags = map[string]string{"keyTag-2": "valueTag-2", "keyTag-1": "valueTag-1"}
	})
	compare("should not change hash when blockDeviceMappings are re-ordered", true, noop, func(s *EC2NodeClassSpec) {
		s.BlockDeviceMappings[0], s.BlockDeviceMappings[1] = s.BlockDeviceMappings[1], s.BlockDeviceMappings[0]
	})
	compare("should not change hash when behavior/dynamic fields are updated", true, noop, func(s *EC2NodeClassSpec) {
		s.SubnetSelectorTerms = []SubnetSelectorTerm{{Tags: map[string]string{"subnet-test-key": "subnet-test-value"}}}
		s.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{Tags: map[string]string{"sg-test-key": "sg-test-value"}}}
		s.AMISelectorTerms = []AMISelectorTerm{{Tags: map[string]string{"ami-test-key": "ami-test-value"}}}
		s.CapacityReservationSelectorTerms = []CapacityReservationSelectorTerm{{Tags: map[string]string{"cr-test-key": "cr-test-value"}}}
	})
	t.Run("should expect two EC2NodeClasses with the same spec to have the same hash", func(t *testing.T) {
		if a, b := u.of(t, testNodeClass()), u.of(t, testNodeClass()); a != b {
			t.Errorf("hashes differ: %s, %s", a, b)
		}
	})
}

// v5Suite is v1.14.3's Describe("Hash"), run on EC2NodeClassHash (hash version v5).
var v5Suite = upstreamHashSuite{
	hash:       func(s EC2NodeClassSpec) (string, error) { return EC2NodeClassHash(s, testCABundle) },
	staticHash: staticHash,
	fieldEntries: []namedHash{
		{"UserData", "2153344579995979450"},
		{"Tags", "4608386791045313156"},
		{"Context", "11612053647989098410"},
		{"DetailedMonitoring", "11845605438531206428"},
		{"InstanceStorePolicy", "6430637013089544585"},
		{"AssociatePublicIPAddress", "6811176403923819181"},
		{"MetadataOptions HTTPEndpoint", "8158886403801636337"},
		{"MetadataOptions HTTPProtocolIPv6", "12355196004817691031"},
		{"MetadataOptions HTTPPutResponseHopLimit", "8968306366664488826"},
		{"MetadataOptions HTTPTokens", "12408995450371615650"},
		{"BlockDeviceMapping DeviceName", "13986335469721503441"},
		{"BlockDeviceMapping RootVolume", "14242690863945643402"},
		{"BlockDeviceMapping DeleteOnTermination", "12316454167870753581"},
		{"BlockDeviceMapping Encrypted", "17753517657333560591"},
		{"BlockDeviceMapping IOPS", "2249322442135400321"},
		{"BlockDeviceMapping KMSKeyID", "12259594419287406661"},
		{"BlockDeviceMapping SnapshotID", "1149563513090550380"},
		{"BlockDeviceMapping Throughput", "12068199760789564545"},
		{"BlockDeviceMapping VolumeType", "16361719363399715944"},
		{"ConnectionTracking TCPEstablishedTimeout", "12177489405137904098"},
		{"ConnectionTracking UDPStreamTimeout", "17567831983996427"},
		{"ConnectionTracking UDPTimeout", "5078825826133662844"},
		{"CPUOptions NestedVirtualization", "17001101224536964682"},
	},
	volumeSizeHash:      "3564293065344858862",
	instanceProfileHash: "3585768058063247698",
}

func TestEC2NodeClassHash(t *testing.T) {
	v5Suite.run(t)
	t.Run("EC2NodeClassHashForVersion v5", func(t *testing.T) {
		if got := mustHash(t, func() (string, error) { return EC2NodeClassHashForVersion("v5", testNodeClass(), testCABundle) }); got != staticHash {
			t.Errorf("hash = %s, want %s", got, staticHash)
		}
	})
}

func nodeClassHash(t *testing.T, s EC2NodeClassSpec) string {
	t.Helper()
	return mustHash(t, func() (string, error) { return EC2NodeClassHash(s, testCABundle) })
}

type nodeClassChange struct {
	name   string
	hash   string
	change func(*EC2NodeClassSpec)
}

// TestEC2NodeClassHashBeyondUpstream pins fields and inputs upstream's tests do not exercise.
// The values were computed by karpenter-provider-aws v1.14.1's own EC2NodeClass.Hash, and again
// by v1.14.3's, on the same objects (upstream's test object, changed as named, CA bundle
// "test-ca-bundle").
func TestEC2NodeClassHashBeyondUpstream(t *testing.T) {
	entries := []nodeClassChange{
		{"Kubelet MaxPods", "11360241729105732889", func(s *EC2NodeClassSpec) { s.Kubelet = &KubeletConfiguration{MaxPods: ptr(int32(110))} }},
		{"Kubelet EvictionSoftGracePeriod", "17465808669119212966", func(s *EC2NodeClassSpec) {
			s.Kubelet = &KubeletConfiguration{EvictionSoftGracePeriod: map[string]metav1.Duration{"memory.available": {Duration: 90 * time.Second}}}
		}},
		{"Kubelet ClusterDNS", "11782539623279212366", func(s *EC2NodeClassSpec) { s.Kubelet = &KubeletConfiguration{ClusterDNS: []string{"10.0.0.10"}} }},
		{"NetworkInterfaces", "18217110268952083995", func(s *EC2NodeClassSpec) {
			s.NetworkInterfaces = []*NetworkInterface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"}}
		}},
		{"PlacementGroupSelector Name", "8132861485397518951", func(s *EC2NodeClassSpec) { s.PlacementGroupSelector = &PlacementGroupSelector{Name: ptr("pg")} }},
		{"BlockDeviceMapping VolumeInitializationRate", "13161076681582616115", func(s *EC2NodeClassSpec) {
			s.BlockDeviceMappings[0].EBS.VolumeInitializationRate = ptr(int32(100))
		}},
		// The AMI family is hashed next to the spec: an alias or amiFamily changes the hash.
		{"AMIFamily AL2023 alias", "7070152090107204844", func(s *EC2NodeClassSpec) { s.AMISelectorTerms = []AMISelectorTerm{{Alias: "al2023@latest"}} }},
		{"AMIFamily Bottlerocket", "2472323583530084608", func(s *EC2NodeClassSpec) { s.AMIFamily = ptr(AMIFamilyBottlerocket) }},
		{"IPPrefixCount", staticHash, func(s *EC2NodeClassSpec) { s.IPPrefixCount = ptr(int32(1)) }},
		{"CapacityReservationSelectorTerms", staticHash, func(s *EC2NodeClassSpec) {
			s.CapacityReservationSelectorTerms = []CapacityReservationSelectorTerm{{ID: "cr-1"}}
		}},
	}
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			s := testNodeClass()
			e.change(&s)
			if got := nodeClassHash(t, s); got != e.hash {
				t.Errorf("hash = %s, want %s", got, e.hash)
			}
		})
	}
	caBundles := []struct{ name, caBundle, hash string }{
		{"no CA bundle", "", "10322715598915162619"},
		{"other CA bundle", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==", "7527973201956273592"},
	}
	for _, c := range caBundles {
		t.Run(c.name, func(t *testing.T) {
			if got := mustHash(t, func() (string, error) { return EC2NodeClassHash(testNodeClass(), c.caBundle) }); got != c.hash {
				t.Errorf("hash = %s, want %s", got, c.hash)
			}
		})
	}
}

func TestAMIFamily(t *testing.T) {
	cases := []struct {
		name string
		spec EC2NodeClassSpec
		want string
	}{
		{"none", EC2NodeClassSpec{}, AMIFamilyCustom},
		{"amiFamily", EC2NodeClassSpec{AMIFamily: ptr(AMIFamilyUbuntu), AMISelectorTerms: []AMISelectorTerm{{Alias: "al2@latest"}}}, AMIFamilyUbuntu},
		{"alias", EC2NodeClassSpec{AMISelectorTerms: []AMISelectorTerm{{ID: "ami-1"}, {Alias: "windows2022@latest"}}}, AMIFamilyWindows2022},
		{"bottlerocket alias", EC2NodeClassSpec{AMISelectorTerms: []AMISelectorTerm{{Alias: "bottlerocket@v1.20.0"}}}, AMIFamilyBottlerocket},
		{"no alias", EC2NodeClassSpec{AMISelectorTerms: []AMISelectorTerm{{ID: "ami-1"}}}, AMIFamilyCustom},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := AMIFamily(c.spec)
			if err != nil || got != c.want {
				t.Errorf("AMIFamily = %q, %v; want %q", got, err, c.want)
			}
		})
	}
	for _, alias := range []string{"al2023", "AL2023@latest", "ubuntu@latest", "al2023@v1@x"} {
		t.Run("invalid "+alias, func(t *testing.T) {
			if _, err := AMIFamily(EC2NodeClassSpec{AMISelectorTerms: []AMISelectorTerm{{Alias: alias}}}); err == nil {
				t.Errorf("AMIFamily(%q) succeeded", alias)
			}
		})
	}
}
