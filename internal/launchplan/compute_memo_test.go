package launchplan

import (
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// realTypes are the 1,401 instance types of the VPC resource controller's limits table (the
// repository's copy), with the figures the table lacks made up so that types of equal network
// figures differ in what else Compute reads: ENA support (Xen types of older families lack it),
// vCPUs and memory, and sizes that EKS Auto Mode refuses.
func realTypes(t *testing.T) []catalog.InstanceType {
	t.Helper()
	fh, err := os.Open("../catalog/testdata/vpc-limits.tsv")
	if err != nil {
		t.Fatalf("the limits table is part of the repository: %v", err)
	}
	defer fh.Close()
	table, err := catalog.ParseVPCLimits(fh)
	if err != nil {
		t.Fatal(err)
	}
	var out []catalog.InstanceType
	for i, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range table {
			if !yield(n) {
				return
			}
		}
	}) {
		l := table[name]
		it := catalog.InstanceType{Name: name, VCPUs: 2 + i%3, MemoryMiB: 4096 * (1 + i%5), Hypervisor: l.Hypervisor, BareMetal: l.BareMetal,
			MaxENIs: l.ENIs, DefaultCardIndex: l.DefaultCardIndex, IPv4PerENI: l.IPv4PerENI, IPv6PerENI: l.IPv4PerENI, ENASupport: "required"}
		for idx, enis := range l.CardENIs {
			it.NetworkCards = append(it.NetworkCards, catalog.NetworkCard{Index: idx, MaxENIs: enis})
		}
		if l.Hypervisor == "xen" && i%2 == 0 {
			it.ENASupport = "unsupported"
		}
		out = append(out, it)
	}
	return out
}

// A type's computed capacity depends on that type alone: through the memo, in any order and
// beside any other types, it is what capacity.Compute gives for the type by itself, in every
// network and pod-capacity mode.
func TestComputeMemoMatchesEachTypeAlone(t *testing.T) {
	types := realTypes(t)
	if len(types) < 1000 {
		t.Fatalf("only %d types read", len(types))
	}
	two := 2
	for name, s := range map[string]capacity.Settings{
		"secondary IPs":            {},
		"prefix delegation":        {PrefixDelegation: true},
		"custom networking":        {CustomNetworking: true},
		"security groups for pods": {SecurityGroupsForPods: true},
		"reserved ENIs":            {ReservedENIs: 1},
		"network interfaces":       {NetworkInterfaces: []capacity.Interface{{InterfaceType: capacity.InterfaceTypeInterface}}},
		"kubelet max pods":         {MaxPods: &two},
		"auto mode":                {AutoMode: &capacity.AutoMode{}},
		"auto mode, 32":            {AutoMode: &capacity.AutoMode{IPv4PrefixSize: capacity.AutoModePrefix32, PodSubnets: true}},
	} {
		t.Run(name, func(t *testing.T) {
			for _, order := range [][]catalog.InstanceType{types, reversed(types)} {
				memo := computeMemo{settings: s, results: newComputeTable()}
				shared := 0
				for pass := range 2 { // the second pass reads what the first kept by type
					for i := range order {
						it := &order[i]
						got, gotErr := memo.compute(it)
						want, wantErr := capacity.Compute(catalog.ToNetwork(it), s)
						if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) ||
							(gotErr != nil && errKind(gotErr) != errKind(wantErr)) {
							t.Fatalf("pass %d: %s through the memo: %+v, %v; alone: %+v, %v", pass, it.Name, got, gotErr, want, wantErr)
						}
					}
				}
				shared = len(order) - memo.results.len()
				if shared < len(order)/2 {
					t.Errorf("the memo shares only %d of %d computations: it saves little", shared, len(order))
				}
			}
		})
	}
}

func reversed(in []catalog.InstanceType) []catalog.InstanceType {
	out := slices.Clone(in)
	slices.Reverse(out)
	return out
}

// errKind is what Build reads of a computation's error: the drop reason.
func errKind(err error) int { return dropReason(err) }

// The example: with security groups for pods, t3.xlarge (no trunk ENI) plans the same
// max pods alone and beside m5.xlarge (which has one).
func TestSecurityGroupsForPodsMaxPodsDoNotLeakAcrossTypes(t *testing.T) {
	m5, t3 := itype("m5.xlarge", 4, 16384, "x86_64", "nitro", 1, 4, 15), itype("t3.xlarge", 4, 16384, "x86_64", "nitro", 1, 4, 15)
	maxPods := func(t3Price float64, types ...catalog.InstanceType) int {
		in := baseInput()
		in.Class.CNI.SecurityGroupsForPods = true
		in.Catalog = catalog.New(types)
		in.Prices.OnDemand["t3.xlarge"] = t3Price
		p := mustBuild(t, in)
		for _, tp := range p.InstanceTypes {
			if tp.Name == "t3.xlarge" {
				return tp.MaxPods
			}
		}
		t.Fatalf("t3.xlarge not planned: %v", typeNames(p))
		return 0
	}
	// Whichever of the two the plan computes first (by price), t3.xlarge keeps its own figure.
	for _, price := range []float64{0.05, 0.5} {
		alone, mixed := maxPods(price, t3), maxPods(price, m5, t3)
		if alone != mixed || alone != 58 {
			t.Errorf("t3.xlarge at %v/h: max pods %d alone, %d beside m5.xlarge; want 58", price, alone, mixed)
		}
	}
}

// Pools share a computation only when every setting Compute reads is the same: each field of
// capacity.Settings (a field added later included) changes the table's key, and a maxPods
// expression, which the build's evaluator computes, gets a table of its own.
func TestComputeTablesKeyedByEverySetting(t *testing.T) {
	zero, shared := settingsKey(capacity.Settings{})
	if !shared {
		t.Fatal("plain settings are not shared")
	}
	typ := reflect.TypeOf(capacity.Settings{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() == reflect.Func {
			continue
		}
		var s capacity.Settings
		setNonZero(t, reflect.ValueOf(&s).Elem().Field(i))
		key, ok := settingsKey(s)
		switch {
		case f.Name == "MaxPodsExpression":
			if ok {
				t.Error("settings with a maxPods expression are shared")
			}
		case !ok || key == zero:
			t.Errorf("%s does not change the table's key", f.Name)
		}
	}
	if _, ok := settingsKey(capacity.Settings{MaxPodsEval: func(string, capacity.ExpressionVars) (int64, error) { return 0, nil }}); ok {
		t.Error("settings with a maxPods evaluator are shared")
	}
	a, b := newComputeMemo(capacity.Settings{ReservedENIs: 1}), newComputeMemo(capacity.Settings{ReservedENIs: 1})
	if a.results != b.results || a.results == newComputeMemo(capacity.Settings{}).results {
		t.Error("two builds with the same settings do not share one table, or other settings do")
	}
}

// setNonZero sets v (a settings field) to a value other than its zero value.
func setNonZero(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int:
		v.SetInt(3)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		setNonZero(t, v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		setNonZero(t, v.Index(0))
	case reflect.Struct:
		setNonZero(t, v.Field(0))
	default:
		t.Fatalf("a settings field of kind %s: teach setNonZero", v.Kind())
	}
}

// Pools planned at once share one table: each gets every type's own result (run with -race).
func TestComputeTableConcurrentPools(t *testing.T) {
	types := realTypes(t)
	s := capacity.Settings{PrefixDelegation: true, ReservedENIs: 2} // a table no other test fills
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for p := range 8 {
		wg.Go(func() {
			memo := newComputeMemo(s)
			for i := range types {
				it := &types[(i+p*97)%len(types)]
				got, _ := memo.compute(it)
				if want, _ := capacity.Compute(catalog.ToNetwork(it), s); !reflect.DeepEqual(got, want) {
					errs <- it.Name
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s: the shared table's result is not the type's own", name)
	}
}
