package launchplan

import (
	"strconv"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// computeMemo runs capacity.Compute once per distinct network description: the result depends
// on the numbers, not on the type's name (which only appears in error and warning text, and
// only the error's kind is used here), unless a maxPods expression reads the memory or the name. Catalogs repeat the same ENI, IP and vCPU figures across
// families (m5.large, c5.large and r5.large agree), so this saves most of the calls.
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
	k := m.key[:0]
	for _, v := range [...]int{it.VCPUs, it.MaxENIs, it.DefaultCardIndex, it.IPv4PerENI, it.IPv6PerENI, it.MaxEFAInterfaces} {
		k = strconv.AppendInt(k, int64(v), 10)
		k = append(k, ',')
	}
	for _, c := range it.NetworkCards {
		k = strconv.AppendInt(k, int64(c.Index), 10)
		k = append(k, ':')
		k = strconv.AppendInt(k, int64(c.MaxENIs), 10)
		k = append(k, ',')
	}
	k = strconv.AppendBool(k, it.BareMetal)
	k = strconv.AppendBool(k, it.EFASupported)
	k = append(k, it.Hypervisor...)
	if m.settings.MaxPodsExpression != "" { // the expression may read the memory and the name
		k = strconv.AppendInt(append(k, ','), int64(it.MemoryMiB), 10)
		k = append(append(k, ','), it.Name...)
	}
	m.key = k
	if c, ok := m.results[string(k)]; ok {
		return c.res, c.err
	}
	r, err := capacity.Compute(catalog.ToNetwork(it), m.settings)
	m.results[string(k)] = computed{r, err}
	return r, err
}
