package kubeletconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Problem is one reason Karpenter would refuse spec.kubelet.
type Problem struct {
	// Field is the path inside spec.kubelet, one step per element: ["maxPods"],
	// ["evictionHard", "memory.available"], ["kubeReserved", "cpu"]. Empty when the problem
	// can't be pinned to a key.
	Field []string
	// Message is the reason, without the path.
	Message string
}

// Path renders Field the way Karpenter names it in status messages, e.g.
// "spec.kubelet.evictionHard[memory.available]".
func (p Problem) Path() string {
	var b strings.Builder
	b.WriteString("spec.kubelet")
	for i, step := range p.Field {
		if i == 0 {
			b.WriteString("." + step)
			continue
		}
		b.WriteString("[" + step + "]")
	}
	return b.String()
}

func (p Problem) String() string { return p.Path() + ": " + p.Message }

// EvictionSignals are the keys an eviction map may use; the kubelet ignores any other.
var EvictionSignals = []string{
	"memory.available",
	"nodefs.available",
	"nodefs.inodesFree",
	"imagefs.available",
	"imagefs.inodesFree",
	"pid.available",
}

// ReservableResources are the keys kubeReserved and systemReserved may use.
var ReservableResources = []string{"cpu", "memory", "ephemeral-storage", "pid"}

// ownedFields are fields Karpenter overwrites at bootstrap, with the reason it does.
var ownedFields = map[string]string{
	"registerWithTaints": "Karpenter sets it from the NodeClaim's taints so the node registers unschedulable until it's ready",
}

// Validate reports what Karpenter's ValidateKubeletConfig would reject in spec.kubelet: fields
// the upstream KubeletConfiguration doesn't declare or that have the wrong JSON type, and the
// semantic rules on top of it. A nil or empty config is valid. Expressions in maxPods,
// kubeReserved and systemReserved are accepted here; see ExpressionProblems for their check.
//
// Problems come in Karpenter's order (decode first, then the semantic rules), keys sorted.
func Validate(config map[string]any) []Problem {
	if len(config) == 0 {
		return nil
	}
	raw, problems := encode(config)
	problems = append(problems, decodeProblems(raw)...)
	return append(problems, semanticProblems(raw)...)
}

// rawConfig is spec.kubelet with each value encoded as JSON, the form Karpenter holds it in.
type rawConfig map[string]json.RawMessage

// encode turns config into a rawConfig. A value that can't be encoded (not possible for a
// config decoded from JSON) is reported and left out.
func encode(config map[string]any) (rawConfig, []Problem) {
	raw := make(rawConfig, len(config))
	var problems []Problem
	for _, key := range slices.Sorted(maps.Keys(config)) {
		data, err := json.Marshal(config[key])
		if err != nil {
			problems = append(problems, Problem{Field: []string{key}, Message: "can't be encoded as JSON: " + err.Error()})
			continue
		}
		raw[key] = data
	}
	return raw, problems
}

// semanticProblems holds the rules the upstream Go type can't express. A field of the wrong
// type is skipped by every rule, since the decode already reports it.
func semanticProblems(raw rawConfig) []Problem {
	var problems []Problem
	for _, field := range slices.Sorted(maps.Keys(ownedFields)) {
		if _, ok := raw[field]; ok {
			problems = append(problems, Problem{Field: []string{field}, Message: "can't be set, " + ownedFields[field]})
		}
	}
	problems = append(problems, evictionProblems(raw)...)
	problems = append(problems, softPairingProblems(raw)...)
	problems = append(problems, reservedProblems(raw)...)
	problems = append(problems, rangeProblems(raw)...)
	return append(problems, imageGCOrderProblems(raw)...)
}

// evictionProblems checks the keys and values of the four eviction maps: keys must be eviction
// signals; evictionSoftGracePeriod values are durations, the others percentages or quantities.
func evictionProblems(raw rawConfig) []Problem {
	var problems []Problem
	for _, field := range []string{"evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim"} {
		signals, ok := raw.stringMap(field)
		if !ok {
			continue
		}
		for _, key := range slices.Sorted(maps.Keys(signals)) {
			if !slices.Contains(EvictionSignals, key) {
				problems = append(problems, Problem{
					Field:   []string{field, key},
					Message: fmt.Sprintf("%q isn't a valid eviction signal, must be one of %s", key, strings.Join(EvictionSignals, ", ")),
				})
			}
			check := evictionThresholdProblem
			if field == "evictionSoftGracePeriod" {
				check = gracePeriodProblem
			}
			if msg := check(signals[key]); msg != "" {
				problems = append(problems, Problem{Field: []string{field, key}, Message: msg})
			}
		}
	}
	return problems
}

// evictionThresholdProblem accepts a percentage within [0,100] ("5%") or a non-negative
// quantity ("500Mi"); the "%" suffix decides which.
func evictionThresholdProblem(value string) string {
	if pct, ok := strings.CutSuffix(value, "%"); ok {
		// NaN passes both comparisons, as it does in Karpenter.
		if v, err := strconv.ParseFloat(pct, 64); err != nil || v < 0 || v > 100 {
			return fmt.Sprintf("%q must be a percentage or a resource quantity", value)
		}
		return ""
	}
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return fmt.Sprintf("%q must be a percentage or a resource quantity", value)
	}
	if q.Sign() < 0 {
		return fmt.Sprintf("%q can't be a negative resource quantity", value)
	}
	return ""
}

// gracePeriodProblem accepts a non-negative Go duration ("30s", "2m").
func gracePeriodProblem(value string) string {
	d, err := time.ParseDuration(value)
	if err != nil {
		return fmt.Sprintf("%q must be a duration", value)
	}
	if d < 0 {
		return fmt.Sprintf("%q can't be a negative duration", value)
	}
	return ""
}

// softPairingProblems requires evictionSoft and evictionSoftGracePeriod to have the same keys:
// the kubelet ignores a soft threshold without a grace period and rejects the reverse. A missing
// map counts as empty.
func softPairingProblems(raw rawConfig) []Problem {
	soft, _ := raw.stringMap("evictionSoft")
	grace, _ := raw.stringMap("evictionSoftGracePeriod")
	var problems []Problem
	for _, signal := range slices.Sorted(maps.Keys(soft)) {
		if _, ok := grace[signal]; !ok {
			problems = append(problems, Problem{Field: []string{"evictionSoft", signal}, Message: "has no matching evictionSoftGracePeriod"})
		}
	}
	for _, signal := range slices.Sorted(maps.Keys(grace)) {
		if _, ok := soft[signal]; !ok {
			problems = append(problems, Problem{Field: []string{"evictionSoftGracePeriod", signal}, Message: "has no matching evictionSoft"})
		}
	}
	return problems
}

// reservedProblems limits kubeReserved and systemReserved to reservable resources and rejects a
// value starting with "-". Values needn't be quantities: they may be expressions.
func reservedProblems(raw rawConfig) []Problem {
	var problems []Problem
	for _, field := range []string{"kubeReserved", "systemReserved"} {
		reserved, ok := raw.stringMap(field)
		if !ok {
			continue
		}
		for _, key := range slices.Sorted(maps.Keys(reserved)) {
			if !slices.Contains(ReservableResources, key) {
				problems = append(problems, Problem{
					Field:   []string{field, key},
					Message: fmt.Sprintf("%q isn't a reservable resource, must be one of %s", key, strings.Join(ReservableResources, ", ")),
				})
			}
			if strings.HasPrefix(reserved[key], "-") {
				problems = append(problems, Problem{
					Field:   []string{field, key},
					Message: fmt.Sprintf("%q can't be a negative resource quantity", reserved[key]),
				})
			}
		}
	}
	return problems
}

// rangeProblems: percentages within [0,100]; podsPerCore, evictionMaxPodGracePeriod and an
// integer maxPods not negative. A string maxPods is an expression, bounded once evaluated.
func rangeProblems(raw rawConfig) []Problem {
	var problems []Problem
	for _, field := range []string{"imageGCHighThresholdPercent", "imageGCLowThresholdPercent"} {
		if v, ok := raw.integer(field); ok && (v < 0 || v > 100) {
			problems = append(problems, Problem{Field: []string{field}, Message: fmt.Sprintf("%d must be between 0 and 100", v)})
		}
	}
	for _, field := range []string{"podsPerCore", "evictionMaxPodGracePeriod"} {
		if v, ok := raw.integer(field); ok && v < 0 {
			problems = append(problems, Problem{Field: []string{field}, Message: fmt.Sprintf("%d can't be negative", v)})
		}
	}
	if value, ok := raw["maxPods"]; ok && !isJSONString(value) {
		if v, ok := raw.integer("maxPods"); ok && v < 0 {
			problems = append(problems, Problem{Field: []string{"maxPods"}, Message: fmt.Sprintf("%d can't be negative", v)})
		}
	}
	return problems
}

// imageGCOrderProblems requires the high image GC threshold above the low one.
func imageGCOrderProblems(raw rawConfig) []Problem {
	high, highOK := raw.integer("imageGCHighThresholdPercent")
	low, lowOK := raw.integer("imageGCLowThresholdPercent")
	if !highOK || !lowOK || high > low {
		return nil
	}
	return []Problem{{
		Field:   []string{"imageGCHighThresholdPercent"},
		Message: fmt.Sprintf("imageGCHighThresholdPercent (%d) must be greater than imageGCLowThresholdPercent (%d)", high, low),
	}}
}

// stringMap reads a map of strings, false when absent or of another type. JSON null reads as an
// empty map, as encoding/json does.
func (r rawConfig) stringMap(field string) (map[string]string, bool) {
	data, ok := r[field]
	if !ok {
		return nil, false
	}
	var out map[string]string
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, false
	}
	return out, true
}

// integer reads an integer, false when absent or not an integer.
func (r rawConfig) integer(field string) (int64, bool) {
	data, ok := r[field]
	if !ok {
		return 0, false
	}
	var out int64
	if err := json.Unmarshal(data, &out); err != nil {
		return 0, false
	}
	return out, true
}

// isJSONString is true for a JSON string, and (as encoding/json reads it) for null.
func isJSONString(data json.RawMessage) bool {
	var s string
	return json.Unmarshal(data, &s) == nil
}
