// Package catalog is the provider's model of a region's EC2 instance types: what
// DescribeInstanceTypes and DescribeInstanceTypeOfferings say about each type, the
// well-known labels Karpenter derives from it, and the bridge to the pod-capacity engine.
//
// It is pure: the AWS adapter (internal/awsclient) fills it, the Terraform shell reads it.
// A Catalog is immutable once built and safe for concurrent use.
package catalog

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Architectures reported by EC2 that Karpenter launches.
const (
	ArchX86_64 = "x86_64"
	ArchARM64  = "arm64"
)

// Usage classes (capacity types) Karpenter offers.
const (
	UsageOnDemand = "on-demand"
	UsageSpot     = "spot"
)

// Device is a GPU, an inference accelerator or a Neuron device group of an instance type.
type Device struct {
	Name         string
	Manufacturer string
	Count        int
	MemoryMiB    int // per device; 0 when not reported
	Cores        int // Neuron cores per device; 0 for GPUs and inference accelerators
}

// NetworkCard is one entry of NetworkInfo.NetworkCards.
type NetworkCard struct {
	Index                 int
	MaxENIs               int
	Performance           string // e.g. "Up to 10 Gigabit"
	BaselineBandwidthMbps int    // 0 when not reported
	PeakBandwidthMbps     int    // 0 when not reported
}

// InstanceType is one EC2 instance type as the provider needs it.
type InstanceType struct {
	Name string

	VCPUs                 int
	MemoryMiB             int
	Architectures         []string // EC2 values: x86_64, arm64, i386, arm64_mac, ...
	CPUManufacturer       string   // EC2 value: Intel, AMD, AWS, ...
	SustainedClockGHz     float64  // 0 when not reported
	Hypervisor            string   // "nitro", "xen", or "" (bare metal)
	BareMetal             bool
	SupportsHVM           bool
	CurrentGeneration     bool
	UsageClasses          []string // on-demand, spot, capacity-block, ...
	EBSOptimizedByDefault bool
	EBSBandwidthMbps      int // EbsOptimizedInfo.MaximumBandwidthInMbps; 0 when unknown
	// ProcessorFeatures are ProcessorInfo.SupportedFeatures, EC2's values: "nested-virtualization",
	// "amd-sev-snp", ...; nil when EC2 reports none.
	ProcessorFeatures []string
	// NitroEnclavesSupport is EC2's value: "supported", "unsupported", or "" when not reported.
	NitroEnclavesSupport string
	// PlacementGroupStrategies are PlacementGroupInfo.SupportedStrategies, EC2's values: "cluster",
	// "partition", "spread"; nil when EC2 reports none.
	PlacementGroupStrategies []string

	// Networking.
	MaxENIs             int           // NetworkInfo.MaximumNetworkInterfaces, all cards together
	NetworkCards        []NetworkCard // sorted by Index; empty when EC2 does not report them
	DefaultCardIndex    int
	IPv4PerENI          int
	IPv6PerENI          int
	IPv6Supported       bool
	EFASupported        bool
	MaxEFAInterfaces    int
	EncryptionInTransit bool
	ENASupport          string // "required", "supported" or "unsupported"
	NetworkPerformance  string // NetworkInfo.NetworkPerformance, e.g. "Up to 12.5 Gigabit"

	// Accelerators.
	GPUs                  []Device
	InferenceAccelerators []Device
	NeuronDevices         []Device

	// LocalNVMeGB is the instance-store size when it is NVMe; 0 otherwise.
	LocalNVMeGB int

	// Zones are the availability zones that offer the type, sorted.
	Zones []string
}

// EC2's values of the compatibility features a node class can require.
const (
	HypervisorNitro             = "nitro"
	FeatureNestedVirtualization = "nested-virtualization"
	NitroEnclavesSupported      = "supported"
	PlacementStrategyCluster    = "cluster"
	PlacementStrategyPartition  = "partition"
	PlacementStrategySpread     = "spread"
)

// NestedVirtualization reports whether the type supports nested virtualization (a class's
// cpuOptions.nestedVirtualization "enabled").
func (it *InstanceType) NestedVirtualization() bool {
	return slices.Contains(it.ProcessorFeatures, FeatureNestedVirtualization)
}

// NitroEnclaves reports whether the type supports Nitro Enclaves (a class's enclaveOptions).
func (it *InstanceType) NitroEnclaves() bool {
	return it.NitroEnclavesSupport == NitroEnclavesSupported
}

// SupportsPlacementStrategy reports whether the type can launch into a placement group of
// strategy ("cluster", "partition" or "spread").
func (it *InstanceType) SupportsPlacementStrategy(strategy string) bool {
	return slices.Contains(it.PlacementGroupStrategies, strategy)
}

// Family is the part of the name before the first '.', e.g. "m5" for m5.large.
func (it *InstanceType) Family() string {
	f, _, _ := strings.Cut(it.Name, ".")
	return f
}

// KubeArch is the kubernetes.io/arch value: amd64 for x86_64, arm64 for arm64, "" when the
// type supports neither (for example the Mac types).
func (it *InstanceType) KubeArch() string {
	for _, a := range it.Architectures {
		switch a {
		case ArchX86_64:
			return "amd64"
		case ArchARM64:
			return "arm64"
		}
	}
	return ""
}

// KarpenterEligible reports whether Karpenter considers the type at all: it asks EC2 only for
// HVM types with an x86_64 or arm64 processor.
func (it *InstanceType) KarpenterEligible() bool {
	return it.SupportsHVM && it.KubeArch() != ""
}

// OfferedIn reports whether the type is offered in zone.
func (it *InstanceType) OfferedIn(zone string) bool {
	_, found := slices.BinarySearch(it.Zones, zone)
	return found
}

// Catalog holds a region's instance types sorted by name.
type Catalog struct {
	types  []*InstanceType
	byName map[string]*InstanceType
	zones  []string
	// labels[i] is Labels(types[i]), computed once by New: Select reads it instead of
	// deriving every type's labels on every call (most of the cost of planning a pool).
	labels []map[string]string
	// variants caches, per (OS, Windows build, region) of a Select, labels with those values
	// applied, so that repeated Selects allocate no label map per type (see baseLabels).
	variantsMu sync.Mutex
	variants   map[labelVariant][]map[string]string
	// selects keeps recent Select answers by their requirements and options (see Select).
	selectsMu sync.Mutex
	selects   map[string]selectAnswer
}

// New builds a catalog. Types are sorted by name; a repeated name keeps the last entry.
// Each type's Zones are sorted and deduplicated. New takes ownership of types.
func New(types []InstanceType) *Catalog {
	c := &Catalog{byName: make(map[string]*InstanceType, len(types))}
	for i := range types {
		it := &types[i]
		slices.Sort(it.Zones)
		it.Zones = slices.Compact(it.Zones)
		c.byName[it.Name] = it
	}
	c.types = make([]*InstanceType, 0, len(c.byName))
	zoneSet := map[string]struct{}{}
	for _, it := range c.byName {
		c.types = append(c.types, it)
		for _, z := range it.Zones {
			zoneSet[z] = struct{}{}
		}
	}
	sort.Slice(c.types, func(i, j int) bool { return c.types[i].Name < c.types[j].Name })
	c.labels = make([]map[string]string, len(c.types))
	for i, it := range c.types {
		c.labels[i] = Labels(it)
	}
	for z := range zoneSet {
		c.zones = append(c.zones, z)
	}
	slices.Sort(c.zones)
	return c
}

// Len is the number of instance types.
func (c *Catalog) Len() int { return len(c.types) }

// Types returns every instance type sorted by name. The slice is fresh; the types are shared
// and must not be modified.
func (c *Catalog) Types() []*InstanceType { return slices.Clone(c.types) }

// Get looks an instance type up by exact name.
func (c *Catalog) Get(name string) (*InstanceType, bool) {
	it, ok := c.byName[name]
	return it, ok
}

// Zones returns the availability zones that offer at least one type, sorted.
func (c *Catalog) Zones() []string { return slices.Clone(c.zones) }

// HasZone reports whether some type is offered in zone.
func (c *Catalog) HasZone(zone string) bool {
	_, found := slices.BinarySearch(c.zones, zone)
	return found
}

// Suggest returns up to n names close to name, best first: a case-insensitive exact match
// alone; otherwise the sizes of the same family, then other names within a small edit
// distance, each group nearest first. It returns nil when nothing is plausible.
func (c *Catalog) Suggest(name string, n int) []string {
	lname := strings.ToLower(strings.TrimSpace(name))
	if n <= 0 || lname == "" || len(lname) > 64 {
		return nil
	}
	family, _, _ := strings.Cut(lname, ".")
	limit := 2
	if len(lname) >= 12 {
		limit = 3
	}
	type cand struct {
		name  string
		score int
	}
	var near []cand
	for _, it := range c.types {
		if strings.ToLower(it.Name) == lname {
			return []string{it.Name}
		}
		d := requirements.EditDistance(lname, it.Name)
		switch {
		case it.Family() == family:
			near = append(near, cand{it.Name, d})
		case d <= limit:
			near = append(near, cand{it.Name, 1000 + d})
		}
	}
	sort.SliceStable(near, func(i, j int) bool { return near[i].score < near[j].score })
	var out []string
	for _, cd := range near[:min(n, len(near))] {
		out = append(out, cd.name)
	}
	return out
}
