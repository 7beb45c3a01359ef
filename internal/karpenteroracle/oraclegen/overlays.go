package oraclegen

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// OverlayCase is one random cluster of one NodePool: its name and template labels, the instance
// types Karpenter lists for it (labels and priced offerings) and the cluster's NodeOverlays.
type OverlayCase struct {
	Pool           string
	TemplateLabels map[string]string
	Types          []OverlayType
	Overlays       []nodeoverlay.Config
}

// OverlayType is an instance type with its own labels and an hourly price per offering.
type OverlayType struct {
	Name   string
	Labels map[string]string
	Prices map[nodeoverlay.Offering]float64
}

// OverlayOutcome is what the overlays did: each offering's price, each type's extended
// capacity, and the overlays ignored for a conflict.
type OverlayOutcome struct {
	Prices   map[string]map[nodeoverlay.Offering]float64
	Capacity map[string]map[string]string
	Ignored  []string
}

var overlayFamilies = []struct {
	family, arch string
	sizes        []string
}{
	{"m5", "amd64", []string{"large", "xlarge", "2xlarge"}},
	{"c6g", "arm64", []string{"large", "xlarge"}},
	{"r6i", "amd64", []string{"large", "xlarge"}},
	{"g5", "amd64", []string{"xlarge"}},
}

var (
	overlayZones      = []string{"us-west-2a", "us-west-2b"}
	overlayCapTypes   = []string{"on-demand", "spot"}
	overlayResources  = []string{"example.com/slot", "example.com/disk"}
	overlayNames      = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	overlayAdjustment = []string{"+0.05", "-0.02", "+10%", "-50%", "-90%", "-100%", "+250%", "-1"}
)

// randomOverlayCase draws a pool, its types and one to five overlays of small weights (so that
// equal weights, and so conflicts, are frequent).
func randomOverlayCase(rng *rand.Rand) OverlayCase {
	c := OverlayCase{Pool: []string{"general", "batch"}[rng.Intn(2)], TemplateLabels: map[string]string{}}
	if rng.Intn(2) == 0 {
		c.TemplateLabels["example.com/team"] = []string{"a", "b"}[rng.Intn(2)]
	}
	for _, f := range overlayFamilies {
		for i, size := range f.sizes {
			name := f.family + "." + size
			t := OverlayType{Name: name, Prices: map[nodeoverlay.Offering]float64{}, Labels: map[string]string{
				requirements.LabelInstanceType: name, requirements.LabelInstanceFamily: f.family, requirements.LabelArch: f.arch,
				requirements.LabelInstanceCPU: strconv.Itoa(2 << i)}}
			for _, z := range overlayZones {
				for _, ct := range overlayCapTypes {
					if rng.Intn(6) > 0 {
						t.Prices[nodeoverlay.Offering{CapacityType: ct, Zone: z}] = float64(1+rng.Intn(400)) / 1000
					}
				}
			}
			if len(t.Prices) > 0 {
				c.Types = append(c.Types, t)
			}
		}
	}
	names := slices.Clone(overlayNames)
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for i := range 1 + rng.Intn(5) {
		c.Overlays = append(c.Overlays, randomOverlay(rng, names[i]))
	}
	return c
}

func randomOverlay(rng *rand.Rand, name string) nodeoverlay.Config {
	o := nodeoverlay.Config{Name: name}
	for range 1 + rng.Intn(3) {
		o.Requirements = append(o.Requirements, randomOverlayRequirement(rng))
	}
	switch k := rng.Intn(10); {
	case k < 4:
		o.PriceAdjustment = &overlayAdjustment[rng.Intn(len(overlayAdjustment))]
	case k < 6:
		p := strconv.FormatFloat(float64(rng.Intn(300))/1000, 'f', -1, 64)
		o.Price = &p
	case k < 9:
		o.Capacity = randomCapacity(rng)
	default:
		o.PriceAdjustment = &overlayAdjustment[rng.Intn(len(overlayAdjustment))]
		o.Capacity = randomCapacity(rng)
	}
	if rng.Intn(3) > 0 {
		w := int64([]int{1, 2, 5}[rng.Intn(3)])
		o.Weight = &w
	}
	return o
}

func randomCapacity(rng *rand.Rand) map[string]string {
	out := map[string]string{}
	for _, r := range overlayResources {
		if len(out) == 0 || rng.Intn(2) == 0 {
			out[r] = strconv.Itoa(1 + rng.Intn(8))
		}
	}
	return out
}

func randomOverlayRequirement(rng *rand.Rand) nodeoverlay.Requirement {
	pick := func(vs ...string) []string { return someOf(rng, vs) }
	in := func(key string, vs ...string) nodeoverlay.Requirement {
		op := requirements.OpIn
		if rng.Intn(4) == 0 {
			op = requirements.OpNotIn
		}
		return nodeoverlay.Requirement{Key: key, Operator: op, Values: pick(vs...)}
	}
	switch rng.Intn(9) {
	case 0:
		return in(requirements.LabelInstanceType, "m5.large", "m5.xlarge", "c6g.large", "r6i.xlarge", "g5.xlarge")
	case 1:
		return in(requirements.LabelInstanceFamily, "m5", "c6g", "r6i", "g5")
	case 2:
		return in(requirements.LabelArch, "amd64", "arm64")
	case 3:
		op := []requirements.Operator{requirements.OpGt, requirements.OpLt}[rng.Intn(2)]
		return nodeoverlay.Requirement{Key: requirements.LabelInstanceCPU, Operator: op, Values: []string{strconv.Itoa(1 + rng.Intn(8))}}
	case 4:
		return in(requirements.LabelCapacityType, overlayCapTypes...)
	case 5:
		return in(requirements.LabelZone, overlayZones...)
	case 6:
		return in(requirements.LabelNodePool, "general", "batch")
	case 7:
		if rng.Intn(2) == 0 {
			return in("example.com/team", "a", "b")
		}
		return nodeoverlay.Requirement{Key: "example.com/team", Operator: []requirements.Operator{requirements.OpExists,
			requirements.OpDoesNotExist}[rng.Intn(2)]}
	default:
		return nodeoverlay.Requirement{Key: requirements.LabelInstanceFamily, Operator: requirements.OpExists}
	}
}

// someOf keeps each of vs with even odds, and the first when none is kept.
func someOf(rng *rand.Rand, vs []string) []string {
	var out []string
	for _, v := range vs {
		if rng.Intn(2) == 0 {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		out = vs[:1]
	}
	return out
}

// providerOverlays is the provider's answer: nodeoverlay.Apply on the types as a pool's plan
// labels them (own labels, the pool's name and template labels).
func providerOverlays(c OverlayCase) OverlayOutcome {
	types := make([]nodeoverlay.Type, len(c.Types))
	for i, t := range c.Types {
		labels := map[string]string{requirements.LabelNodePool: c.Pool}
		for k, v := range c.TemplateLabels {
			labels[k] = v
		}
		for k, v := range t.Labels {
			labels[k] = v
		}
		types[i] = nodeoverlay.Type{Name: t.Name, Labels: labels}
		for of := range t.Prices {
			types[i].Offerings = append(types[i].Offerings, of)
		}
	}
	a := nodeoverlay.Apply(c.Overlays, types)
	out := OverlayOutcome{Prices: map[string]map[nodeoverlay.Offering]float64{}, Capacity: map[string]map[string]string{}}
	for _, t := range c.Types {
		out.Prices[t.Name] = map[nodeoverlay.Offering]float64{}
		for of, base := range t.Prices {
			out.Prices[t.Name][of], _, _ = a.Price(t.Name, of, base, true)
		}
		if q, _ := a.Capacity(t.Name); len(q) > 0 {
			out.Capacity[t.Name] = q
		}
	}
	for _, cf := range a.Conflicts {
		out.Ignored = append(out.Ignored, cf.Overlay)
	}
	slices.Sort(out.Ignored)
	return out
}

// CompareOverlays draws random clusters and compares what the overlays do to a pool's types for
// Karpenter minor (karpenter: its NodeOverlay controller reconciled over the case and its
// instance-type store applied to the pool) and for the provider (nodeoverlay.Apply): every
// offering's price, every type's extended capacity and which overlays are ignored as
// conflicts. It fails on any disagreement, below the floor, or when too few cases change a
// price, add capacity or hold a conflict.
func CompareOverlays(t *testing.T, minor string, karpenter func(OverlayCase) (OverlayOutcome, error), run Run) {
	t.Helper()
	rng := rand.New(rand.NewSource(run.Seed))
	cases, offerings, priced, capacity, conflicts, bad := 0, 0, 0, 0, 0, 0
	for range run.Cases {
		c := randomOverlayCase(rng)
		want, err := karpenter(c)
		if err != nil {
			t.Fatalf("Karpenter %s: %v", minor, err)
		}
		got := providerOverlays(c)
		cases++
		if d := overlayDiff(c, want, got); d != "" {
			if bad++; bad <= maxReported {
				t.Errorf("Karpenter %s: pool %s %v, overlays %s: %s", minor, c.Pool, c.TemplateLabels, describeOverlays(c.Overlays), d)
			}
		}
		for _, tt := range c.Types {
			for of, base := range tt.Prices {
				offerings++
				if want.Prices[tt.Name][of] != base {
					priced++
				}
			}
		}
		capacity += len(want.Capacity)
		if len(want.Ignored) > 0 {
			conflicts++
		}
	}
	t.Logf("Karpenter %s: %d clusters, %d offerings compared (%d repriced), %d types given capacity, %d clusters with a conflict; %d disagreements",
		minor, cases, offerings, priced, capacity, conflicts, bad)
	if bad > 0 {
		t.Fatalf("%d of %d cases disagree", bad, cases)
	}
	if cases < run.Floor {
		t.Fatalf("compared %d cases, under the floor of %d", cases, run.Floor)
	}
	if priced < offerings/10 || capacity < cases/10 || conflicts < cases/20 {
		t.Fatalf("the draw does not exercise the rules: %d of %d offerings repriced, %d capacities, %d conflicts in %d cases",
			priced, offerings, capacity, conflicts, cases)
	}
}

func overlayDiff(c OverlayCase, want, got OverlayOutcome) string {
	if !slices.Equal(want.Ignored, got.Ignored) {
		return fmt.Sprintf("ignored: Karpenter %v, the provider %v", want.Ignored, got.Ignored)
	}
	for _, t := range c.Types {
		for of := range t.Prices {
			if w, g := want.Prices[t.Name][of], got.Prices[t.Name][of]; math.Abs(w-g) > 1e-9 {
				return fmt.Sprintf("%s %s %s: Karpenter %v, the provider %v", t.Name, of.CapacityType, of.Zone, w, g)
			}
		}
		if !sameQuantities(want.Capacity[t.Name], got.Capacity[t.Name]) {
			return fmt.Sprintf("%s capacity: Karpenter %v, the provider %v", t.Name, want.Capacity[t.Name], got.Capacity[t.Name])
		}
	}
	return ""
}

func sameQuantities(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			return false
		}
		qa, errA := resource.ParseQuantity(v)
		qb, errB := resource.ParseQuantity(w)
		if errA != nil || errB != nil || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

func describeOverlays(os []nodeoverlay.Config) string {
	s := ""
	for _, o := range os {
		w := "-"
		if o.Weight != nil {
			w = strconv.FormatInt(*o.Weight, 10)
		}
		s += fmt.Sprintf("[%s w=%s %v %s] ", o.Name, w, o.Requirements, o.Change())
	}
	return s
}
