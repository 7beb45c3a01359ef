package oraclegen

import (
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient/ec2catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// LaunchCase is one random dynamic pool and the instance types Karpenter lists for it, with
// the prices both sides read: what Karpenter's launch of a NodeClaim of generic pods does with
// them is compared with the provider's launch plan.
type LaunchCase struct {
	// Requirements are the NodePool's, which the NodeClaim carries.
	Requirements []requirements.Requirement
	Types        []LaunchType
	// Zones are the zones of the class's subnets.
	Zones []string
	// OnDemand and Spot are what the AWS Pricing API and EC2's spot price history answer for the
	// case's types (on-demand per type, spot per type and zone; some types are left out of each):
	// the price inputs both sides read (the provider through pricing.FromPricingAPI, Karpenter
	// through its pricing provider).
	OnDemand map[string]float64
	Spot     map[string]map[string]float64
	// Reservations are the class's capacity reservations and Capacity Blocks as EC2 describes
	// them (active, or scheduled while Start is after Now), in no order; Now is the case's clock.
	Reservations []reservations.Reservation
	Now          time.Time
	// Class is what the class sets of the settings Karpenter's compatibility checks read.
	Class LaunchClass
	// BestEffort is Karpenter's BestEffort min-values policy (Strict otherwise): a launch whose
	// 60 cheapest types miss a requirement's min values goes ahead.
	BestEffort bool
}

// LaunchType is an instance type of the region catalog as the case offers it: EC2's own
// description of it (DescribeInstanceTypes), from which Karpenter's side builds its instance type
// with its own code, sharing nothing with the provider's conversion, and the zones of the class's
// subnets it is offered in (DescribeInstanceTypeOfferings).
type LaunchType struct {
	Name        string
	OfferedZone []string
	Raw         *ec2types.InstanceTypeInfo
}

// LaunchOutcome is the launch: the types sent to CreateFleet in order, each with its sort price,
// and the capacity type it launches as, or the reason there is none (a min-values shortfall,
// nothing launchable).
type LaunchOutcome struct {
	Types        []string
	Prices       []float64
	CapacityType string
	// OneOf, when set, are the types Karpenter picks its single launch type from at random: its
	// CapacityBlockFilter keeps the first type with the cheapest Capacity Block offering, in the
	// order of a map, so any type tied at that price may be the one.
	OneOf  []string
	Failed bool
	// Crashed is Karpenter's panic, when its launch panics on the case (no launch).
	Crashed string
	// TieDecides is set when whether the launch meets its min values depends on which of the
	// types tied in price at the 60-type cut Karpenter's unstable sort keeps: another order of its
	// input gives the other outcome. Either outcome of the provider then agrees.
	TieDecides bool
	// Refused are the types Karpenter's compatibility check refuses to the case's class (Karpenter's
	// side only).
	Refused []string
}

var launchZones = []string{"us-west-2a", "us-west-2b", "us-west-2c"}

// regionTypes are the region catalog's types, each as EC2 describes it and as the provider's
// catalog load converts it.
var regionTypes = sync.OnceValue(func() []regionType {
	infos, err := regionInfos()
	if err != nil {
		panic(err)
	}
	out := make([]regionType, len(infos))
	for i := range infos {
		out[i] = regionType{raw: infos[i], it: ec2catalog.InstanceType(&infos[i])}
	}
	return out
})

type regionType struct {
	raw ec2types.InstanceTypeInfo
	it  catalog.InstanceType
}

// randomCatalog draws 40 to 240 of the region catalog's real types (every family Karpenter
// lists), offered in random zones, with their EC2 descriptions by name, and the price answers:
// on-demand per type (one type in twelve left out, which Karpenter then prices from its embedded
// table when it has the type) and spot per zone (one zone in six left out), often equal so that
// ties occur; the provider's prices are built from the answers as its AWS client builds them.
func randomCatalog(rng *rand.Rand) (*catalog.Catalog, *pricing.Prices, map[string]*ec2types.InstanceTypeInfo, map[string]float64) {
	all := regionTypes()
	onDemand, spot := map[string]float64{}, map[string]map[string]float64{}
	var types []catalog.InstanceType
	raw := map[string]*ec2types.InstanceTypeInfo{}
	for _, i := range rng.Perm(len(all))[:40+rng.Intn(200)] {
		it := all[i].it
		if !it.KarpenterEligible() {
			continue // Karpenter lists only HVM x86_64 and arm64 types (DescribeInstanceTypes' filter)
		}
		it.Zones = nil
		for _, z := range launchZones {
			if rng.Intn(5) > 0 {
				it.Zones = append(it.Zones, z)
			}
		}
		if len(it.Zones) == 0 {
			continue
		}
		types = append(types, it)
		raw[it.Name] = &all[i].raw
		vcpus := max(it.VCPUs, 1)
		if rng.Intn(12) > 0 {
			onDemand[it.Name] = float64(vcpus*(20+rng.Intn(4))) / 1000
		}
		for _, z := range it.Zones {
			if rng.Intn(6) > 0 {
				if spot[it.Name] == nil {
					spot[it.Name] = map[string]float64{}
				}
				spot[it.Name][z] = float64(vcpus*(5+rng.Intn(20))) / 1000
			}
		}
	}
	prices := pricing.FromPricingAPI("us-west-2", onDemand)
	prices.Spot, prices.SpotSource = spot, pricing.SourceSpotAPI
	return catalog.New(types), prices, raw, onDemand
}

var launchCategories = []string{"c", "m", "r", "g", "p", "t"}

// randomLaunchRequirements draws one to four NodePool requirements on the keys that narrow a
// launch, sometimes with min_values.
func randomLaunchRequirements(rng *rand.Rand) []requirements.Requirement {
	var out []requirements.Requirement
	pick := func(vs []string) []string { return someOf(rng, vs) }
	for range 1 + rng.Intn(4) {
		var r requirements.Requirement
		switch rng.Intn(6) {
		case 0:
			r = requirements.Requirement{Key: requirements.LabelInstanceCategory, Operator: requirements.OpIn, Values: pick(launchCategories)}
			if rng.Intn(4) == 0 {
				mv := 1 + rng.Intn(3)
				r.MinValues = &mv
				if len(r.Values) < mv {
					r.Values = launchCategories[:mv]
				}
			}
		case 1:
			r = requirements.Requirement{Key: requirements.LabelArch, Operator: requirements.OpIn, Values: pick([]string{"amd64", "arm64"})}
		case 2:
			r = requirements.Requirement{Key: requirements.LabelCapacityType, Operator: requirements.OpIn, Values: pick([]string{"spot", "on-demand"})}
		case 3:
			r = requirements.Requirement{Key: requirements.LabelZone, Operator: requirements.OpIn, Values: pick(launchZones)}
		case 4:
			r = requirements.Requirement{Key: requirements.LabelInstanceCPU, Operator: []requirements.Operator{requirements.OpGt, requirements.OpLt}[rng.Intn(2)],
				Values: []string{strconv.Itoa([]int{1, 3, 7, 15}[rng.Intn(4)])}}
		default:
			r = requirements.Requirement{Key: requirements.LabelInstanceFamily, Operator: requirements.OpNotIn, Values: pick([]string{"t3", "m5", "c6g", "g5"})}
		}
		out = append(out, r)
	}
	return out
}

// providerPlan is the provider's plan of case c's pool: launchplan.Build on the case's catalog,
// prices, requirements, reservations, clock and class settings, for Karpenter minor; failed when
// Build fails.
func providerPlan(minor string, cat *catalog.Catalog, prices *pricing.Prices, c LaunchCase) (launchplan.Plan, bool) {
	var subnets []launchplan.Subnet
	for i, z := range launchZones {
		subnets = append(subnets, launchplan.Subnet{ID: fmt.Sprintf("subnet-%d", i), Zone: z, ZoneID: fmt.Sprintf("usw2-az%d", i+1), AvailableIPs: 4000})
	}
	class := launchplan.Class{Name: "default", AMIFamily: capacity.FamilyAL2023, Subnets: subnets, SecurityGroupIDs: []string{"sg-1"},
		MetadataOptions: launchplan.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPTokens: "required", HTTPPutResponseHopLimit: 1},
		InstanceProfile: "demo-node", Reservations: c.Reservations}
	c.Class.apply(&class)
	p, errs := launchplan.Build(launchplan.Input{PoolName: "general", ClusterName: "demo", Region: "us-west-2", Catalog: cat, Prices: prices,
		Requirements: c.Requirements, KarpenterVersion: minor, Now: c.Now, Class: class, MinValuesBestEffort: c.BestEffort})
	return p, len(errs) > 0
}

// providerLaunch is the provider's launch (providerPlan): its LaunchTypes with their prices, and
// the capacity type of its launch plan's first option, the one Karpenter launches as.
func providerLaunch(minor string, cat *catalog.Catalog, prices *pricing.Prices, c LaunchCase) LaunchOutcome {
	p, failed := providerPlan(minor, cat, prices, c)
	if failed {
		return LaunchOutcome{Failed: true}
	}
	out := LaunchOutcome{Types: p.LaunchTypes}
	if len(p.LaunchPlan) > 0 {
		out.CapacityType = p.LaunchPlan[0].CapacityType
	}
	byName := map[string]float64{}
	for _, t := range p.InstanceTypes {
		byName[t.Name] = t.Price
	}
	for _, name := range p.LaunchTypes {
		out.Prices = append(out.Prices, byName[name])
	}
	return out
}

// karpenterTypes are the catalog's types Karpenter's cloud provider lists for the class: those
// offered in a zone of the class's subnets.
func karpenterTypes(cat *catalog.Catalog, raw map[string]*ec2types.InstanceTypeInfo) []LaunchType {
	var out []LaunchType
	for _, it := range cat.Types() {
		lt := LaunchType{Name: it.Name, Raw: raw[it.Name]}
		for _, z := range launchZones {
			if it.OfferedIn(z) {
				lt.OfferedZone = append(lt.OfferedZone, z)
			}
		}
		if len(lt.OfferedZone) > 0 {
			out = append(out, lt)
		}
	}
	return out
}

// CompareLaunches draws random pools and compares the launch of a NodeClaim of generic pods
// for Karpenter minor (karpenter: its instance-type compatibility check on the case's class,
// its instance provider's filters — compatible and launchable, capacity reservation type,
// Capacity Block, reserved offering, exotic, spot — and Truncate, which orders by price and keeps
// 60, checking min values) with the provider's launch plan (LaunchTypes, and the capacity type of
// LaunchPlan's first option). Two cases in five give the class random capacity reservations
// (randomReservations) and, often, a capacity-type requirement on `reserved`; six in ten give it
// settings Karpenter's compatibility check reads (randomLaunchClass: network interfaces only
// where run.Settings has them). Orders are compared modulo ties: the same prices in the same
// order and, within each price, the same types; where a tie at the cut decides whether min values
// are met (LaunchOutcome.TieDecides), either verdict agrees. It fails on any disagreement or
// panic of Karpenter's, below the floor,
// when too few launches are long enough to be cut or lose types to a filter, when fewer than
// run.Reserved cases launch into reserved capacity, or when a setting of run.Settings decides
// fewer than one launch in 50 of the kind (settingTally).
func CompareLaunches(t *testing.T, minor string, karpenter func(LaunchCase) LaunchOutcome, run Run) {
	t.Helper()
	rng := rand.New(rand.NewSource(run.Seed))
	var n launchTally
	settings := newSettingTally()
	// The cases are drawn in order from the seed, compared on every core, and tallied in order.
	cases := drawLaunches(rng, run)
	parallel(len(cases), func(i int) { cases[i].compare(minor, karpenter) })
	for _, d := range cases {
		cat, c, want, got := d.cat, d.c, d.want, d.got
		if !n.count(t, minor, c, want, got) {
			continue
		}
		if d.strictFailed {
			n.bestEffort++
		}
		settings.count(minor, c, allowedNames(cat.Types(), c), want)
		if d := launchDiff(want, got); d != "" {
			if n.bad++; n.bad <= maxReported {
				t.Errorf("Karpenter %s: %s: %s", minor, describeCase(c), d)
			}
		}
	}
	compared := n.cases - n.crashed // a case Karpenter panicked on is drawn, not compared
	t.Logf("Karpenter %s: %d pools compared (%d launch, %d of them cut to %d types; %d do not launch), %d disagreements", minor, compared,
		n.launched, n.cut, launchplan.MaxInstanceTypes, n.failed, n.bad)
	t.Logf("Karpenter %s: %d pools with reservations: %d launch reserved (%d into a Capacity Block), %d launch on-demand or spot; "+
		"Karpenter panics on %d", minor, n.withRes, n.reserved, n.blocks, n.fellBack, n.crashed)
	t.Logf("Karpenter %s: pools with class settings compared %v, of them launches a setting decided %v", minor, settings.compared,
		settings.decided)
	t.Logf("Karpenter %s: %d launches go ahead under the BestEffort min-values policy that Strict refuses", minor, n.bestEffort)
	t.Logf("Karpenter %s: %d pools whose min values pass or fail by the order Karpenter's unstable sort gives a tie at the cut",
		minor, n.tieDecided)
	if n.bad > 0 {
		t.Fatalf("%d of %d cases disagree", n.bad, compared)
	}
	if n.crashed > 0 {
		t.Fatalf("Karpenter %s panics on %d cases", minor, n.crashed)
	}
	if compared < run.Floor || n.launched < compared/2 || n.cut < compared/20 || n.failed < compared/20 || n.reserved < run.Reserved ||
		n.blocks < run.Reserved/10 || n.fellBack < run.Reserved/10 || n.bestEffort < run.Cases/minBestEffortShare {
		t.Fatalf("compared %d cases (%d launch, %d cut, %d fail; %d reserved, %d into a block, %d with reservations fall back): under "+
			"the floor of %d (%d reserved), or the draw misses a side (%d decided by the BestEffort policy, floor %d)", compared, n.launched,
			n.cut, n.failed, n.reserved, n.blocks, n.fellBack, run.Floor, run.Reserved, n.bestEffort, run.Cases/minBestEffortShare)
	}
	if msg := settings.check(minor, run.Settings, run.Cases/50); msg != "" {
		t.Fatal(msg)
	}
}

// drawnLaunch is a launch case with the catalog and prices the provider plans it with, and
// both sides' outcomes once compared.
type drawnLaunch struct {
	cat          *catalog.Catalog
	prices       *pricing.Prices
	c            LaunchCase
	want, got    LaunchOutcome
	strictFailed bool // Karpenter refuses the case under the Strict policy (BestEffort cases)
}

// drawLaunches draws run.Cases launch cases from rng, in order.
func drawLaunches(rng *rand.Rand, run Run) []drawnLaunch {
	cases := make([]drawnLaunch, run.Cases)
	for i := range cases {
		cat, prices, raw, onDemand := randomCatalog(rng)
		reqs := randomLaunchRequirements(rng)
		var rs []reservations.Reservation
		now := launchEpoch.Add(time.Duration(rng.Intn(90*24*60)) * time.Minute)
		if rng.Intn(5) < 2 {
			rs = randomReservations(rng, cat, reqs, now)
			reqs = withReservedRequirement(rng, reqs)
		}
		c := LaunchCase{Requirements: reqs, Types: karpenterTypes(cat, raw), Zones: launchZones, OnDemand: onDemand, Spot: prices.Spot,
			Reservations: rs, Now: now, Class: randomLaunchClass(rng, slices.Contains(run.Settings, SettingNetworkInterfaces), len(rs) > 0)}
		c.BestEffort = hasMinValues(reqs) && rng.Intn(2) == 0
		cases[i] = drawnLaunch{cat: cat, prices: prices, c: c}
	}
	return cases
}

// compare fills in both sides' outcomes of the case, and for a BestEffort case that launches,
// whether Strict would refuse it.
func (d *drawnLaunch) compare(minor string, karpenter func(LaunchCase) LaunchOutcome) {
	d.want = karpenter(d.c)
	d.got = providerLaunch(minor, d.cat, d.prices, d.c)
	if d.c.BestEffort && d.want.Crashed == "" && !d.want.Failed {
		// Both policies on the same case: the ones Strict would refuse are what BestEffort decides.
		strict := d.c
		strict.BestEffort = false
		d.strictFailed = karpenter(strict).Failed
	}
}

// parallel calls f for 0 … n-1 on GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// minBestEffortShare: at least one case in this many must launch under the BestEffort
// min-values policy where Strict refuses it.
const minBestEffortShare = 500

// hasMinValues reports whether a requirement sets min values.
func hasMinValues(reqs []requirements.Requirement) bool {
	return slices.ContainsFunc(reqs, func(r requirements.Requirement) bool { return r.MinValues != nil })
}

// launchTally counts a launch comparison's cases by what Karpenter did with them.
type launchTally struct {
	cases, launched, failed, cut, bad            int
	withRes, reserved, blocks, fellBack, crashed int
	bestEffort                                   int // launched under BestEffort, refused under Strict
	// tieDecided counts the cases whose min values Karpenter meets in one order of a tie at the
	// cut and misses in another (LaunchOutcome.TieDecides).
	tieDecided int
}

// count records case c, Karpenter's outcome want and the provider's got; false when Karpenter
// panicked on the case (logged, not compared).
func (n *launchTally) count(t *testing.T, minor string, c LaunchCase, want, got LaunchOutcome) bool {
	t.Helper()
	n.cases++
	if len(c.Reservations) > 0 {
		n.withRes++
	}
	if want.TieDecides {
		n.tieDecided++
	}
	switch {
	case want.Crashed != "":
		if n.crashed++; n.crashed <= maxReported {
			t.Logf("Karpenter %s panics on its launch (no launch; the provider plans %v as %s): %s: %s", minor, got.Types,
				got.CapacityType, describeCase(c), want.Crashed)
		}
		return false
	case want.Failed:
		n.failed++
	case len(want.Types) == launchplan.MaxInstanceTypes:
		n.cut++
		fallthrough
	default:
		n.launched++
		switch {
		case want.CapacityType == requirements.CapacityTypeReserved:
			n.reserved++
			if want.OneOf != nil {
				n.blocks++
			}
		case len(c.Reservations) > 0:
			n.fellBack++
		}
	}
	return true
}

func launchDiff(want, got LaunchOutcome) string {
	if want.Failed || got.Failed {
		if want.Failed != got.Failed && !want.TieDecides {
			return fmt.Sprintf("Karpenter launches %v %v as %s, the provider %v %v as %s (failed: Karpenter %v, the provider %v)",
				want.Types, want.Prices, want.CapacityType, got.Types, got.Prices, got.CapacityType, want.Failed, got.Failed)
		}
		return ""
	}
	if want.CapacityType != got.CapacityType {
		return fmt.Sprintf("capacity types differ: Karpenter launches %v %v as %s, the provider %v %v as %s", want.Types, want.Prices,
			want.CapacityType, got.Types, got.Prices, got.CapacityType)
	}
	if want.OneOf != nil {
		if len(got.Types) != 1 || !slices.Contains(want.OneOf, got.Types[0]) || !slices.Equal(want.Prices, got.Prices) {
			return fmt.Sprintf("Karpenter launches one Capacity Block type, one of %v at %v; the provider %v %v", want.OneOf, want.Prices,
				got.Types, got.Prices)
		}
		return ""
	}
	if !slices.Equal(want.Prices, got.Prices) {
		return fmt.Sprintf("launch prices differ:\n  Karpenter %v %v\n  provider  %v %v", want.Types, want.Prices, got.Types, got.Prices)
	}
	for i := 0; i < len(want.Types); {
		j := i
		for j < len(want.Types) && want.Prices[j] == want.Prices[i] {
			j++
		}
		w, g := slices.Sorted(slices.Values(want.Types[i:j])), slices.Sorted(slices.Values(got.Types[i:j]))
		// A tie the cut goes through: which of the tied types stay is Karpenter's unstable sort's
		// choice (the plan keeps them by name); only their number and price must agree.
		cutTie := j == len(want.Types) && j == launchplan.MaxInstanceTypes
		if !cutTie && !slices.Equal(w, g) {
			return fmt.Sprintf("at price %v: Karpenter %v, the provider %v", want.Prices[i], w, g)
		}
		i = j
	}
	return ""
}

// describeCase names a case's requirements, reservations and clock for a report.
func describeCase(c LaunchCase) string {
	s := "requirements " + describeRequirements(c.Requirements)
	if c.BestEffort {
		s += " (min values BestEffort)"
	}
	if c.Class.Kind != "" {
		s += "; class " + c.Class.String()
	}
	if len(c.Reservations) == 0 {
		return s
	}
	var rs []string
	for _, r := range c.Reservations {
		d := r.String()
		if r.MatchCriteria == "targeted" {
			d += " targeted"
		}
		if !r.Start.IsZero() {
			d += fmt.Sprintf(" start %+v", r.Start.Sub(c.Now))
		}
		if !r.End.IsZero() {
			d += fmt.Sprintf(" end %+v", r.End.Sub(c.Now))
		}
		if od, ok := c.OnDemand[r.InstanceType]; ok {
			d += fmt.Sprintf(" on-demand %v", od)
		}
		rs = append(rs, d)
	}
	return s + "; reservations (start and end from now) " + strings.Join(rs, ", ")
}

func describeRequirements(reqs []requirements.Requirement) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = fmt.Sprintf("%s %s %v", r.Key, r.Operator, r.Values)
		if r.MinValues != nil {
			parts[i] += fmt.Sprintf(" min %d", *r.MinValues)
		}
	}
	return strings.Join(parts, "; ")
}
