package nodeclass

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeletconfig"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// typedKubeletFields are spec.kubelet's typed fields by upstream name, with their attributes.
var typedKubeletFields = map[string]string{
	"maxPods": "max_pods", "podsPerCore": "pods_per_core", "clusterDNS": "cluster_dns", "systemReserved": "system_reserved",
	"kubeReserved": "kube_reserved", "evictionHard": "eviction_hard", "evictionSoft": "eviction_soft",
	"evictionSoftGracePeriod": "eviction_soft_grace_period", "evictionMaxPodGracePeriod": "eviction_max_pod_grace_period",
	"imageGCHighThresholdPercent": "image_gc_high_threshold_percent", "imageGCLowThresholdPercent": "image_gc_low_threshold_percent",
	"cpuCFSQuota": "cpu_cfs_quota",
}

// ValidateForVersion is what depends on the Karpenter minor the cluster runs (version, "1.9" …
// "1.15") and its feature gates: v1.15's free-form kubelet fields and maxPods expression are
// refused before 1.15; from 1.15 the whole spec.kubelet goes through Karpenter's own validation
// (upstream types, strict; its rules; what the AMI family applies; the expressions, which need
// the NodeClassCEL gate), as the v1.15 controller would refuse it after apply.
func ValidateForVersion(s Spec, version string, gates []string) []FieldError {
	var errs []FieldError
	add := func(p attrpath.Path, format string, args ...any) {
		errs = append(errs, FieldError{Path: p, Message: fmt.Sprintf(format, args...)})
	}
	k := s.Kubelet
	if !manifest.AtLeast(version, "1.15") {
		if k.MaxPodsExpression != "" {
			add(attrpath.Of("kubelet", "max_pods_expression"), "maxPods expressions first appear in Karpenter 1.15; karpenter_version is %q", version)
		}
		for _, m := range []struct {
			attr string
			vals map[string]string
		}{{"kube_reserved", k.KubeReserved}, {"system_reserved", k.SystemReserved}} {
			for _, key := range slices.Sorted(maps.Keys(m.vals)) {
				if v := m.vals[key]; kubeletconfig.IsExpression(v) && kubeletconfig.Compile(v) == nil {
					add(attrpath.Of("kubelet", m.attr).Key(key), "%q is not a resource quantity; as an expression it needs Karpenter 1.15 "+
						"(karpenter_version is %q)", m.vals[key], version)
				}
			}
		}
		if len(k.Config) > 0 {
			add(attrpath.Of("kubelet", "config"), "free-form kubelet fields (%s) first appear in Karpenter 1.15; karpenter_version is %q "+
				"(before 1.15 only the typed attributes exist)", strings.Join(sortedKeys(k.Config), ", "), version)
		}
		return errs
	}
	if k.MaxPodsExpression != "" && k.MaxPods != nil {
		add(attrpath.Of("kubelet", "max_pods_expression"), "max_pods_expression and max_pods are exclusive (both are spec.kubelet.maxPods)")
	}
	for _, key := range sortedKeys(k.Config) {
		if attr, typed := typedKubeletFields[key]; typed {
			add(attrpath.Of("kubelet", "config"), "%q is the typed attribute kubelet.%s: set it there", key, attr)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	_, problems := kubeletconfig.Check(s.EffectiveAMIFamily(), KubeletMap(k), reservations.GateOn(gates, kubeletconfig.FeatureGate, kubeletconfig.FeatureGateDefault))
	for _, p := range problems {
		at := kubeletProblemPath(k, p.Field)
		if at.String() == "kubelet.config" && len(p.Field) > 0 { // the attribute holds many fields: name the one at fault
			add(at, "%s: %s", strings.Join(p.Field, "."), p.Message)
			continue
		}
		add(at, "%s", p.Message)
	}
	return errs
}

// kubeletProblemPath is the attribute a problem with spec.kubelet.<field...> belongs to.
func kubeletProblemPath(k Kubelet, field []string) attrpath.Path {
	if len(field) == 0 {
		return attrpath.Of("kubelet")
	}
	if field[0] == "maxPods" && k.MaxPodsExpression != "" {
		return attrpath.Of("kubelet", "max_pods_expression")
	}
	if attr, typed := typedKubeletFields[field[0]]; typed {
		p := attrpath.Of("kubelet", attr)
		if len(field) > 1 {
			p = p.Key(field[1])
		}
		return p
	}
	return attrpath.Of("kubelet", "config")
}

// KubeletMap is spec.kubelet as Karpenter v1.15 reads it: the typed fields, the expression and
// the free-form ones, by upstream name, with JSON-like values.
func KubeletMap(k Kubelet) map[string]any {
	out := map[string]any{}
	for key, v := range k.Config {
		out[key] = v
	}
	setInt := func(key string, v *int) {
		if v != nil {
			out[key] = int64(*v)
		}
	}
	setMap := func(key string, m map[string]string) {
		if m != nil {
			mm := make(map[string]any, len(m))
			for a, b := range m {
				mm[a] = b
			}
			out[key] = mm
		}
	}
	setInt("maxPods", k.MaxPods)
	if k.MaxPodsExpression != "" {
		out["maxPods"] = k.MaxPodsExpression
	}
	setInt("podsPerCore", k.PodsPerCore)
	setInt("evictionMaxPodGracePeriod", k.EvictionMaxPodGracePeriod)
	setInt("imageGCHighThresholdPercent", k.ImageGCHighThresholdPercent)
	setInt("imageGCLowThresholdPercent", k.ImageGCLowThresholdPercent)
	setMap("systemReserved", k.SystemReserved)
	setMap("kubeReserved", k.KubeReserved)
	setMap("evictionHard", k.EvictionHard)
	setMap("evictionSoft", k.EvictionSoft)
	setMap("evictionSoftGracePeriod", k.EvictionSoftGracePeriod)
	if k.ClusterDNS != nil {
		dns := make([]any, len(k.ClusterDNS))
		for i, d := range k.ClusterDNS {
			dns[i] = d
		}
		out["clusterDNS"] = dns
	}
	if k.CPUCFSQuota != nil {
		out["cpuCFSQuota"] = *k.CPUCFSQuota
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
