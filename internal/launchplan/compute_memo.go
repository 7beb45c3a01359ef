package launchplan

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"

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
//
// The results are a table per capacity.Settings kept for the process (computeTables): every pool
// of a class with the same network settings reads the one table, so a plan computes each
// distinct network description once, not once per pool. Settings with a maxPods expression get
// a table of their own build (its evaluator is the build's).
type computeMemo struct {
	settings capacity.Settings
	results  *computeTable
	key      []byte
}

// computeTable is the results of one capacity.Settings, safe for concurrent pools: by network
// description, and by type for the types already computed (a pool's next plan of the same type
// skips building its key).
type computeTable struct {
	mu      sync.RWMutex
	results map[string]computed
	byType  map[*catalog.InstanceType]computed
}

type computed struct {
	res capacity.Result
	err error
}

// computeTables are the process's tables by settings (settingsKey), at most maxComputeTables.
var computeTables struct {
	mu     sync.Mutex
	tables map[string]*computeTable
}

const maxComputeTables = 64

// newComputeMemo is the memo of a build with settings s.
func newComputeMemo(s capacity.Settings) *computeMemo {
	m := &computeMemo{settings: s}
	key, shared := settingsKey(s)
	if !shared {
		m.results = newComputeTable()
		return m
	}
	computeTables.mu.Lock()
	defer computeTables.mu.Unlock()
	if computeTables.tables == nil || len(computeTables.tables) >= maxComputeTables {
		computeTables.tables = map[string]*computeTable{}
	}
	t := computeTables.tables[key]
	if t == nil {
		t = newComputeTable()
		computeTables.tables[key] = t
	}
	m.results = t
	return m
}

func newComputeTable() *computeTable {
	return &computeTable{results: map[string]computed{}, byType: map[*catalog.InstanceType]computed{}}
}

// settingsKey is every field of s but the maxPods evaluator (JSON); shared is false when s has a
// maxPods expression, which that evaluator computes.
func settingsKey(s capacity.Settings) (key string, shared bool) {
	if s.MaxPodsExpression != "" || s.MaxPodsEval != nil {
		return "", false
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// len is the count of kept results.
func (t *computeTable) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.results)
}

func (m *computeMemo) compute(it *catalog.InstanceType) (capacity.Result, error) {
	m.results.mu.RLock()
	c, ok := m.results.byType[it]
	m.results.mu.RUnlock()
	if ok {
		return c.res, c.err
	}
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
	m.results.mu.RLock()
	c, ok = m.results.results[string(k)]
	m.results.mu.RUnlock()
	if ok && len(c.res.Warnings) == 0 {
		m.results.mu.Lock()
		m.results.byType[it] = c
		m.results.mu.Unlock()
		return c.res, c.err
	} else if ok {
		return capacity.Compute(n, m.settings) // its warnings name the type: the type's own
	}
	r, err := capacity.Compute(n, m.settings)
	m.results.mu.Lock()
	m.results.results[string(k)] = computed{r, err}
	if len(r.Warnings) == 0 {
		m.results.byType[it] = computed{r, err}
	}
	m.results.mu.Unlock()
	return r, err
}
