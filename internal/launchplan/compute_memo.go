package launchplan

import (
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// computeMemo runs capacity.Compute once per distinct network description. The key is every
// field of the capacity.Network the computation reads: catalogs repeat the same ENI, IP and vCPU
// figures across families (m5.large, c5.large and r5.large agree), so most types share one call,
// but two types share a result only when nothing Compute reads tells them apart — ENA support and
// trunk compatibility included, and the name where the settings read it (a maxPods expression
// reads the name and the memory; EKS Auto Mode refuses nano, micro and small sizes). A result
// with warnings is not shared: they name the type.
type computeMemo struct {
	settings capacity.Settings
	results  map[string]computed
	key      []byte
}

type computed struct {
	res capacity.Result
	err error
}

func (m *computeMemo) compute(it *catalog.InstanceType) (capacity.Result, error) {
	n := catalog.ToNetwork(it)
	k := m.key[:0]
	for _, v := range [...]int{n.VCPUs, n.MaxENIs, n.DefaultCardIndex, n.IPv4PerENI, n.IPv6PerENI, n.MaxEFAInterfaces} {
		k = strconv.AppendInt(k, int64(v), 10)
		k = append(k, ',')
	}
	for _, c := range n.CardENIs {
		k = strconv.AppendInt(k, int64(c), 10)
		k = append(k, ':')
	}
	for _, b := range [...]bool{n.BareMetal, n.EFASupported, n.ENAUnsupported, n.TrunkCompatible != nil, n.TrunkCompatible != nil && *n.TrunkCompatible} {
		k = strconv.AppendBool(k, b)
	}
	k = append(k, n.Hypervisor...)
	switch {
	case m.settings.MaxPodsExpression != "": // the expression may read the memory and the name
		k = strconv.AppendInt(append(k, ','), int64(n.MemoryMiB), 10)
		k = append(append(k, ','), n.InstanceType...)
	case m.settings.AutoMode != nil: // Auto Mode judges the size
		_, size, _ := strings.Cut(n.InstanceType, ".")
		k = append(append(k, ','), size...)
	}
	m.key = k
	if c, ok := m.results[string(k)]; ok && len(c.res.Warnings) == 0 {
		return c.res, c.err
	} else if ok {
		return capacity.Compute(n, m.settings) // its warnings name the type: the type's own
	}
	r, err := capacity.Compute(n, m.settings)
	m.results[string(k)] = computed{r, err}
	return r, err
}
