package nodeclass

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

func ptr[T any](v T) *T { return &v }

const testCluster = "my-cluster"

// baseSpec is a valid class; every call returns fresh maps and slices so cases can mutate it.
func baseSpec() Spec {
	return Spec{
		Name:               "default",
		AMISelectorTerms:   []AMITerm{{Alias: "al2023@latest"}},
		Role:               "KarpenterNodeRole-my-cluster",
		SubnetTerms:        []discovery.SubnetTerm{{Tags: map[string]string{DiscoveryTagKey: testCluster}}},
		SecurityGroupTerms: []discovery.SecurityGroupTerm{{Tags: map[string]string{DiscoveryTagKey: testCluster}}},
		MetadataOptions:    DefaultMetadataOptions(),
	}
}

// wantErr is an expected FieldError: the exact path and a substring of the message.
type wantErr struct {
	path, msg string
}

// checkErrs asserts that got matches want one to one, in order.
func checkErrs(t *testing.T, got []FieldError, want []wantErr) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), dumpErrs(got))
	}
	for i, w := range want {
		if got[i].Path.String() != w.path {
			t.Errorf("error %d: path %q, want %q\n%s", i, got[i].Path, w.path, dumpErrs(got))
		}
		if !strings.Contains(got[i].Message, w.msg) {
			t.Errorf("error %d (%s): message %q does not contain %q", i, got[i].Path, got[i].Message, w.msg)
		}
	}
}

func dumpErrs(errs []FieldError) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("  " + e.Error() + "\n")
	}
	return b.String()
}

func iface(card, dev int, typ string) capacity.Interface {
	return capacity.Interface{NetworkCardIndex: card, DeviceIndex: dev, InterfaceType: typ}
}

const (
	ifc = capacity.InterfaceTypeInterface
	efa = capacity.InterfaceTypeEFAOnly
)
