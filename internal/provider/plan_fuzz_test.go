package provider

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// The fuzz targets of this file plan a configuration decoded from JSON (the Go field names of
// the resource's Config) through internal/planner, behind the ports the resources build on the
// AWS adapter over the random run's world (internal/awsfake's EC2 and IAM, an SSM fake): no
// panic, every error finding on an attribute path that the Config's tfsdk names resolve, and no
// call that is not a read reached the fakes.

// maxFuzzInput bounds an input: longer ones only slow the fuzzer down.
const maxFuzzInput = 16 << 10

// admitFuzzed is Karpenter's admission of the default version.
func admitFuzzed(kind, doc string) ([]attrpath.Finding, error) {
	violations, runtime, err := manifest.AdmitAll(manifest.DefaultVersion, doc)
	return manifest.Findings(manifest.DefaultVersion, kind, violations, runtime), err
}

// noWrites fails when a fake received a call that is not a read.
func noWrites(t *testing.T, fakes ...awsfake.Recorder) {
	t.Helper()
	for _, f := range fakes {
		for _, c := range f.Log() {
			if !readOnly(c.Op) {
				t.Fatalf("a plan called %s", c.Op)
			}
		}
	}
}

// onTheSchema fails on an error finding whose path is empty (unless its summary is one of
// resourceLevel) or names no attribute of cfg's type by its tfsdk names.
func onTheSchema(t *testing.T, errs []attrpath.Finding, cfg reflect.Type, resourceLevel ...string) {
	t.Helper()
	for _, e := range errs {
		if len(e.Path.Steps()) == 0 {
			if !strings.Contains(strings.Join(resourceLevel, "\n"), e.Summary) || e.Summary == "" {
				t.Fatalf("an error finding without a path: %s: %s", e.Summary, e.Message)
			}
			continue
		}
		if !resolves(cfg, e.Path.Steps()) {
			t.Fatalf("the path %s of %q names no attribute of %s", e.Path, e.Message, cfg)
		}
	}
}

// resolves tells whether steps walk typ by its tfsdk names: attributes into structs (embedded
// ones included), indexes into slices, keys into maps; anything goes below an interface (a
// dynamic attribute such as kubelet.config).
func resolves(typ reflect.Type, steps []attrpath.Step) bool {
	for len(steps) > 0 {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		s := steps[0]
		switch {
		case typ.Kind() == reflect.Interface:
			return true
		case s.Kind == attrpath.Attr && typ.Kind() == reflect.Struct:
			f, ok := fieldByTag(typ, s.Name)
			if !ok {
				return false
			}
			typ = f
		case s.Kind == attrpath.Index && typ.Kind() == reflect.Slice, s.Kind == attrpath.Key && typ.Kind() == reflect.Map:
			typ = typ.Elem()
		default:
			return false
		}
		steps = steps[1:]
	}
	return true
}

func fieldByTag(typ reflect.Type, name string) (reflect.Type, bool) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Tag.Get("tfsdk") == name {
			return f.Type, true
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if t, ok := fieldByTag(f.Type, name); ok {
				return t, true
			}
		}
	}
	return nil, false
}

// decodeFuzzed decodes an input into dst; false for an input not worth planning.
func decodeFuzzed(data []byte, dst any) bool {
	return len(data) <= maxFuzzInput && json.Unmarshal(data, dst) == nil
}

func seedJSON(f *testing.F, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

// fuzzClient is the AWS adapter on a fresh world.
func fuzzClient(t *testing.T) (*world, *awsclient.Client) {
	w := newWorld()
	c, err := w.client(context.Background(), awsclient.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return w, c
}

func FuzzPlanClass(f *testing.F) {
	seedJSON(f, nodeclass.Config{Name: "default", Role: worldRole, AMISelectorTerms: []nodeclass.AMITerm{{Alias: "al2023@latest"}}})
	seedJSON(f, nodeclass.Config{Name: "custom", InstanceProfile: "existing-profile", AMIFamily: "AL2023",
		AMISelectorTerms: []nodeclass.AMITerm{{ID: "ami-0custom000000000001"}}, SubnetSelectorTerms: nil})
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg nodeclass.Config
		if !decodeFuzzed(data, &cfg) {
			return
		}
		onTheSchema(t, planner.ValidateClass(cfg), reflect.TypeFor[nodeclass.Config]())
		w, client := fuzzClient(t)
		ips := awsclient.InstanceProfiles{IAM: client.IAM, Versions: client.PolicyVersions()}.ReadOnce()
		ports := planner.ClassPorts{EC2: client.Discovery(), Profiles: ips, RolePolicies: ips.RolePolicies, Admit: admitFuzzed, PoolListing: client}
		facts := planner.ClassFacts{ClusterName: worldCluster, Region: worldRegion, KubernetesVersion: "1.33",
			KarpenterVersion: manifest.DefaultVersion, Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
		res := planner.Class(context.Background(), ports, facts, planner.ClassInput{Config: cfg})
		onTheSchema(t, res.Errors, reflect.TypeFor[nodeclass.Config]())
		noWrites(t, w.ec2, w.iam)
	})
}

// fuzzPoolClass is the node class the fuzzed pools plan on, as a planned class's `resolved` reads.
func fuzzPoolClass() launchplan.Class {
	return launchplan.Class{Name: "default", AMIFamily: capacity.FamilyAL2023, Hash: "123", InstanceProfile: "existing-profile",
		AMIs:             []nodeclass.AMI{{ID: "ami-0a1202300000x8664", Architecture: "amd64"}, {ID: "ami-0a1202300000arm64", Architecture: "arm64"}},
		Subnets:          []launchplan.Subnet{{ID: "subnet-0a000000000000001", Zone: worldZones[0], AvailableIPs: 200}, {ID: "subnet-0b000000000000001", Zone: worldZones[1], AvailableIPs: 200}},
		SecurityGroupIDs: []string{"sg-0node0000000000001"}, Tags: map[string]string{"team": "platform"},
		CNI: capacity.Settings{AMIFamily: capacity.FamilyAL2023},
		MetadataOptions: launchplan.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPTokens: "required",
			HTTPPutResponseHopLimit: 1}}
}

func FuzzPlanPool(f *testing.F) {
	general := nodepool.Config{Name: "general", Template: &nodepool.Template{Requirements: []requirements.Requirement{
		{Key: requirements.LabelCapacityType, Operator: requirements.OpIn, Values: []string{"on-demand"}}}}}
	seedJSON(f, general)
	two := 2
	general.Replicas = &two
	seedJSON(f, general)
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg nodepool.Config
		if !decodeFuzzed(data, &cfg) {
			return
		}
		onTheSchema(t, planner.ValidatePool(cfg), reflect.TypeFor[nodepool.Config]())
		w, c := fuzzClient(t)
		ports := planner.PoolPorts{Catalog: c.Catalog, Prices: c.Prices, Admit: admitFuzzed,
			EC2: planner.PoolEC2{Listing: c, Templates: c.LaunchTemplates(), Instances: c.Instances()}, SubnetBlocks: c.SubnetBlocks().Read}
		facts := planner.PoolFacts{ClusterName: worldCluster, Region: worldRegion, KarpenterVersion: manifest.DefaultVersion,
			Bootstrap: launchplan.Bootstrap{Endpoint: testClusterEndpoint, CABundle: testClusterCA, ServiceCIDR: testServiceCIDR},
			Now:       time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
		res := planner.Pool(context.Background(), ports, facts, planner.PoolInput{Config: cfg, Class: fuzzPoolClass(), ClassName: "default"})
		onTheSchema(t, res.Errors, reflect.TypeFor[nodepool.Config]())
		noWrites(t, w.ec2, w.iam)
	})
}

func FuzzPlanOverlay(f *testing.F) {
	price := "-10%"
	seedJSON(f, nodeoverlay.Config{Name: "spot", PriceAdjustment: &price,
		Requirements: []nodeoverlay.Requirement{{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"spot"}}}})
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg nodeoverlay.Config
		if !decodeFuzzed(data, &cfg) {
			return
		}
		onTheSchema(t, planner.ValidateOverlay(cfg), reflect.TypeFor[nodeoverlay.Config]())
		w, c := fuzzClient(t)
		res := planner.Overlay(context.Background(), planner.OverlayPorts{Admit: admitFuzzed, Catalog: c.Catalog},
			planner.OverlayInput{Config: cfg, FeatureGates: []string{"NodeOverlay"}})
		onTheSchema(t, res.Errors, reflect.TypeFor[nodeoverlay.Config]())
		noWrites(t, w.ec2, w.iam)
	})
}
