package kubeletconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// AMI families of EC2NodeClass spec.amiFamily in Karpenter v1.15.2. (Ubuntu still has a
// constant upstream, but the CRD rejects it.)
const (
	FamilyAL2          = "AL2"
	FamilyAL2023       = "AL2023"
	FamilyBottlerocket = "Bottlerocket"
	FamilyWindows2019  = "Windows2019"
	FamilyWindows2022  = "Windows2022"
	FamilyWindows2025  = "Windows2025"
	FamilyCustom       = "Custom"
)

// Families lists the AMI families above.
var Families = []string{FamilyAL2, FamilyAL2023, FamilyBottlerocket, FamilyWindows2019, FamilyWindows2022, FamilyWindows2025, FamilyCustom}

// familyFlags are the amifamily FeatureFlags that bear on spec.kubelet.
type familyFlags struct {
	// podsPerCore: the family renders kubelet podsPerCore (PodsPerCoreEnabled).
	podsPerCore bool
	// eniLimitedPods: without maxPods, pods default to the ENI limit rather than 110
	// (SupportsENILimitedPodDensity).
	eniLimitedPods bool
	// arbitraryKubelet: the whole config reaches the node, not only the managed fields
	// (SupportsArbitraryKubeletConfig).
	arbitraryKubelet bool
}

// flagsFor returns a family's flags. Like amifamily.GetAMIFamily, a name it doesn't know gets
// AL2's. AL2 and Custom use the default flags; AL2023 adds arbitrary kubelet config.
func flagsFor(family string) familyFlags {
	switch family {
	case FamilyAL2023:
		return familyFlags{podsPerCore: true, eniLimitedPods: true, arbitraryKubelet: true}
	case FamilyBottlerocket:
		return familyFlags{podsPerCore: false, eniLimitedPods: true}
	case FamilyWindows2019, FamilyWindows2022, FamilyWindows2025:
		return familyFlags{podsPerCore: true, eniLimitedPods: false}
	}
	return familyFlags{podsPerCore: true, eniLimitedPods: true}
}

// managed holds the fields Karpenter itself reads from spec.kubelet and maps to bootstrap on
// every family (ParsedKubeletConfig upstream). Its JSON tags define ManagedFields.
type managed struct {
	ClusterDNS                  []string                   `json:"clusterDNS,omitempty"`
	MaxPods                     *intstr.IntOrString        `json:"maxPods,omitempty"`
	PodsPerCore                 *int32                     `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string          `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string          `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string          `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string          `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]metav1.Duration `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32                     `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32                     `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32                     `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool                      `json:"cpuCFSQuota,omitempty"`
}

// ManagedFields are the spec.kubelet keys every AMI family applies, sorted.
var ManagedFields = func() []string {
	t := reflect.TypeFor[managed]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}()

// parseManaged reads the managed fields the way Karpenter's ParseKubeletConfig does (plain
// encoding/json, so key matching ignores case). An empty config parses to the zero value.
func parseManaged(config map[string]any) (*managed, error) {
	parsed := &managed{}
	if len(config) == 0 {
		return parsed, nil
	}
	data, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, parsed); err != nil {
		return nil, err
	}
	return parsed, nil
}

// UnmanagedFields returns the keys of config outside ManagedFields, sorted: the ones only a
// family that renders the raw config (AL2023) applies.
func UnmanagedFields(config map[string]any) []string {
	var out []string
	for _, key := range slices.Sorted(maps.Keys(config)) {
		if !slices.Contains(ManagedFields, key) {
			out = append(out, key)
		}
	}
	return out
}

// FamilyProblems reports what the family would silently drop from spec.kubelet, as Karpenter's
// validateKubeletFieldsSupported does: on any family but AL2023, every field outside
// ManagedFields; podsPerCore where the family has no setting for it (Bottlerocket); and all but
// the first clusterDNS entry. Custom is exempt, as is AL2023, which renders the config whole.
// An unknown family is treated as AL2, as Karpenter does. Fields are reported sorted.
func FamilyProblems(family string, config map[string]any) []Problem {
	if len(config) == 0 || family == FamilyCustom {
		return nil
	}
	flags := flagsFor(family)
	if flags.arbitraryKubelet {
		return nil
	}
	parsed, err := parseManaged(config)
	if err != nil {
		parsed = nil // Validate reports it; only the field names are checked then
	}
	dropped := UnmanagedFields(config)
	if parsed != nil && parsed.PodsPerCore != nil && !flags.podsPerCore {
		dropped = append(dropped, "podsPerCore")
		slices.Sort(dropped)
	}
	var problems []Problem
	for _, field := range dropped {
		msg := fmt.Sprintf("isn't applied by the %s AMI family and would be silently dropped (only AL2023 renders fields Karpenter doesn't map)", family)
		if field == "podsPerCore" {
			msg = fmt.Sprintf("the %s AMI family has no setting for podsPerCore, so it would be silently dropped", family)
		}
		problems = append(problems, Problem{Field: []string{field}, Message: msg})
	}
	if parsed != nil && len(parsed.ClusterDNS) > 1 {
		problems = append(problems, Problem{
			Field:   []string{"clusterDNS"},
			Message: fmt.Sprintf("the %s AMI family accepts only one entry, but %d were set", family, len(parsed.ClusterDNS)),
		})
	}
	return problems
}
