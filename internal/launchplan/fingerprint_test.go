package launchplan

import "testing"

// The fingerprints states and instance tags recorded before the content form moved here: a
// change of the canonical form would make every static node look drifted and be replaced.
func TestFingerprintIsStable(t *testing.T) {
	yes, two, eight, iops := true, 2, 8, 3000
	full := LaunchTemplate{Name: "c1/general/abc", ImageID: "ami-0123", UserData: "#!/bin/bash\necho hi\n",
		MetadataOptions: MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPTokens: "required", HTTPPutResponseHopLimit: 1},
		NetworkInterfaces: []Interface{{NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: "efa", SecurityGroupIDs: []string{"sg-b", "sg-a"}},
			{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface", SecurityGroupIDs: []string{"sg-a"}, AssociatePublicIPAddress: &yes, IPv4PrefixCount: &two}},
		BlockDevices: []BlockDevice{{DeviceName: "/dev/xvda", VolumeSizeGiB: 20, VolumeType: "gp3", Encrypted: &yes, DeleteOnTermination: &yes,
			IOPS: &iops, Throughput: &eight, KMSKeyID: "k", SnapshotID: "s"}},
		DetailedMonitoring: true, InstanceProfile: "prof", Tags: map[string]string{"a": "b"}}
	for _, tc := range []struct {
		name string
		lt   LaunchTemplate
		want string
	}{
		{"empty", LaunchTemplate{}, "44136fa355b3678a1146ad16f7e8649e"},
		{"every field", full, "fd2293e65a19a8790897fa90379c26d9"},
	} {
		if got := tc.lt.Fingerprint(); got != tc.want {
			t.Errorf("%s: fingerprint %s, recorded %s", tc.name, got, tc.want)
		}
	}
	// Order of interfaces and of their groups does not count; the content does.
	swapped := full
	swapped.NetworkInterfaces = []Interface{full.NetworkInterfaces[1], full.NetworkInterfaces[0]}
	swapped.NetworkInterfaces[1].SecurityGroupIDs = []string{"sg-a", "sg-b"}
	if swapped.Fingerprint() != full.Fingerprint() {
		t.Error("the order of interfaces or groups changed the fingerprint")
	}
	if full.NetworkInterfaces[0].SecurityGroupIDs[0] != "sg-b" {
		t.Error("Fingerprint sorted the template's own groups")
	}
	changed := full
	changed.ImageID = "ami-0456"
	if changed.Fingerprint() == full.Fingerprint() {
		t.Error("another image gave the same fingerprint")
	}
	// Tags are not content: the instance tags carry the fingerprint itself.
	retagged := full
	retagged.Tags = map[string]string{"a": "c"}
	if retagged.Fingerprint() != full.Fingerprint() {
		t.Error("tags changed the fingerprint")
	}
}
