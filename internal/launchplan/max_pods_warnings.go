package launchplan

import (
	"fmt"
	"strings"
)

// consistencyWarning reports, once for the pool, the eligible types for which Karpenter will
// schedule against a different pod count than the kubelet runs with (the user data sets the
// kubelet's): Karpenter then over- or under-packs nodes.
func (b *builder) consistencyWarning(types []*eligible) {
	var names []string
	var first *eligible
	for _, t := range types {
		if !t.res.Consistent {
			if first == nil {
				first = t
			}
			names = append(names, t.it.Name)
		}
	}
	if first == nil {
		return
	}
	list := strings.Join(names, ", ")
	if len(names) > 5 {
		list = strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	b.warn(SummaryMaxPodsDisagree, pathNodeClass, "Karpenter and the kubelet disagree on max pods for %d eligible instance types (%s): for %s Karpenter assumes %d, "+
		"the kubelet runs %d. %s", len(names), list, first.it.Name, first.res.KarpenterAssumedPods, first.res.MaxPods, first.res.Reason)
}

// addressWarning reports, once for the pool, the eligible types whose kubelet max pods (a fixed
// kubelet.max_pods) is above what their ENIs can address: the pods past that count stay
// without an IP. capacity.Compute carries the same rule (the pod capacity data source's
// warning), so the pool and the data source agree.
func (b *builder) addressWarning(types []*eligible) {
	var short []*eligible
	for _, t := range types {
		if t.res.AddressablePods > 0 && t.res.MaxPods > t.res.AddressablePods && (b.settings.MaxPods != nil || b.settings.MaxPodsExpression != "") {
			short = append(short, t)
		}
	}
	if len(short) == 0 {
		return
	}
	least := short[0]
	var parts []string
	for i, t := range short {
		if t.res.AddressablePods < least.res.AddressablePods {
			least = t
		}
		if i < 5 {
			parts = append(parts, fmt.Sprintf("%s %d", t.it.Name, t.res.AddressablePods))
		}
	}
	list := strings.Join(parts, ", ")
	if len(short) > 5 {
		list += fmt.Sprintf(" and %d more", len(short)-5)
	}
	fix := "turn on prefix delegation (Nitro types address up to 110 or 250 pods)"
	if b.settings.PrefixDelegation {
		fix = "use larger instance types"
	}
	if e := b.settings.MaxPodsExpression; e != "" {
		b.warn(SummaryMaxPodsUnaddressed, pathNodeClass, "the kubelet maxPods expression %q gives more pods than the ENIs can address on %d of %d "+
			"eligible instance types (type: addressable pods: %s; e.g. %s runs %d): those past the addressable count stay without an IP "+
			"(ContainerCreating). Bound it, e.g. min(%s, max_pods), %s, or narrow the requirements",
			e, len(short), len(types), list, least.it.Name, least.res.MaxPods, e, fix)
		return
	}
	b.warn(SummaryMaxPodsUnaddressed, pathNodeClass, "kubelet max_pods %d is above the pods the ENIs can address on %d of %d eligible instance "+
		"types (%s): the kubelet admits %d pods, and those past the addressable count stay without an IP (ContainerCreating). Lower "+
		"kubelet max_pods to %d, %s, or narrow the requirements to types that address %d pods",
		*b.settings.MaxPods, len(short), len(types), list, *b.settings.MaxPods, least.res.AddressablePods, fix, *b.settings.MaxPods)
}

// fallbackWarning reports the eligible types on which prefix delegation cannot work (Xen): the
// VPC CNI falls back to secondary IPs there, so they run the secondary-IP pod count.
func (b *builder) fallbackWarning(types []*eligible) {
	var parts []string
	n := 0
	for _, t := range types {
		if t.res.PrefixFallback {
			if n < 5 {
				parts = append(parts, fmt.Sprintf("%s %d", t.it.Name, t.res.MaxPods))
			}
			n++
		}
	}
	if n == 0 {
		return
	}
	list := strings.Join(parts, ", ")
	if n > 5 {
		list += fmt.Sprintf(" and %d more", n-5)
	}
	if b.in.Class.AutoMode != nil {
		b.warn(SummaryPrefixFallback, pathNodeClass, "EKS Auto Mode gives nodes /28 prefixes, but %d eligible instance type(s) run on Xen, "+
			"which cannot take prefixes: Auto Mode falls back to secondary IPs there, and they run that pod count (%s). Require Nitro types "+
			"(eks.amazonaws.com/instance-hypervisor In [nitro]) for prefix density everywhere", n, list)
		return
	}
	b.warn(SummaryPrefixFallback, pathNodeClass, "prefix delegation is on, but %d eligible instance type(s) run on Xen, where the VPC CNI "+
		"cannot assign prefixes and falls back to secondary IPs: they run that pod count (%s). Require Nitro types "+
		"(karpenter.k8s.aws/instance-hypervisor In [nitro]) for prefix density everywhere", n, list)
}
