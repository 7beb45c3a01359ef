package karpenterhash

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Ported from the Describe("Hash") tests of karpenter-provider-aws v1.14.1
// (pkg/apis/v1/ec2nodeclass_hash_test.go). The pinned values are upstream's.

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

type nodeClassChange struct {
	name   string
	hash   string
	change func(*EC2NodeClassSpec)
}

// staticFieldChanges are upstream's table entries. Upstream applies each change with
// mergo.Merge(WithOverride, WithSliceDeepCopy): maps gain the new keys, set pointers and
// structs are merged field by field, and the first element of a slice is merged with the first
// element of the change. The functions below produce those merged objects.
var staticFieldChanges = []nodeClassChange{
	{"UserData", "2153344579995979450", func(s *EC2NodeClassSpec) { s.UserData = ptr("userdata-test-2") }},
	{"Tags", "4608386791045313156", func(s *EC2NodeClassSpec) { s.Tags["keyTag-test-3"] = "valueTag-test-3" }},
	{"Context", "11612053647989098410", func(s *EC2NodeClassSpec) { s.Context = ptr("context-2") }},
	{"DetailedMonitoring", "11845605438531206428", func(s *EC2NodeClassSpec) { s.DetailedMonitoring = ptr(true) }},
	{"InstanceStorePolicy", "6430637013089544585", func(s *EC2NodeClassSpec) { s.InstanceStorePolicy = ptr(InstanceStorePolicyRAID0) }},
	{"AssociatePublicIPAddress", "6811176403923819181", func(s *EC2NodeClassSpec) { s.AssociatePublicIPAddress = ptr(true) }},
	{"MetadataOptions HTTPEndpoint", "8158886403801636337", func(s *EC2NodeClassSpec) { s.MetadataOptions.HTTPEndpoint = ptr("enabled") }},
	{"MetadataOptions HTTPProtocolIPv6", "12355196004817691031", func(s *EC2NodeClassSpec) { s.MetadataOptions.HTTPProtocolIPv6 = ptr("enabled") }},
	{"MetadataOptions HTTPPutResponseHopLimit", "8968306366664488826", func(s *EC2NodeClassSpec) { s.MetadataOptions.HTTPPutResponseHopLimit = ptr(int64(10)) }},
	{"MetadataOptions HTTPTokens", "12408995450371615650", func(s *EC2NodeClassSpec) { s.MetadataOptions.HTTPTokens = ptr("required") }},
	{"BlockDeviceMapping DeviceName", "13986335469721503441", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].DeviceName = ptr("map-device-test-3") }},
	{"BlockDeviceMapping RootVolume", "14242690863945643402", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].RootVolume = true }},
	{"BlockDeviceMapping DeleteOnTermination", "12316454167870753581", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.DeleteOnTermination = ptr(true) }},
	{"BlockDeviceMapping Encrypted", "17753517657333560591", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.Encrypted = ptr(true) }},
	{"BlockDeviceMapping IOPS", "2249322442135400321", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.IOPS = ptr(int64(10)) }},
	{"BlockDeviceMapping KMSKeyID", "12259594419287406661", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.KMSKeyID = ptr("test") }},
	{"BlockDeviceMapping SnapshotID", "1149563513090550380", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.SnapshotID = ptr("test") }},
	{"BlockDeviceMapping Throughput", "12068199760789564545", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.Throughput = ptr(int64(10)) }},
	{"BlockDeviceMapping VolumeType", "16361719363399715944", func(s *EC2NodeClassSpec) { s.BlockDeviceMappings[0].EBS.VolumeType = ptr("io1") }},
	{"ConnectionTracking TCPEstablishedTimeout", "12177489405137904098", func(s *EC2NodeClassSpec) {
		s.ConnectionTracking = &ConnectionTracking{TCPEstablishedTimeout: ptr(int32(300))}
	}},
	{"ConnectionTracking UDPStreamTimeout", "17567831983996427", func(s *EC2NodeClassSpec) {
		s.ConnectionTracking = &ConnectionTracking{UDPStreamTimeout: ptr(int32(120))}
	}},
	{"ConnectionTracking UDPTimeout", "5078825826133662844", func(s *EC2NodeClassSpec) { s.ConnectionTracking = &ConnectionTracking{UDPTimeout: ptr(int32(45))} }},
	{"CPUOptions NestedVirtualization", "17001101224536964682", func(s *EC2NodeClassSpec) {
		s.CPUOptions = &CPUOptions{NestedVirtualization: ptr("enabled")}
	}},
}

// behaviorFieldChanges are upstream's entries for fields that are not hashed.
var behaviorFieldChanges = []nodeClassChange{
	{"Modified AMISelector", staticHash, func(s *EC2NodeClassSpec) {
		s.AMISelectorTerms = []AMISelectorTerm{{Tags: map[string]string{"": "ami-test-value"}}}
	}},
	{"Modified SubnetSelector", staticHash, func(s *EC2NodeClassSpec) {
		s.SubnetSelectorTerms = []SubnetSelectorTerm{{Tags: map[string]string{"subnet-test-key": "subnet-test-value"}}}
	}},
	{"Modified SecurityGroupSelector", staticHash, func(s *EC2NodeClassSpec) {
		s.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{Tags: map[string]string{"security-group-test-key": "security-group-test-value"}}}
	}},
}

func nodeClassHash(t *testing.T, s EC2NodeClassSpec) string {
	t.Helper()
	return mustHash(t, func() (string, error) { return EC2NodeClassHash(s, testCABundle) })
}

func TestEC2NodeClassHash(t *testing.T) {
	t.Run("should match static hash on field value change", func(t *testing.T) {
		entries := append([]nodeClassChange{{"Base EC2NodeClass", staticHash, func(*EC2NodeClassSpec) {}}}, staticFieldChanges...)
		entries = append(entries, behaviorFieldChanges...)
		for _, e := range entries {
			t.Run(e.name, func(t *testing.T) {
				s := testNodeClass()
				e.change(&s)
				if got := nodeClassHash(t, s); got != e.hash {
					t.Errorf("hash = %s, want %s", got, e.hash)
				}
			})
		}
	})
	t.Run("should match static hash when updating blockDeviceMapping volumeSize", func(t *testing.T) {
		s := testNodeClass()
		s.BlockDeviceMappings[0].EBS.VolumeSize = resource.NewScaledQuantity(10, resource.Giga)
		if got, want := nodeClassHash(t, s), "3564293065344858862"; got != want {
			t.Errorf("hash = %s, want %s", got, want)
		}
	})
	t.Run("should match static hash for instanceProfile", func(t *testing.T) {
		s := testNodeClass()
		s.Role = ""
		s.InstanceProfile = ptr("test-instance-profile")
		if got, want := nodeClassHash(t, s), "3585768058063247698"; got != want {
			t.Errorf("hash = %s, want %s", got, want)
		}
	})
	t.Run("should match static hash when reordering tags", func(t *testing.T) {
		s := testNodeClass()
		s.Tags = map[string]string{"keyTag-2": "valueTag-2", "keyTag-1": "valueTag-1"}
		if got := nodeClassHash(t, s); got != staticHash {
			t.Errorf("hash = %s, want %s", got, staticHash)
		}
	})
	t.Run("should match static hash when reordering blockDeviceMappings", func(t *testing.T) {
		s := testNodeClass()
		s.BlockDeviceMappings[0], s.BlockDeviceMappings[1] = s.BlockDeviceMappings[1], s.BlockDeviceMappings[0]
		if got := nodeClassHash(t, s); got != staticHash {
			t.Errorf("hash = %s, want %s", got, staticHash)
		}
	})
	t.Run("should change hash when static fields are updated", func(t *testing.T) {
		for _, e := range staticFieldChanges {
			t.Run(e.name, func(t *testing.T) {
				s := testNodeClass()
				before := nodeClassHash(t, s)
				e.change(&s)
				if after := nodeClassHash(t, s); after == before {
					t.Errorf("hash unchanged: %s", after)
				}
			})
		}
	})
	t.Run("should change hash blockDeviceMapping volumeSize is updated", func(t *testing.T) {
		s := testNodeClass()
		before := nodeClassHash(t, s)
		s.BlockDeviceMappings[0].EBS.VolumeSize = resource.NewScaledQuantity(10, resource.Giga)
		if after := nodeClassHash(t, s); after == before {
			t.Errorf("hash unchanged: %s", after)
		}
	})
	t.Run("should change hash when instanceProfile is updated", func(t *testing.T) {
		s := testNodeClass()
		s.Role = ""
		s.InstanceProfile = ptr("test-instance-profile")
		before := nodeClassHash(t, s)
		s.InstanceProfile = ptr("other-instance-profile")
		if after := nodeClassHash(t, s); after == before {
			t.Errorf("hash unchanged: %s", after)
		}
	})
	t.Run("should not change hash when tags are re-ordered", func(t *testing.T) {
		s := testNodeClass()
		before := nodeClassHash(t, s)
		s.Tags = map[string]string{"keyTag-2": "valueTag-2", "keyTag-1": "valueTag-1"}
		if after := nodeClassHash(t, s); after != before {
			t.Errorf("hash = %s, want %s", after, before)
		}
	})
	t.Run("should not change hash when blockDeviceMappings are re-ordered", func(t *testing.T) {
		s := testNodeClass()
		before := nodeClassHash(t, s)
		s.BlockDeviceMappings[0], s.BlockDeviceMappings[1] = s.BlockDeviceMappings[1], s.BlockDeviceMappings[0]
		if after := nodeClassHash(t, s); after != before {
			t.Errorf("hash = %s, want %s", after, before)
		}
	})
	t.Run("should not change hash when behavior/dynamic fields are updated", func(t *testing.T) {
		s := testNodeClass()
		before := nodeClassHash(t, s)
		s.SubnetSelectorTerms = []SubnetSelectorTerm{{Tags: map[string]string{"subnet-test-key": "subnet-test-value"}}}
		s.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{Tags: map[string]string{"sg-test-key": "sg-test-value"}}}
		s.AMISelectorTerms = []AMISelectorTerm{{Tags: map[string]string{"ami-test-key": "ami-test-value"}}}
		s.CapacityReservationSelectorTerms = []CapacityReservationSelectorTerm{{Tags: map[string]string{"cr-test-key": "cr-test-value"}}}
		if after := nodeClassHash(t, s); after != before {
			t.Errorf("hash = %s, want %s", after, before)
		}
	})
	t.Run("should expect two EC2NodeClasses with the same spec to have the same hash", func(t *testing.T) {
		if a, b := nodeClassHash(t, testNodeClass()), nodeClassHash(t, testNodeClass()); a != b {
			t.Errorf("hashes differ: %s, %s", a, b)
		}
	})
}

// TestEC2NodeClassHashBeyondUpstream pins fields and inputs upstream's tests do not exercise.
// The values were computed by karpenter-provider-aws v1.14.1's own EC2NodeClass.Hash on the
// same objects (upstream's test object, changed as named, CA bundle "test-ca-bundle").
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
