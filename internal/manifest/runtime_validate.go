package manifest

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Runtime validation: what Karpenter's nodepool.validation controller checks on a NodePool that
// the API server has already admitted (sigs.k8s.io/karpenter pkg/apis/v1 NodePool.RuntimeValidate,
// with the label sets the AWS provider registers in its pkg/apis/v1/labels.go init). A NodePool
// that fails it is created, but its ValidationSucceeded condition turns False and Karpenter
// launches no node for it.
//
// Ported from sigs.k8s.io/karpenter v1.14.3 (the same code from v1.9.1 to v1.14.3) and
// aws/karpenter-provider-aws v1.9.3 to v1.15.2. The rules are the same in every one of those
// versions except the AWS provider's set of well-known labels, which grew (wellKnownSince).
// These checks overlap the CRD's in places (an invalid taint key fails both); Admit reports the
// CRD's, RuntimeValidate Karpenter's.

// newestKarpenterMinor is the newest Karpenter minor version whose rules are ported here.
const newestKarpenterMinor = 15

// wellKnownSince maps each label Karpenter (core and AWS provider) registers as well known to the
// first Karpenter minor version that knows it; 0 means every version ported (v1.9 onwards). A
// well-known label is allowed in requirements and labels although its domain is restricted.
var wellKnownSince = map[string]int{
	// sigs.k8s.io/karpenter pkg/apis/v1/labels.go WellKnownLabels.
	requirements.LabelNodePool:     0,
	requirements.LabelZone:         0,
	requirements.LabelRegion:       0,
	requirements.LabelInstanceType: 0,
	requirements.LabelArch:         0,
	requirements.LabelOS:           0,
	requirements.LabelCapacityType: 0,
	requirements.LabelWindowsBuild: 0,
	// aws/karpenter-provider-aws pkg/apis/v1/labels.go init.
	requirements.LabelCapacityReservationID:             0,
	requirements.LabelCapacityReservationType:           0,
	requirements.LabelCapacityReservationInterruptible:  10,
	requirements.LabelInstanceHypervisor:                0,
	requirements.LabelInstanceEncryptionInTransit:       0,
	requirements.LabelInstanceCategory:                  0,
	requirements.LabelInstanceCapabilityFlex:            0,
	requirements.LabelInstanceFamily:                    0,
	requirements.LabelInstanceGeneration:                0,
	requirements.LabelInstanceSize:                      0,
	requirements.LabelInstanceLocalNVMe:                 0,
	requirements.LabelInstanceCPU:                       0,
	requirements.LabelInstanceCPUManufacturer:           0,
	requirements.LabelInstanceCPUSustainedClockSpeedMhz: 0,
	requirements.LabelInstanceMemory:                    0,
	requirements.LabelInstanceEBSBandwidth:              0,
	requirements.LabelInstanceNetworkBandwidth:          0,
	requirements.LabelInstanceGPUName:                   0,
	requirements.LabelInstanceGPUManufacturer:           0,
	requirements.LabelInstanceGPUCount:                  0,
	requirements.LabelInstanceGPUMemory:                 0,
	requirements.LabelInstanceAcceleratorName:           0,
	requirements.LabelInstanceAcceleratorManufacturer:   0,
	requirements.LabelInstanceAcceleratorCount:          0,
	requirements.LabelZoneID:                            0,
	requirements.LabelInstanceTenancy:                   0,
	requirements.LabelPlacementGroupID:                  11,
	requirements.LabelPlacementGroupPartition:           11,
}

// restrictedLabelDomains are the domains (and their subdomains) whose labels Karpenter keeps for
// itself: karpenter.sh (core) and karpenter.k8s.aws (AWS provider).
var restrictedLabelDomains = []string{"karpenter.k8s.aws", "karpenter.sh"}

// wellKnownValues are the values Karpenter knows for a well-known label; a requirement with In
// must name at least one of them.
var wellKnownValues = map[string][]string{
	requirements.LabelCapacityType:    {requirements.CapacityTypeOnDemand, requirements.CapacityTypeReserved, requirements.CapacityTypeSpot},
	requirements.LabelInstanceTenancy: {"dedicated", "default"},
}

// RuntimeValidate runs the checks Karpenter's controller applies to a NodePool beyond the CRD:
// template labels (qualified-name keys, label values, restricted domains and keys, the nodepool
// label), taints and startup taints (qualified-name keys and values, effects, duplicate
// key/effect pairs) and requirements (operators, restricted keys, qualified-name keys, label
// values, well-known values, In without values or with fewer values than minValues, numeric
// operators' single non-negative integer, the nodepool label). obj is the manifest as the API
// server stores it, after CRD defaulting. karpenterMinor is the Karpenter minor version the
// cluster runs (15 for v1.15.2): the AWS provider's well-known labels depend on it; 0 means the
// newest version ported, and versions before v1.9 are checked as v1.9.
//
// EC2NodeClass (and any other kind) returns nil: the AWS provider defines no RuntimeValidate for
// it in v1.9.3 to v1.15.2. (v1.15's nodeclass controller checks spec.kubelet with
// ValidateKubeletConfig; that is not ported here.)
func RuntimeValidate(kind string, obj map[string]any, karpenterMinor int) []Violation {
	if kind != NodePoolKind {
		return nil
	}
	if karpenterMinor <= 0 {
		karpenterMinor = newestKarpenterMinor
	}
	v := runtimeValidator{minor: karpenterMinor}
	nodePoolSpec, _ := obj["spec"].(map[string]any)
	template, _ := nodePoolSpec["template"].(map[string]any)
	meta, _ := template["metadata"].(map[string]any)
	spec, _ := template["spec"].(map[string]any)
	base := Path{{Name: "spec"}, {Name: "template"}}
	v.labels(subPath(base, Step{Name: "metadata"}, Step{Name: "labels"}), meta["labels"])
	specPath := subPath(base, Step{Name: "spec"})
	seen := map[[2]string]bool{}
	v.taints(subPath(specPath, Step{Name: "taints"}), spec["taints"], seen)
	v.taints(subPath(specPath, Step{Name: "startupTaints"}), spec["startupTaints"], seen)
	v.requirements(subPath(specPath, Step{Name: "requirements"}), spec["requirements"])
	return v.out
}

type runtimeValidator struct {
	minor int
	out   []Violation
}

func (v *runtimeValidator) add(p Path, format string, args ...any) {
	v.out = append(v.out, Violation{Field: p, Message: fmt.Sprintf(format, args...)})
}

// labels ports NodeClaimTemplate.validateLabels.
func (v *runtimeValidator) labels(p Path, raw any) {
	labels, _ := raw.(map[string]any)
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		kp := subPath(p, Step{Kind: KeyStep, Name: key})
		if key == requirements.LabelNodePool {
			v.add(kp, "invalid key name %q in labels, restricted: Karpenter sets it to the name of the NodePool that launched the node", key)
		}
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			v.add(kp, "invalid key name %s in labels: %s", quoteLong(key), strings.Join(errs, "; "))
		}
		if value, ok := labels[key].(string); ok {
			if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
				v.add(kp, "invalid value %s for label[%s]: %s", quoteLong(value), key, strings.Join(errs, "; "))
			}
		}
		if msg := v.restrictedLabelProblem(key); msg != "" {
			v.add(kp, "invalid key name %q in labels, restricted: %s", key, msg)
		}
	}
}

// taints ports validateTaintsField for one list; seen carries the key/effect pairs across taints
// and startupTaints, as Karpenter checks duplicates over both lists together.
func (v *runtimeValidator) taints(p Path, raw any, seen map[[2]string]bool) {
	list, _ := raw.([]any)
	for i, item := range list {
		taint, ok := item.(map[string]any)
		if !ok {
			continue
		}
		ip := subPath(p, Step{Kind: IndexStep, Index: i})
		key, _ := taint["key"].(string)
		value, _ := taint["value"].(string)
		effect, _ := taint["effect"].(string)
		if key == "" {
			v.add(subPath(ip, Step{Name: "key"}), "taint key must not be empty")
		} else if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			v.add(subPath(ip, Step{Name: "key"}), "taint key %s is not a qualified name: %s", quoteLong(key), strings.Join(errs, "; "))
		}
		if value != "" {
			if errs := validation.IsQualifiedName(value); len(errs) > 0 {
				v.add(subPath(ip, Step{Name: "value"}), "taint value %s is not a qualified name (Karpenter checks a taint's value like its key): %s", quoteLong(value), strings.Join(errs, "; "))
			}
		}
		switch effect {
		case "NoSchedule", "PreferNoSchedule", "NoExecute", "":
		default:
			v.add(subPath(ip, Step{Name: "effect"}), "taint effect %q is not one of NoSchedule, PreferNoSchedule, NoExecute", effect)
		}
		pair := [2]string{key, effect}
		if seen[pair] {
			v.add(ip, "duplicate taint Key/Effect pair %s=%s: a key may appear once per effect across taints and startupTaints", key, effect)
		}
		seen[pair] = true
	}
}

// requirements ports NodeClaimTemplateSpec.validateRequirements (ValidateRequirement on each) and
// NodeClaimTemplate.validateRequirementsNodePoolKeyDoesNotExist.
func (v *runtimeValidator) requirements(p Path, raw any) {
	list, _ := raw.([]any)
	for i, item := range list {
		r, ok := item.(map[string]any)
		if !ok {
			continue
		}
		ip := subPath(p, Step{Kind: IndexStep, Index: i})
		key, _ := r["key"].(string)
		op, _ := r["operator"].(string)
		rawValues, _ := r["values"].([]any)
		var values []string
		minValues, hasMin := intValue(r["minValues"])
		v.requirementKey(ip, key, op)
		for j, raw := range rawValues {
			value, ok := raw.(string)
			if !ok {
				continue // not a string: the CRD refuses it
			}
			values = append(values, value)
			if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
				v.add(subPath(ip, Step{Name: "values"}, Step{Kind: IndexStep, Index: j}),
					"invalid value %s for key %s: %s", quoteLong(value), key, strings.Join(errs, "; "))
			}
		}
		v.requirementValues(ip, key, op, values, minValues, hasMin)
		if key == requirements.LabelNodePool {
			v.add(subPath(ip, Step{Name: "key"}), "invalid key: %q in requirements, restricted: Karpenter sets it to the name of the NodePool that launched the node", key)
		}
	}
}

// requirementKey checks the operator and key of one requirement (ValidateRequirement's operator,
// IsRestrictedLabel and IsQualifiedName checks). Karpenter first maps deprecated keys through
// NormalizedLabels (beta.kubernetes.io/arch → kubernetes.io/arch, …); no key in that map or its
// image is restricted, ill-formed or has well-known values, so the mapping changes no verdict
// and the key is checked as written.
func (v *runtimeValidator) requirementKey(ip Path, key, op string) {
	if !requirements.Operator(op).Valid() {
		ops := make([]string, 0, 8)
		for _, o := range requirements.Operators() {
			ops = append(ops, string(o))
		}
		v.add(subPath(ip, Step{Name: "operator"}), "key %s has an unsupported operator %q, not in [%s]", key, op, strings.Join(ops, " "))
	}
	if msg := v.restrictedLabelProblem(key); msg != "" {
		v.add(subPath(ip, Step{Name: "key"}), "invalid key %q in requirements, restricted: %s", key, msg)
	}
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		v.add(subPath(ip, Step{Name: "key"}), "key %s is not a qualified name: %s", quoteLong(key), strings.Join(errs, "; "))
	}
}

// requirementValues checks the values of one requirement against its operator, minValues and the
// key's well-known values (ValidateRequirement and validateWellKnownValues).
func (v *runtimeValidator) requirementValues(ip Path, key, op string, values []string, minValues int, hasMin bool) {
	valuesPath := subPath(ip, Step{Name: "values"})
	if known, ok := wellKnownValues[key]; ok && v.wellKnown(key) && op == string(requirements.OpIn) {
		valid := 0
		for _, value := range values {
			if slices.Contains(known, value) {
				valid++
			}
		}
		switch {
		case valid == 0:
			v.add(valuesPath, "no valid values found in [%s] for %s, expected one of: [%s]", strings.Join(values, " "), key, strings.Join(known, " "))
		case hasMin && valid < minValues:
			v.add(valuesPath, "not enough valid values found in [%s] for %s, expected at least %d valid values (minValues) from: [%s], got: %d",
				strings.Join(values, " "), key, minValues, strings.Join(known, " "), valid)
		}
	}
	if op == string(requirements.OpIn) && len(values) == 0 {
		v.add(valuesPath, "key %s with operator %s must have a value defined", key, op)
	}
	if op == string(requirements.OpIn) && hasMin && len(values) < minValues {
		v.add(subPath(ip, Step{Name: "minValues"}), "key %s with operator %s must have at least minimum number of values defined in 'values' field: minValues is %d, values lists %d",
			key, op, minValues, len(values))
	}
	switch requirements.Operator(op) {
	case requirements.OpGt, requirements.OpLt, requirements.OpGte, requirements.OpLte:
		if len(values) != 1 {
			v.add(valuesPath, "key %s with operator %s must have a single non-negative integer value, got %d values", key, op, len(values))
		} else if n, err := strconv.Atoi(values[0]); err != nil || n < 0 {
			v.add(valuesPath, "key %s with operator %s must have a single non-negative integer value, got %q", key, op, values[0])
		}
	}
}

func (v *runtimeValidator) wellKnown(key string) bool {
	since, ok := wellKnownSince[key]
	return ok && v.minor >= since
}

// restrictedLabelProblem ports IsRestrictedLabel: a label that is not well known may not use a
// restricted domain or one of its subdomains, nor be kubernetes.io/hostname. It returns why the
// key is restricted, or "" when it is allowed.
func (v *runtimeValidator) restrictedLabelProblem(key string) string {
	if v.wellKnown(key) {
		return ""
	}
	domain, _, found := strings.Cut(key, "/")
	if !found {
		domain = ""
	}
	for _, d := range restrictedLabelDomains {
		if domain != d && !strings.HasSuffix(domain, "."+d) {
			continue
		}
		msg := fmt.Sprintf("its domain %s is reserved for Karpenter's well-known labels (another label there might interfere "+
			"with Karpenter's provisioning logic); use a well-known label or a custom label outside %s",
			d, strings.Join(restrictedLabelDomains, " and "))
		if since, ok := wellKnownSince[key]; ok {
			msg += fmt.Sprintf(" (%s is well known from Karpenter v1.%d on, not in v1.%d)", key, since, v.minor)
		} else if s := v.closestWellKnown(key); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return msg
	}
	if key == requirements.LabelHostname {
		return "Karpenter sets it to each node's own hostname"
	}
	return ""
}

// closestWellKnown returns the well-known label nearest to key by edit distance (at most 3), or
// "" when none is that close.
func (v *runtimeValidator) closestWellKnown(key string) string {
	if len(key) > 100 {
		return ""
	}
	best, bestDist := "", 4
	for k := range wellKnownSince {
		if d := requirements.EditDistance(key, k); v.wellKnown(k) && (d < bestDist || d == bestDist && k < best) {
			best, bestDist = k, d
		}
	}
	return best
}

// subPath returns p followed by steps, without sharing p's backing array.
func subPath(p Path, steps ...Step) Path {
	out := make(Path, 0, len(p)+len(steps))
	return append(append(out, p...), steps...)
}

// intValue reads a JSON integer, decoded as float64 or int64.
func intValue(raw any) (int, bool) {
	switch n := raw.(type) {
	case int64:
		return int(n), true
	case int:
		return n, true
	case float64:
		if n == float64(int(n)) {
			return int(n), true
		}
	}
	return 0, false
}

// quoteLong quotes s, eliding the middle of a long string so a message stays readable.
func quoteLong(s string) string {
	const limit = 80
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:40]) + "…" + strconv.Quote(s[len(s)-20:]) + fmt.Sprintf(" (%d characters)", len(s))
}

// minorNumber is the minor of a "1.15" version (15).
func minorNumber(version string) int {
	minor, _ := strconv.Atoi(strings.TrimPrefix(MinorOf(version), "v1."))
	return minor
}
