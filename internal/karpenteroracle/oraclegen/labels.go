package oraclegen

import (
	_ "embed" // the region catalog
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient/ec2catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// offeringLabelKeys are the keys whose values are the offering's or the node class's (zone,
// capacity type, reservation, tenancy, region, OS, Windows build), not the instance type's: the
// label comparison leaves them out.
var offeringLabelKeys = map[string]bool{
	requirements.LabelZone: true, requirements.LabelZoneID: true, requirements.LabelRegion: true,
	requirements.LabelCapacityType: true, requirements.LabelInstanceTenancy: true, requirements.LabelOS: true,
	requirements.LabelWindowsBuild: true, "karpenter.k8s.aws/capacity-reservation-id": true,
	"karpenter.k8s.aws/capacity-reservation-type": true, "karpenter.k8s.aws/capacity-reservation-interruptible": true,
}

// CompareLabels compares, for each raw DescribeInstanceTypes entry, the instance-type labels the
// provider derives (its catalog conversion, then the labels a Select at Karpenter minor gives
// the type) with Karpenter's: karpenter returns the labels its instance type's requirements give
// the type (a key it requires not to exist is absent). Every per-type key either side sets is compared, value by value; the test
// fails under floor compared labels, or on a key a side sets and the other does not.
func CompareLabels(t *testing.T, minor string, infos []ec2types.InstanceTypeInfo, karpenter func(ec2types.InstanceTypeInfo) map[string]string, floor int) {
	t.Helper()
	compared, disagreements := 0, 0
	keys := map[string]bool{}
	for _, info := range infos {
		res, err := catalog.New([]catalog.InstanceType{ec2catalog.InstanceType(&info)}).Select(nil,
			catalog.SelectOptions{Region: "us-west-2", KarpenterVersion: minor, IncludeIneligible: true})
		if err != nil || len(res.Types) != 1 {
			t.Fatalf("%s: the provider's catalog selects %d types: %v", info.InstanceType, len(res.Types), err)
		}
		got, want := res.Types[0].Labels, karpenter(info)
		for _, k := range slices.Sorted(maps.Keys(union(got, want))) {
			if offeringLabelKeys[k] {
				continue
			}
			compared++
			keys[k] = true
			g, gok := got[k]
			w, wok := want[k]
			if g == w && gok == wok {
				continue
			}
			if disagreements++; disagreements <= maxReported*4 {
				t.Errorf("Karpenter %s, %s, %s: provider %s, Karpenter %s", minor, info.InstanceType, k, shown(g, gok), shown(w, wok))
			}
		}
	}
	t.Logf("Karpenter %s: %d instance types, %d labels compared over %d keys, %d disagreements", minor, len(infos), compared, len(keys), disagreements)
	if compared < floor {
		t.Fatalf("only %d labels compared, want at least %d", compared, floor)
	}
}

func union(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func shown(v string, ok bool) string {
	if !ok {
		return "(none)"
	}
	return "\"" + strings.ReplaceAll(v, "\"", "\\\"") + "\""
}

// regionCatalog is a whole region's DescribeInstanceTypes answer (cmd/gen-oracle-catalog): a
// line of its source, then a line per type.
//
//go:embed testdata/zz_generated_describe_instance_types.json
var regionCatalog string

// RegionCatalog is every instance type of a region as EC2 describes it: 1,394 types of every
// family, Graviton and Mac, metal, GPUs of every maker, Inferentia, Trainium and FPGAs (the
// source is in the file, see cmd/gen-oracle-catalog).
func RegionCatalog(t *testing.T) []ec2types.InstanceTypeInfo {
	t.Helper()
	infos, err := regionInfos()
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

// regionInfos parses regionCatalog once for the test binary (the label and launch comparisons
// both read it).
var regionInfos = sync.OnceValues(func() ([]ec2types.InstanceTypeInfo, error) {
	lines := strings.Split(strings.TrimSpace(regionCatalog), "\n")
	var out []ec2types.InstanceTypeInfo
	for _, l := range lines[1:] {
		var info ec2types.InstanceTypeInfo
		if err := json.Unmarshal([]byte(l), &info); err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	if len(out) < 1000 {
		return nil, fmt.Errorf("the region catalog (%s) has %d types", lines[0], len(out))
	}
	return out, nil
})
