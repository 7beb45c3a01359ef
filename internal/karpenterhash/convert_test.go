package karpenterhash

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// driftTestManifest is driftTestTemplate as this provider renders it.
func driftTestManifest() manifest.NodePool {
	return manifest.NodePool{
		Name: "default",
		Spec: manifest.NodePoolSpec{
			Template: manifest.NodeClaimTemplate{
				Metadata: manifest.TemplateMetadata{
					Annotations: map[string]string{"keyAnnotation": "valueAnnotation", "keyAnnotation2": "valueAnnotation2"},
					Labels:      map[string]string{"keyLabel": "valueLabel", "keyLabel2": "valueLabel2"},
				},
				Spec: manifest.NodeClaimTemplateSpec{
					NodeClassRef:           manifest.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"},
					Taints:                 []manifest.Taint{{Key: "keyvalue1", Effect: "NoExecute"}},
					StartupTaints:          []manifest.Taint{{Key: "startupkeyvalue1", Effect: "NoExecute"}},
					ExpireAfter:            "5m",
					TerminationGracePeriod: "5m",
				},
			},
		},
	}
}

func manifestNodePoolHash(t *testing.T, np manifest.NodePool) string {
	t.Helper()
	tmpl, err := FromManifestNodePool(np)
	if err != nil {
		t.Fatal(err)
	}
	return templateHash(t, tmpl)
}

func TestFromManifestNodePool(t *testing.T) {
	t.Run("drift test NodePool", func(t *testing.T) {
		if got := manifestNodePoolHash(t, driftTestManifest()); got != driftTestHash {
			t.Errorf("hash = %s, want %s", got, driftTestHash)
		}
	})
	t.Run("decodes the template", func(t *testing.T) {
		got, err := FromManifestNodePool(driftTestManifest())
		if err != nil {
			t.Fatal(err)
		}
		want := driftTestTemplate(t)
		// Raw is the JSON the duration was read from; it is not hashed.
		got.Spec.ExpireAfter.Raw, want.Spec.ExpireAfter.Raw = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("template = %+v\nwant %+v", got, want)
		}
	})
	t.Run("should not update the drift hash when NodePool behavior field is updated", func(t *testing.T) {
		np := manifest.NodePool{
			Name: "default",
			Spec: manifest.NodePoolSpec{
				Template: manifest.NodeClaimTemplate{
					Metadata: manifest.TemplateMetadata{
						Annotations: map[string]string{"keyAnnotation": "valueAnnotation", "keyAnnotation2": "valueAnnotation2"},
						Labels:      map[string]string{"keyLabel": "valueLabel", "testing/cluster": "unspecified"},
					},
					Spec: manifest.NodeClaimTemplateSpec{
						NodeClassRef:           manifest.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"},
						Taints:                 []manifest.Taint{{Key: "key", Effect: "NoExecute"}},
						StartupTaints:          []manifest.Taint{{Key: "key", Effect: "NoExecute"}},
						ExpireAfter:            "5m",
						TerminationGracePeriod: "5m",
					},
				},
				Limits: map[string]string{"cpu": "2000"},
			},
		}
		if got := manifestNodePoolHash(t, np); got != staticDriftHash {
			t.Fatalf("hash = %s, want %s", got, staticDriftHash)
		}
		np.Spec.Limits = map[string]string{"cpu": "16"}
		np.Spec.Disruption = manifest.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "30s"}
		np.Spec.Template.Spec.Requirements = []manifest.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: "In", Values: []string{"test"}},
			{Key: "topology.kubernetes.io/zone", Operator: "Gt", Values: []string{"1"}},
			{Key: "topology.kubernetes.io/zone", Operator: "Lt", Values: []string{"1"}},
		}
		np.Spec.Weight = ptr(int32(80))
		if got := manifestNodePoolHash(t, np); got != staticDriftHash {
			t.Errorf("hash = %s, want %s", got, staticDriftHash)
		}
	})
	// Upstream values for a template holding only nodeClassRef (karpenter.k8s.aws
	// EC2NodeClass default) and expireAfter.
	minimal := manifest.NodePool{Spec: manifest.NodePoolSpec{Template: manifest.NodeClaimTemplate{
		Spec: manifest.NodeClaimTemplateSpec{NodeClassRef: manifest.NodeClassReference{Name: "default"}},
	}}}
	t.Run("expireAfter defaults to 720h", func(t *testing.T) {
		tmpl, err := FromManifestNodePool(minimal)
		if err != nil {
			t.Fatal(err)
		}
		if d := tmpl.Spec.ExpireAfter.Duration; d == nil || *d != 720*time.Hour {
			t.Errorf("expireAfter = %v, want 720h", d)
		}
		if got, want := templateHash(t, tmpl), "6821555240594823858"; got != want {
			t.Errorf("hash = %s, want %s", got, want)
		}
	})
	t.Run("expireAfter Never", func(t *testing.T) {
		np := minimal
		np.Spec.Template.Spec.ExpireAfter = Never
		if got, want := manifestNodePoolHash(t, np), "17369979337536258260"; got != want {
			t.Errorf("hash = %s, want %s", got, want)
		}
	})
}

// upstreamTestNodeClassManifest is the EC2NodeClass of upstream's hash tests (testNodeClass) as
// this provider renders it, with selector terms, which are not hashed.
func upstreamTestNodeClassManifest() manifest.EC2NodeClass {
	return manifest.EC2NodeClass{
		Name: "default",
		Spec: manifest.EC2NodeClassSpec{
			SubnetSelectorTerms:        []manifest.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "cluster"}}},
			SecurityGroupSelectorTerms: []manifest.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "cluster"}}},
			AMISelectorTerms:           []manifest.AMISelectorTerm{{ID: "ami-0123456789abcdef0"}},
			Role:                       "role-1",
			Tags:                       map[string]string{"keyTag-1": "valueTag-1", "keyTag-2": "valueTag-2"},
			Context:                    "fake-context",
			DetailedMonitoring:         ptr(false),
			AssociatePublicIPAddress:   ptr(false),
			MetadataOptions: manifest.MetadataOptions{
				HTTPEndpoint:            "disabled",
				HTTPProtocolIPv6:        "disabled",
				HTTPPutResponseHopLimit: ptr(int64(1)),
				HTTPTokens:              "optional",
			},
			BlockDeviceMappings: []manifest.BlockDeviceMapping{
				{
					DeviceName: "map-device-1",
					EBS: manifest.BlockDevice{
						DeleteOnTermination: ptr(false),
						Encrypted:           ptr(false),
						IOPS:                ptr(int64(0)),
						KMSKeyID:            "fakeKMSKeyID",
						SnapshotID:          "fakeSnapshot",
						Throughput:          ptr(int64(0)),
						VolumeSize:          "2G",
						VolumeType:          "standard",
					},
				},
				{DeviceName: "map-device-2"},
			},
			UserData: "userdata-test-1",
		},
	}
}

func manifestNodeClassHash(t *testing.T, nc manifest.EC2NodeClass) string {
	t.Helper()
	s, err := FromManifestEC2NodeClass(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nodeClassHash(t, s)
}

func TestFromManifestEC2NodeClass(t *testing.T) {
	t.Run("upstream test object", func(t *testing.T) {
		if got := manifestNodeClassHash(t, upstreamTestNodeClassManifest()); got != staticHash {
			t.Errorf("hash = %s, want %s", got, staticHash)
		}
	})
	t.Run("upstream static field change", func(t *testing.T) {
		nc := upstreamTestNodeClassManifest()
		nc.Spec.BlockDeviceMappings[0].EBS.VolumeSize = "10G"
		if got, want := manifestNodeClassHash(t, nc), "3564293065344858862"; got != want {
			t.Errorf("hash = %s, want %s", got, want)
		}
	})
	t.Run("metadataOptions defaults", func(t *testing.T) {
		// Upstream value for role, alias and the CRD's metadataOptions default.
		nc := manifest.EC2NodeClass{Name: "default", Spec: manifest.EC2NodeClassSpec{
			SubnetSelectorTerms:        []manifest.SubnetSelectorTerm{{ID: "subnet-1"}},
			SecurityGroupSelectorTerms: []manifest.SecurityGroupSelectorTerm{{ID: "sg-1"}},
			AMISelectorTerms:           []manifest.AMISelectorTerm{{Alias: "al2023@latest"}},
			Role:                       "KarpenterNodeRole",
		}}
		s, err := FromManifestEC2NodeClass(nc)
		if err != nil {
			t.Fatal(err)
		}
		want := &MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr(int64(1)), HTTPTokens: ptr("required")}
		if !reflect.DeepEqual(s.MetadataOptions, want) {
			t.Errorf("metadataOptions = %+v, want %+v", s.MetadataOptions, want)
		}
		if got, want := nodeClassHash(t, s), "10889799858509090738"; got != want {
			t.Errorf("hash = %s, want %s", got, want)
		}
	})
	t.Run("partial metadataOptions", func(t *testing.T) {
		nc := manifest.EC2NodeClass{Name: "default", Spec: manifest.EC2NodeClassSpec{
			MetadataOptions: manifest.MetadataOptions{HTTPTokens: "optional"},
		}}
		s, err := FromManifestEC2NodeClass(nc)
		if err != nil {
			t.Fatal(err)
		}
		want := &MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr(int64(1)), HTTPTokens: ptr("optional")}
		if !reflect.DeepEqual(s.MetadataOptions, want) {
			t.Errorf("metadataOptions = %+v, want %+v", s.MetadataOptions, want)
		}
	})
}

func TestDecodeWrongKind(t *testing.T) {
	doc, err := manifest.RenderEC2NodeClass(upstreamTestNodeClassManifest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeNodePool(doc); err == nil || !strings.Contains(err.Error(), "not karpenter.sh/v1 NodePool") {
		t.Errorf("DecodeNodePool(EC2NodeClass) error = %v", err)
	}
	if _, err := DecodeEC2NodeClass("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: x}\n"); err == nil {
		t.Error("DecodeEC2NodeClass without spec succeeded")
	}
}

// Every supported minor's NodePool CRD stores the same template for the drift test NodePool
// (expireAfter defaulted alike), so DecodeNodePoolFor returns the same template for each.
func TestDecodeNodePoolFor(t *testing.T) {
	np := driftTestManifest()
	np.Spec.Template.Spec.ExpireAfter = ""
	doc, err := manifest.RenderNodePool(np)
	if err != nil {
		t.Fatal(err)
	}
	want, err := DecodeNodePool(doc)
	if err != nil {
		t.Fatal(err)
	}
	if d := want.Spec.ExpireAfter.Duration; d == nil || *d != 720*time.Hour {
		t.Fatalf("expireAfter = %v, want 720h", d)
	}
	for _, minor := range manifest.Versions() {
		t.Run(minor, func(t *testing.T) {
			got, err := DecodeNodePoolFor(minor, doc)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("template = %+v\nwant %+v", got, want)
			}
		})
	}
}
