package launchplan

import (
	"reflect"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Karpenter's instance provider filters a launch's types before it truncates them
// (aws/karpenter-provider-aws pkg/providers/instance/instance.go filterInstanceTypes, filters
// in pkg/providers/instance/filter); these translate its filter tests' decisions.

// "should filter out exotic instance types" (filter_test.go, ExoticInstanceTypeFilter): GPU and
// metal types stay eligible but leave the launch while a generic type remains.
func TestKarpenterExoticInstanceTypeFilter(t *testing.T) {
	gpu := koType("g5.xlarge", 4, 16384, "x86_64")
	gpu.GPUs = []catalog.Device{{Name: "A10G", Manufacturer: "NVIDIA", Count: 1}}
	metal := koType("m5.metal", 96, 393216, "x86_64")
	metal.BareMetal = true
	types := []catalog.InstanceType{m5Large(), gpu, metal, koType("m5.8xlarge", 32, 131072, "x86_64")}
	prices := koPrices(map[string]float64{"m5.large": 0.096, "g5.xlarge": 1.006, "m5.metal": 1.2, "m5.8xlarge": 1.536}, nil)
	plan := mustBuild(t, koInput(types, prices, koCapacity("on-demand")))
	if got := typeNames(plan); !reflect.DeepEqual(got, []string{"m5.large", "g5.xlarge", "m5.metal", "m5.8xlarge"}) {
		t.Errorf("eligible types %v, want every type in price order", got)
	}
	if got := koLaunched(plan); !reflect.DeepEqual(got, map[string]bool{"m5.large": true, "m5.8xlarge": true}) {
		t.Errorf("launched %v, want the generic types only", got)
	}
	// "should not filter exotic types when minValues is set": every type launches.
	plan = mustBuild(t, koInput(types, prices, koCapacity("on-demand"), koMin(req(requirements.LabelInstanceType, requirements.OpExists), 2)))
	if got := koLaunched(plan); len(got) != 4 {
		t.Errorf("with min_values, launched %v, want all four", got)
	}
	// Exotic is what Karpenter's capacity counts: a fractional GPU (EC2 reports count 0, g6f) is
	// none, a Neuron device is one, an inference accelerator entry alone is none, a bare-metal
	// type whose size does not say metal is generic.
	fractional := koType("g6f.xlarge", 4, 16384, "x86_64")
	fractional.GPUs = []catalog.Device{{Name: "L4", Manufacturer: "NVIDIA", Count: 0, MemoryMiB: 2861}}
	neuron := koType("inf1.xlarge", 4, 8192, "x86_64")
	neuron.NeuronDevices = []catalog.Device{{Name: "Inferentia", Manufacturer: "AWS", Count: 1, Cores: 4}}
	accelerator := koType("inf0.xlarge", 4, 8192, "x86_64")
	accelerator.InferenceAccelerators = []catalog.Device{{Name: "Inferentia", Manufacturer: "AWS", Count: 1}}
	bigMetal := koType("u-6tb1.112xlarge", 448, 6291456, "x86_64")
	bigMetal.BareMetal = true
	kinds := []catalog.InstanceType{m5Large(), fractional, neuron, accelerator, bigMetal}
	kindPrices := koPrices(map[string]float64{"m5.large": 0.096, "g6f.xlarge": 0.4, "inf1.xlarge": 0.228, "inf0.xlarge": 0.2, "u-6tb1.112xlarge": 40}, nil)
	plan = mustBuild(t, koInput(kinds, kindPrices, koCapacity("on-demand")))
	if got := koLaunched(plan); !reflect.DeepEqual(got, map[string]bool{"m5.large": true, "g6f.xlarge": true, "inf0.xlarge": true, "u-6tb1.112xlarge": true}) {
		t.Errorf("launched %v, want all but inf1.xlarge", got)
	}
	// "should fall back to exotic types when no generic type remains".
	plan = mustBuild(t, koInput(types, prices, koCapacity("on-demand"), onlyTypes("g5.xlarge", "m5.metal")))
	if got := koLaunched(plan); len(got) != 2 {
		t.Errorf("exotic only: launched %v, want both", got)
	}
}

// SpotOfferingFilter: with spot and on-demand allowed, spot offerings above the cheapest
// on-demand offering are left out, which reorders the types.
func TestKarpenterSpotOfferingFilter(t *testing.T) {
	types := []catalog.InstanceType{koType("a2.large", 2, 4096, "arm64"), koType("b1.xlarge", 4, 8192, "x86_64"), koType("c1.xlarge", 4, 8192, "x86_64")}
	prices := koPrices(map[string]float64{"a2.large": 0.10, "b1.xlarge": 0.30, "c1.xlarge": 0.15},
		map[string]map[string]float64{"a2.large": koEverywhere(0.09), "b1.xlarge": koEverywhere(0.12), "c1.xlarge": koEverywhere(0.14)})
	plan := mustBuild(t, koInput(types, prices, koCapacity("spot", "on-demand")))
	want := []string{"a2.large 0.09 spot us-west-2a", "c1.xlarge 0.15 on-demand", "b1.xlarge 0.3 on-demand"}
	if got := koKeys(plan); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v (b1 and c1 spot above a2's on-demand 0.10)", got, want)
	}
	for _, o := range plan.LaunchPlan {
		if o.CapacityType == "spot" && o.InstanceType != "a2.large" {
			t.Errorf("spot override %+v above the cheapest on-demand price survived", o)
		}
	}
	// Spot only: the filter does not apply, b1's spot price orders it second.
	plan = mustBuild(t, koInput(types, prices, koCapacity("spot")))
	if got := typeNames(plan); !reflect.DeepEqual(got, []string{"a2.large", "b1.xlarge", "c1.xlarge"}) {
		t.Errorf("spot only: %v", got)
	}
}

// "should schedule even when minValues requirement is not met" (provisioning suite_test.go,
// BestEffort): a shortfall among all eligible types is a warning, not an error.
func TestKarpenterMinValuesBestEffortBeforeTruncation(t *testing.T) {
	types := []catalog.InstanceType{m5Large(), m5XLarge()}
	in := koInput(types, fixturePrices(), koMin(onlyTypes("m5.large", "m5.xlarge", "m5.2xlarge"), 3))
	if _, errs := Build(in); !hasProblem(errs, "template.requirements[0].min_values", "offer only 2") {
		t.Fatalf("Strict: errors %v", errs)
	}
	in.MinValuesBestEffort = true
	plan := mustBuild(t, in)
	if !hasProblem(plan.Warnings, "template.requirements[0].min_values", "offer only 2", "BestEffort") || len(plan.InstanceTypes) != 2 {
		t.Errorf("BestEffort: warnings %v, types %v", plan.Warnings, typeNames(plan))
	}
	// The zone variant: c7g.large is offered in two of three zones.
	in = koInput([]catalog.InstanceType{c7gLarge()}, fixturePrices(), koMin(koZones(requirements.OpIn, zoneA, zoneB, zoneC), 3))
	in.MinValuesBestEffort = true
	if plan := mustBuild(t, in); !hasSummary(plan.Warnings, SummaryMinValuesAtRisk) {
		t.Errorf("zone BestEffort: warnings %v", plan.Warnings)
	}
}
