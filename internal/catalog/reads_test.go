package catalog

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

// source is a Source that answers cat or err and counts the reads.
type source struct {
	cat   *Catalog
	err   error
	reads int
}

func (s *source) Catalog(context.Context) (*Catalog, error) {
	s.reads++
	return s.cat, s.err
}

func TestPodCapacityQueryCheck(t *testing.T) {
	bad := -1
	for _, c := range []struct {
		name string
		q    PodCapacityQuery
		want []string
	}{
		{"valid", PodCapacityQuery{InstanceType: "m5.large"}, nil},
		{"no type", PodCapacityQuery{}, []string{"instance_type"}},
		{"type not known yet", PodCapacityQuery{InstanceTypeUnknown: true}, nil},
		{"inputs", PodCapacityQuery{InstanceType: "m5.large", Input: capacity.Input{ReservedENIs: -1, KubeletMaxPods: &bad}},
			[]string{"reserved_enis", "kubelet_max_pods"}},
		{"interfaces not known yet", PodCapacityQuery{InstanceType: "m5.large",
			Input: capacity.Input{NetworkInterfaces: []capacity.Interface{{}}, NetworkInterfacesUnknown: true}}, nil},
	} {
		var got []string
		for _, f := range c.q.Check() {
			got = append(got, f.Path.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: findings on %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReadPodCapacity(t *testing.T) {
	src := &source{cat: fixtureCatalog()}
	ctx := context.Background()
	r, errs, warnings := ReadPodCapacity(ctx, src, "ap-southeast-1", PodCapacityQuery{InstanceType: "m5.large",
		Input: capacity.Input{AMIFamily: "Bottlerocket", CustomNetworking: true}})
	if len(errs) != 0 || len(warnings) != 0 || r.AMIFamily != "Bottlerocket" || r.MaxPods == 0 || r.Warnings == nil || len(r.Warnings) != 0 {
		t.Fatalf("m5.large: %+v, %v, %v", r, errs, warnings)
	}
	r, _, warnings = ReadPodCapacity(ctx, src, "ap-southeast-1", PodCapacityQuery{InstanceType: "m5.large",
		Input: capacity.Input{SecurityGroupsForPods: true}})
	if r.AMIFamily != capacity.DefaultFamily || len(warnings) != 1 || len(r.Warnings) != 1 {
		t.Errorf("caveats: %+v, %v", r, warnings)
	}
	// A type the region lacks is an error naming the closest ones; the name is not checked
	// beforehand (Check does that at validation).
	for name, want := range map[string]string{"m5.lrage": `Did you mean "m5.large"`, "": `"" is not an EC2 instance type`} {
		if _, errs, _ := ReadPodCapacity(ctx, src, "ap-southeast-1", PodCapacityQuery{InstanceType: name}); len(errs) != 1 ||
			errs[0].Summary != "Unknown instance type" || !strings.Contains(errs[0].Message, want) {
			t.Errorf("%q: %v", name, errs)
		}
	}
	if src.reads != 4 {
		t.Errorf("%d catalog reads, want one per read", src.reads)
	}
	// Invalid inputs are reported before the catalog is read.
	if _, errs, _ := ReadPodCapacity(ctx, src, "ap-southeast-1", PodCapacityQuery{InstanceType: "m5.large",
		Input: capacity.Input{ReservedENIs: -1}}); len(errs) != 1 || errs[0].Path.String() != "reserved_enis" || src.reads != 4 {
		t.Errorf("invalid input: %v after %d reads", errs, src.reads)
	}
	_, errs, _ = ReadPodCapacity(ctx, &source{err: errors.New("throttled")}, "ap-southeast-1", PodCapacityQuery{InstanceType: "m5.large"})
	if len(errs) != 1 || errs[0].Summary != "Cannot read EC2 instance types" || errs[0].Error() != "throttled" {
		t.Errorf("catalog error: %v", errs)
	}
}
