package launchplan

import (
	"slices"
	"sort"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeletconfig"
)

// SummaryReservedExpression is the warning of a reserved-resource expression that does not
// evaluate for some types.
const SummaryReservedExpression = "Reserved-resource expression fails on some types"

// kubeletFor is the class's kubelet for one type. With Karpenter v1.15 expressions in
// kube_reserved or system_reserved, those maps are resolved with the type's variables as
// Karpenter's instance-type resolver does (max_pods is the type's max pods; an entry that does
// not evaluate is dropped, and named in a warning), with a canonical string of the resolved maps
// to group the types by; otherwise the class's kubelet and "".
func (b *builder) kubeletFor(t *eligible) (Kubelet, string) {
	k := b.in.Class.Kubelet
	if !b.reservedExprs {
		return k, ""
	}
	vars := kubeletconfig.Vars{VCPUs: int64(t.it.VCPUs), MemoryMiB: int64(t.it.MemoryMiB), DefaultENIs: int64(capacity.DefaultCardENIs(catalog.ToNetwork(t.it))),
		IPsPerENI: int64(t.it.IPv4PerENI), MaxPods: int64(t.res.MaxPods), InstanceType: t.it.Name}
	var kubeDropped, sysDropped map[string]error
	k.KubeReserved, kubeDropped = kubeletconfig.ResolveReservedMap(k.KubeReserved, vars, true)
	k.SystemReserved, sysDropped = kubeletconfig.ResolveReservedMap(k.SystemReserved, vars, true)
	for name, dropped := range map[string]map[string]error{"kube_reserved": kubeDropped, "system_reserved": sysDropped} {
		for key := range dropped {
			b.reservedFailures(name+"["+key+"]", t.it.Name)
		}
	}
	return k, "kube:" + joinSorted(k.KubeReserved, "=") + ";system:" + joinSorted(k.SystemReserved, "=")
}

// reservedFailures records a type an expression failed on, for one warning per expression.
func (b *builder) reservedFailures(attr, typeName string) {
	if b.reservedFailed == nil {
		b.reservedFailed = map[string][]string{}
	}
	if !slices.Contains(b.reservedFailed[attr], typeName) {
		b.reservedFailed[attr] = append(b.reservedFailed[attr], typeName)
	}
}

// warnReservedFailures is one warning per reserved-resource expression that failed on a type.
func (b *builder) warnReservedFailures() {
	attrs := make([]string, 0, len(b.reservedFailed))
	for a := range b.reservedFailed {
		attrs = append(attrs, a)
	}
	sort.Strings(attrs)
	for _, a := range attrs {
		types := b.reservedFailed[a]
		sort.Strings(types)
		b.warn(SummaryReservedExpression, pathNodeClass, "the kubelet %s expression does not evaluate (or is negative) for %s: "+
			"Karpenter drops that reservation for them, and its validation of the class evaluates it for every instance type "+
			"and fails the class (KubeletExpressionEvaluationFailed)", a, strings.Join(types, ", "))
	}
}

func hasExpression(m map[string]string) bool {
	for _, v := range m {
		if kubeletconfig.IsExpression(v) {
			return true
		}
	}
	return false
}
