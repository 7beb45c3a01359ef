package karpenterhash

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

func TestEC2NodeClassHashVersionFor(t *testing.T) {
	want := map[string]string{
		"1.9": "v4", "1.10": "v4", "1.11": "v4",
		"1.12": "v5", "1.13": "v5", "1.14": "v5",
		"1.15": "v6",
	}
	for _, minor := range manifest.Versions() {
		got, err := EC2NodeClassHashVersionFor(minor)
		if err != nil || got != want[minor] {
			t.Errorf("EC2NodeClassHashVersionFor(%q) = %q, %v; want %q", minor, got, err, want[minor])
		}
	}
	if got, _ := EC2NodeClassHashVersionFor(HashKarpenterVersion); got != EC2NodeClassHashVersion {
		t.Errorf("hash version of %s = %q, want EC2NodeClassHashVersion %q", HashKarpenterVersion, got, EC2NodeClassHashVersion)
	}
	for _, minor := range []string{"1.8", "1.16", "v1.14", "1.14.3", ""} {
		if _, err := EC2NodeClassHashVersionFor(minor); err == nil {
			t.Errorf("EC2NodeClassHashVersionFor(%q) succeeded", minor)
		}
	}
}

// Documents as the provider renders them. The pinned hashes were computed by each release's own
// EC2NodeClass.Hash (karpenter-provider-aws v1.11.0 for v4, v1.14.3 for v5, v1.15.2 for v6, CA
// bundle "test-ca-bundle") on the object the API server stores for the document with that
// minor's CRD (unknown fields pruned, metadataOptions defaulted).
const (
	docHeader = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  tags:
    team: platform
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs:
        volumeSize: 100Gi
        volumeType: gp3
        encrypted: true
`
	// docBasic holds a kubelet every minor declares.
	docBasic = docHeader + `  kubelet:
    maxPods: 110
    kubeReserved:
      cpu: 100m
`
	// docNewer adds fields of later minors: placementGroupSelector (1.11), connectionTracking
	// and cpuOptions (1.13). Older minors' CRDs prune them.
	docNewer = docBasic + `  placementGroupSelector:
    name: pg
  connectionTracking:
    tcpEstablishedTimeout: 300
  cpuOptions:
    nestedVirtualization: enabled
`
	// docFreeForm holds Karpenter 1.15's free-form kubelet (a maxPods expression, keys the
	// typed kubelet of earlier minors lacks, nested keys out of order) and enclaveOptions.
	docFreeForm = docHeader + `  kubelet:
    maxPods: vcpus * 10
    featureGates:
      ZFeature: true
      AFeature: false
    containerLogMaxSize: 50Mi
    kubeReserved:
      memory: 1Gi
      cpu: 100m
    imageGCHighThresholdPercent: 85
  enclaveOptions:
    enabled: false
`
	docNoKubelet    = docHeader
	docEmptyKubelet = docHeader + "  kubelet: {}\n"
)

func TestEC2NodeClassHashFor(t *testing.T) {
	cases := []struct {
		name, minor, doc, hash, version string
	}{
		{"basic 1.9", "1.9", docBasic, "7083942296497435098", "v4"},
		{"basic 1.10", "1.10", docBasic, "7083942296497435098", "v4"},
		{"basic 1.11", "1.11", docBasic, "7083942296497435098", "v4"},
		{"basic 1.12", "1.12", docBasic, "202424793540120809", "v5"},
		{"basic 1.13", "1.13", docBasic, "202424793540120809", "v5"},
		{"basic 1.14", "1.14", docBasic, "202424793540120809", "v5"},
		{"basic 1.15", "1.15", docBasic, "8881218068684596076", "v6"},
		// 1.10 prunes all three fields: the hash is docBasic's.
		{"newer fields 1.10", "1.10", docNewer, "7083942296497435098", "v4"},
		{"newer fields 1.11", "1.11", docNewer, "6399343915606799328", "v4"},
		{"newer fields 1.12", "1.12", docNewer, "4057486909170258643", "v5"},
		{"newer fields 1.13", "1.13", docNewer, "8556245680966882526", "v5"},
		{"newer fields 1.14", "1.14", docNewer, "8556245680966882526", "v5"},
		{"newer fields 1.15", "1.15", docNewer, "16615488962734696182", "v6"},
		{"free-form kubelet 1.15", "1.15", docFreeForm, "3889459745009809154", "v6"},
		// Before 1.15 an empty kubelet is a set (empty) struct and enters the hash; in 1.15 both
		// hash the kubelet string "null".
		{"no kubelet 1.11", "1.11", docNoKubelet, "10769964739580114481", "v4"},
		{"empty kubelet 1.11", "1.11", docEmptyKubelet, "12666494982573470980", "v4"},
		{"no kubelet 1.14", "1.14", docNoKubelet, "17723501147795183362", "v5"},
		{"empty kubelet 1.14", "1.14", docEmptyKubelet, "14936313138480927799", "v5"},
		{"no kubelet 1.15", "1.15", docNoKubelet, "5436860813626831172", "v6"},
		{"empty kubelet 1.15", "1.15", docEmptyKubelet, "5436860813626831172", "v6"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, v, err := EC2NodeClassHashFor(c.minor, c.doc, testCABundle)
			if err != nil {
				t.Fatal(err)
			}
			if h != c.hash || v != c.version {
				t.Errorf("EC2NodeClassHashFor = %s, %s; want %s, %s", h, v, c.hash, c.version)
			}
		})
	}
}

func TestEC2NodeClassHashForLegacyEntryPoints(t *testing.T) {
	h, v, err := EC2NodeClassHashFor(HashKarpenterVersion, docBasic, testCABundle)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := DecodeEC2NodeClass(docBasic)
	if err != nil {
		t.Fatal(err)
	}
	if legacy := nodeClassHash(t, spec); legacy != h || v != EC2NodeClassHashVersion {
		t.Errorf("EC2NodeClassHash = %s (%s); EC2NodeClassHashFor(%s) = %s, %s", legacy, EC2NodeClassHashVersion, HashKarpenterVersion, h, v)
	}
}

func TestDecodeEC2NodeClassFor(t *testing.T) {
	t.Run("1.15 kubelet is free-form", func(t *testing.T) {
		s, err := DecodeEC2NodeClassFor("1.15", docFreeForm)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kubelet != nil {
			t.Errorf("Kubelet = %+v, want nil", s.Kubelet)
		}
		want := `{"containerLogMaxSize":"50Mi","featureGates":{"AFeature":false,"ZFeature":true},` +
			`"imageGCHighThresholdPercent":85,"kubeReserved":{"cpu":"100m","memory":"1Gi"},"maxPods":"vcpus * 10"}`
		if got, err := s.RawKubelet.CanonicalJSON(); err != nil || got != want {
			t.Errorf("kubelet = %s, %v; want %s", got, err, want)
		}
		if s.EnclaveOptions == nil || s.EnclaveOptions.Enabled {
			t.Errorf("enclaveOptions = %+v, want enabled: false", s.EnclaveOptions)
		}
	})
	t.Run("1.14 kubelet is typed", func(t *testing.T) {
		s, err := DecodeEC2NodeClassFor("1.14", docBasic)
		if err != nil {
			t.Fatal(err)
		}
		if s.RawKubelet != nil || s.Kubelet == nil || s.Kubelet.MaxPods == nil || *s.Kubelet.MaxPods != 110 {
			t.Errorf("kubelet = %+v, raw %v; want typed maxPods 110", s.Kubelet, s.RawKubelet)
		}
	})
	t.Run("1.14 rejects a maxPods expression", func(t *testing.T) {
		if _, _, err := EC2NodeClassHashFor("1.14", docFreeForm, testCABundle); err == nil || !strings.Contains(err.Error(), "maxPods") {
			t.Errorf("error = %v, want one on maxPods", err)
		}
	})
	t.Run("1.14 prunes enclaveOptions", func(t *testing.T) {
		s, err := DecodeEC2NodeClassFor("1.14", docHeader+"  enclaveOptions:\n    enabled: true\n")
		if err != nil || s.EnclaveOptions != nil {
			t.Errorf("enclaveOptions = %+v, %v; want pruned", s.EnclaveOptions, err)
		}
	})
	t.Run("1.15 kubelet must be an object", func(t *testing.T) {
		if _, err := DecodeEC2NodeClassFor("1.15", docHeader+"  kubelet: [1]\n"); err == nil {
			t.Error("DecodeEC2NodeClassFor succeeded")
		}
	})
	t.Run("unknown minor", func(t *testing.T) {
		if _, _, err := EC2NodeClassHashFor("1.8", docBasic, testCABundle); err == nil {
			t.Error("EC2NodeClassHashFor(1.8) succeeded")
		}
		if _, err := DecodeNodePoolFor("1.8", docBasic); err == nil {
			t.Error("DecodeNodePoolFor(1.8) succeeded")
		}
	})
}

func TestEC2NodeClassHashForVersionChecksForm(t *testing.T) {
	withRaw := testNodeClass()
	withRaw.RawKubelet = RawKubeletConfiguration{}
	withEnclave := testNodeClass()
	withEnclave.EnclaveOptions = &EnclaveOptions{Enabled: true}
	withTyped := testNodeClass()
	withTyped.Kubelet = &KubeletConfiguration{MaxPods: ptr(int32(110))}
	cases := []struct {
		name, version string
		spec          EC2NodeClassSpec
	}{
		{"v4 with RawKubelet", "v4", withRaw},
		{"v5 with RawKubelet", "v5", withRaw},
		{"v5 with EnclaveOptions", "v5", withEnclave},
		{"v6 with Kubelet", "v6", withTyped},
		{"unknown version", "v7", testNodeClass()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := EC2NodeClassHashForVersion(c.version, c.spec, testCABundle); err == nil {
				t.Error("EC2NodeClassHashForVersion succeeded")
			}
		})
	}
}

func TestRawKubeletConfiguration(t *testing.T) {
	for _, kc := range []RawKubeletConfiguration{nil, {}} {
		if got := kc.String(); got != "null" {
			t.Errorf("String(%#v) = %s, want null", kc, got)
		}
	}
	kc := mustRawKubelet(t, map[string]any{"maxPods": 110, "clusterDNS": []string{"10.0.0.10"}})
	if got, want := kc.String(), `{"clusterDNS":["10.0.0.10"],"maxPods":110}`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
	bad := RawKubeletConfiguration{"maxPods": {Raw: []byte("{")}}
	if _, err := bad.CanonicalJSON(); err == nil {
		t.Error("CanonicalJSON of invalid JSON succeeded")
	}
}
