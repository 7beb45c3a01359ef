package nodeclass

import (
	"maps"
	"regexp"
	"strings"
	"testing"
)

var iamNameRE = regexp.MustCompile(`^[\w+=,.@-]{1,128}$`)

// karpenterProfileRE is the form of the names Karpenter generates: <cluster>_<decimal hash>.
var karpenterProfileRE = regexp.MustCompile(`_[0-9]+$`)

func TestInstanceProfileName(t *testing.T) {
	long := strings.Repeat("c", 100)
	longClass := strings.Repeat("k", 253)
	tests := []struct {
		name, cluster, region, class string
		wantPrefix                   string // the readable part, before the hash
		wantLen                      int    // 0: not checked
	}{
		{"cluster and class", "my-cluster", "ap-southeast-1", "default", "nodeplane-my-cluster-default-", 0},
		{"no cluster", "", "ap-southeast-1", "default", "nodeplane-default-", 0},
		{"dotted class", "my-cluster", "us-east-1", "team-a.gpu-1", "nodeplane-my-cluster-team-a.gpu-1-", 0},
		{"underscore cluster", "my_cluster", "us-east-1", "default", "nodeplane-my_cluster-default-", 0},
		{"characters IAM refuses", "team a/b:c", "us-east-1", "default", "nodeplane-team-a-b-c-default-", 0},
		{"longest inputs cut to 128", long, "ap-southeast-1", longClass, "nodeplane-" + long + "-" + strings.Repeat("k", 6) + "-", 128},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := InstanceProfileName(tc.cluster, tc.region, tc.class)
			if !iamNameRE.MatchString(got) {
				t.Fatalf("%q is not a valid IAM instance profile name", got)
			}
			if !strings.HasPrefix(got, tc.wantPrefix) || len(got) != len(tc.wantPrefix)+profileHashLen {
				t.Fatalf("got %q, want %q followed by a %d-character hash", got, tc.wantPrefix, profileHashLen)
			}
			if tc.wantLen != 0 && len(got) != tc.wantLen {
				t.Fatalf("got %d characters, want %d", len(got), tc.wantLen)
			}
			if karpenterProfileRE.MatchString(got) {
				t.Fatalf("%q has the form of a Karpenter-generated name", got)
			}
			if again := InstanceProfileName(tc.cluster, tc.region, tc.class); again != got {
				t.Fatalf("not deterministic: %q then %q", got, again)
			}
		})
	}
}

// TestInstanceProfileNameDistinct: each input changes the name, also where the readable part is
// cut or sanitized to the same text.
func TestInstanceProfileNameDistinct(t *testing.T) {
	long := strings.Repeat("c", 100)
	pairs := []struct {
		name string
		a, b [3]string // cluster, region, class
	}{
		{"region (IAM is global)", [3]string{"c", "us-east-1", "default"}, [3]string{"c", "eu-west-1", "default"}},
		{"cluster", [3]string{"a", "us-east-1", "default"}, [3]string{"b", "us-east-1", "default"}},
		{"class", [3]string{"c", "us-east-1", "a"}, [3]string{"c", "us-east-1", "b"}},
		{"no cluster vs cluster", [3]string{"", "us-east-1", "c-default"}, [3]string{"c", "us-east-1", "default"}},
		{"same readable text", [3]string{"a-b", "us-east-1", "c"}, [3]string{"a", "us-east-1", "b-c"}},
		{"same sanitized text", [3]string{"a b", "us-east-1", "c"}, [3]string{"a/b", "us-east-1", "c"}},
		{"same cut text", [3]string{long, "us-east-1", strings.Repeat("k", 200) + "x"}, [3]string{long, "us-east-1", strings.Repeat("k", 200) + "y"}},
	}
	for _, p := range pairs {
		a := InstanceProfileName(p.a[0], p.a[1], p.a[2])
		b := InstanceProfileName(p.b[0], p.b[1], p.b[2])
		if a == b {
			t.Errorf("%s: both give %q", p.name, a)
		}
	}
}

func TestInstanceProfileTags(t *testing.T) {
	got := InstanceProfileTags("my-cluster", "ap-southeast-1", "default", "0123abcd")
	want := map[string]string{
		"karpenter.k8s.aws/ec2nodeclass":    "default",
		"topology.kubernetes.io/region":     "ap-southeast-1",
		"kubernetes.io/cluster/my-cluster":  "owned",
		"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter",
		"karpenter.nodeplane.io/owner":      "0123abcd",
	}
	if !maps.Equal(got, want) {
		t.Fatalf("tags:\n got %v\nwant %v", got, want)
	}
	noCluster := InstanceProfileTags("", "ap-southeast-1", "default", "0123abcd")
	delete(want, "kubernetes.io/cluster/my-cluster")
	if !maps.Equal(noCluster, want) {
		t.Fatalf("tags without a cluster:\n got %v\nwant %v", noCluster, want)
	}
	for k, v := range InstanceProfileOwnership("0123abcd") {
		if got[k] != v {
			t.Errorf("ownership tag %s=%s missing from the profile tags", k, v)
		}
	}
}
