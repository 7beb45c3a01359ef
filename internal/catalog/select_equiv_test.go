package catalog

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// referenceSelect is Select as it was before labels were cached per catalog: Labels per type on
// every call and a full label copy per expanded offering. Select must give the same answers.
func referenceSelect(c *Catalog, reqs []requirements.Requirement, opts SelectOptions) (SelectResult, error) {
	var res SelectResult
	var active, perType []requirements.Requirement
	var activeIndex []int
	useZone, useCapacity, useTenancy := false, false, false
	for i, r := range reqs {
		if !IsDefinedKey(r.Key) || (r.Key == requirements.LabelWindowsBuild && opts.OS == "windows" && opts.WindowsBuild == "") {
			res.Ignored = append(res.Ignored, i)
			continue
		}
		active = append(active, r)
		activeIndex = append(activeIndex, i)
		switch r.Key {
		case requirements.LabelZone:
			useZone = true
		case requirements.LabelCapacityType:
			useCapacity = true
		case requirements.LabelInstanceTenancy:
			useTenancy = true
		default:
			perType = append(perType, r)
		}
	}
	osName := opts.OS
	if osName == "" {
		osName = OSLinux
	}
	var zoneFilter map[string]bool
	if len(opts.Zones) > 0 {
		zoneFilter = map[string]bool{}
		for _, z := range opts.Zones {
			zoneFilter[z] = true
		}
	}
	type candidate struct {
		it     *InstanceType
		labels map[string]string
		zones  []string
	}
	var cands []candidate
	var items []map[string]string
	var owner []int
	var itemZone []string
	for _, it := range c.types {
		if !opts.IncludeIneligible && !it.KarpenterEligible() {
			continue
		}
		if osName == "windows" && it.KubeArch() != "amd64" {
			continue
		}
		zones := it.Zones
		if zoneFilter != nil {
			zones = nil
			for _, z := range it.Zones {
				if zoneFilter[z] {
					zones = append(zones, z)
				}
			}
			if len(zones) == 0 {
				continue
			}
		}
		base := Labels(it)
		base[requirements.LabelOS] = osName
		if osName == "windows" && opts.WindowsBuild != "" {
			base[requirements.LabelWindowsBuild] = opts.WindowsBuild
		}
		if opts.Region != "" {
			base[requirements.LabelRegion] = opts.Region
		}
		if !requirements.MatchesAll(perType, base) {
			continue
		}
		ci := len(cands)
		cands = append(cands, candidate{it: it, labels: base, zones: zones})
		zoneVals, capVals, tenVals := []string{""}, []string{""}, []string{""}
		if useZone && len(zones) > 0 {
			zoneVals = zones
		}
		if useCapacity {
			if cts := capacityTypes(it); len(cts) > 0 {
				capVals = cts
			}
		}
		if useTenancy {
			tenVals = tenancies
		}
		if len(zoneVals) == 1 && zoneVals[0] == "" && len(capVals) == 1 && capVals[0] == "" && len(tenVals) == 1 && tenVals[0] == "" {
			items = append(items, base)
			owner = append(owner, ci)
			itemZone = append(itemZone, "")
			continue
		}
		for _, z := range zoneVals {
			for _, ct := range capVals {
				for _, ten := range tenVals {
					l := maps.Clone(base)
					for k, v := range map[string]string{requirements.LabelZone: z, requirements.LabelCapacityType: ct, requirements.LabelInstanceTenancy: ten} {
						if v != "" {
							l[k] = v
						}
					}
					items = append(items, l)
					owner = append(owner, ci)
					itemZone = append(itemZone, z)
				}
			}
		}
	}
	idx, err := requirements.Filter(active, items)
	var mv *requirements.MinValuesError
	if errors.As(err, &mv) {
		remapped := *mv
		remapped.Index = activeIndex[mv.Index]
		err = &remapped
	}
	last := -1
	for _, i := range idx {
		ci := owner[i]
		if ci != last {
			cd := cands[ci]
			sel := Selected{Type: cd.it, Labels: cd.labels}
			if !useZone {
				sel.Zones = slices.Clone(cd.zones)
			}
			res.Types = append(res.Types, sel)
			last = ci
		}
		if useZone && itemZone[i] != "" {
			s := &res.Types[len(res.Types)-1]
			if len(s.Zones) == 0 || s.Zones[len(s.Zones)-1] != itemZone[i] {
				s.Zones = append(s.Zones, itemZone[i])
			}
		}
	}
	for i := range res.Types {
		if res.Types[i].Zones == nil {
			res.Types[i].Zones = []string{}
		}
	}
	return res, err
}

// randomRequirements draws 0-5 requirements over instance and offering keys, with values that
// sometimes hit and sometimes miss, and min_values now and then.
func randomRequirements(r *rand.Rand) []requirements.Requirement {
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	op := func(vs ...string) requirements.Operator { return requirements.Operator(pick(vs...)) }
	ops := requirements.Operators()
	var out []requirements.Requirement
	for range r.IntN(6) {
		var q requirements.Requirement
		switch r.IntN(10) {
		case 0:
			q = req(requirements.LabelZone, requirements.OpIn, pick("ap-southeast-1a", "ap-southeast-1b"), pick("ap-southeast-1c", "us-east-1a"))
			if r.IntN(2) == 0 {
				q.Operator = requirements.OpNotIn
			}
		case 1:
			q = req(requirements.LabelCapacityType, op("In", "NotIn"), pick("spot", "on-demand"))
		case 2:
			q = req(requirements.LabelInstanceTenancy, op("In", "NotIn", "Exists"), pick("default", "dedicated"))
		case 3:
			q = req(requirements.LabelInstanceCPU, op("Gt", "Lt", "Gte", "Lte"), pick("2", "4", "16", "64"))
		case 4:
			q = req(requirements.LabelArch, op("In", "NotIn"), pick("amd64", "arm64"))
		case 5:
			q = req(requirements.LabelRegion, op("In", "NotIn", "Exists", "DoesNotExist"), pick("ap-southeast-1", "us-east-1"))
		case 6:
			q = req(requirements.LabelOS, op("In", "NotIn"), pick("linux", "windows"))
		case 7:
			q = req(requirements.LabelWindowsBuild, op("In", "Exists", "DoesNotExist"), "10.0.20348")
		case 8:
			q = req(pick(requirements.LabelInstanceGPUName, requirements.LabelInstanceHypervisor, requirements.LabelInstanceFamily, "example.com/team"),
				ops[r.IntN(len(ops))], pick("nitro", "xen", "m5", "t4", "a1"))
		default:
			q = req(requirements.LabelInstanceCategory, requirements.OpIn, pick("m", "c", "a", "b"), pick("r", "g", "p"))
		}
		if r.IntN(4) == 0 {
			n := 1 + r.IntN(3)
			q.MinValues = &n
		}
		out = append(out, q)
	}
	return out
}

func randomOptions(r *rand.Rand) SelectOptions {
	var o SelectOptions
	if r.IntN(3) > 0 {
		o.Region = []string{"ap-southeast-1", "us-east-1"}[r.IntN(2)]
	}
	switch r.IntN(4) {
	case 0:
		o.Zones = []string{"ap-southeast-1a", "ap-southeast-1c"}
	case 1:
		o.Zones = []string{"ap-southeast-1b"}
	}
	switch r.IntN(4) {
	case 0:
		o.OS = "windows"
		if r.IntN(2) == 0 {
			o.WindowsBuild = "10.0.20348"
		}
	case 1:
		o.OS = "linux"
	}
	o.IncludeIneligible = r.IntN(5) == 0
	return o
}

func TestSelectMatchesReference(t *testing.T) {
	catalogs := map[string]*Catalog{"fixtures": fixtureCatalog(), "synthetic": syntheticCatalog(300)}
	r := rand.New(rand.NewPCG(9, 2026))
	for name, c := range catalogs {
		for i := range 600 {
			reqs, opts := randomRequirements(r), randomOptions(r)
			want, wantErr := referenceSelect(c, reqs, opts)
			got, gotErr := c.Select(reqs, opts)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("%s #%d %+v %+v: error %v, want %v", name, i, reqs, opts, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s #%d %+v %+v:\n got %v\nwant %v", name, i, reqs, opts, names(got.Types), names(want.Types))
			}
		}
	}
}

// TestSelectConcurrent runs Selects with several label variants at once (run with -race).
func TestSelectConcurrent(t *testing.T) {
	c := syntheticCatalog(200)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 50 {
				reqs, opts := randomRequirements(r), randomOptions(r)
				want, _ := referenceSelect(c, reqs, opts)
				got, _ := c.Select(reqs, opts)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%+v %+v: got %v, want %v", reqs, opts, names(got.Types), names(want.Types))
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSelectLabelVariantsBounded checks that more distinct options than the cache holds still
// give the right labels.
func TestSelectLabelVariantsBounded(t *testing.T) {
	c := fixtureCatalog()
	for i := range 3 * maxLabelVariants {
		region := fmt.Sprintf("region-%d", i)
		res, err := c.Select(nil, SelectOptions{Region: region})
		if err != nil || len(res.Types) == 0 {
			t.Fatal(err)
		}
		for _, s := range res.Types {
			if s.Labels[requirements.LabelRegion] != region {
				t.Fatalf("%s: region label %q, want %q", s.Type.Name, s.Labels[requirements.LabelRegion], region)
			}
		}
	}
	if len(c.variants) > maxLabelVariants {
		t.Errorf("%d cached variants, want at most %d", len(c.variants), maxLabelVariants)
	}
}
