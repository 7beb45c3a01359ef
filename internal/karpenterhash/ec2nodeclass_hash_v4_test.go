package karpenterhash

// Ported from the Describe("Hash") tests of karpenter-provider-aws v1.11.0
// (pkg/apis/v1/ec2nodeclass_hash_test.go; hash version v4; the file is byte-identical in
// v1.9.3 and v1.10.2). The pinned values are upstream's. Hash version v4 does not hash the CA
// bundle: the suite passes testCABundle all the same, as the other versions' suites do.

import "testing"

// v4Suite is v1.11.0's Describe("Hash"), run on EC2NodeClassHashForVersion("v4").
var v4Suite = upstreamHashSuite{
	hash: func(s EC2NodeClassSpec) (string, error) {
		return EC2NodeClassHashForVersion(EC2NodeClassHashV4, s, testCABundle)
	},
	staticHash: "4950366118253097694",
	fieldEntries: []namedHash{
		{"UserData", "9034828637236670345"},
		{"Tags", "6878220270322275255"},
		{"Context", "13953931752662869657"},
		{"DetailedMonitoring", "14187487647319890991"},
		{"InstanceStorePolicy", "4160809219257698490"},
		{"AssociatePublicIPAddress", "4469320567057431454"},
		{"MetadataOptions HTTPEndpoint", "1277386558528601282"},
		{"MetadataOptions HTTPProtocolIPv6", "14697047633165484196"},
		{"MetadataOptions HTTPPutResponseHopLimit", "2086799014304536137"},
		{"MetadataOptions HTTPTokens", "14750841460622248593"},
		{"BlockDeviceMapping DeviceName", "11716516558705174498"},
		{"BlockDeviceMapping RootVolume", "11900810786014401721"},
		{"BlockDeviceMapping DeleteOnTermination", "14586255897156659742"},
		{"BlockDeviceMapping Encrypted", "10872029821841773628"},
		{"BlockDeviceMapping IOPS", "9202874311950700210"},
		{"BlockDeviceMapping KMSKeyID", "14601456769467439478"},
		{"BlockDeviceMapping SnapshotID", "8031059801598053215"},
		{"BlockDeviceMapping Throughput", "14410045481146650034"},
		{"BlockDeviceMapping VolumeType", "9480251663542054235"},
	},
	volumeSizeHash:      "5906178522470964189",
	instanceProfileHash: "5855570904022890593",
}

func TestEC2NodeClassHashV4(t *testing.T) {
	v4Suite.run(t)
}
