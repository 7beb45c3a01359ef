package karpenteroracle

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	pricingsdk "github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/karpenter-provider-aws/pkg/apis"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awscache "github.com/aws/karpenter-provider-aws/pkg/cache"
	"github.com/aws/karpenter-provider-aws/pkg/controllers/nodeclass"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	awsoptions "github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	instancefilter "github.com/aws/karpenter-provider-aws/pkg/providers/instance/filter"
	awspricing "github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	gocache "github.com/patrickmn/go-cache"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	fakecp "sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenteroracle/oraclegen"
	ocore "github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	ipricing "github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// oracle is the release's own code: karpenter-provider-aws (EC2NodeClass, its CRDs) and
// sigs.k8s.io/karpenter (NodePool) at the versions of the module file the test runs with. The
// API server defaults that enter the hashes are those of the fields drawn: the EC2NodeClass's
// metadataOptions and its four sub-fields, the NodePool's spec.template.spec.expireAfter
// ("720h").
func oracle(t *testing.T) oraclegen.Oracle {
	t.Helper()
	a, err := oraclegen.NewAPIServer(apis.EC2NodeClassCRD, apis.NodePoolCRD)
	if err != nil {
		t.Fatal(err)
	}
	return oraclegen.Oracle{
		Minor:                   minor(t),
		APIServer:               a,
		EC2NodeClassHashVersion: awsv1.EC2NodeClassHashVersion,
		NodePoolHashVersion:     karpv1.NodePoolHashVersion,
		EC2NodeClassHash: func(stored []byte, caBundle string) (string, error) {
			var nc awsv1.EC2NodeClass
			if err := oraclegen.DecodeStrict(stored, &nc); err != nil {
				return "", err
			}
			return ec2NodeClassHash(&nc, caBundle), nil
		},
		NodePoolHash: func(stored []byte) (string, error) {
			var np karpv1.NodePool
			if err := oraclegen.DecodeStrict(stored, &np); err != nil {
				return "", err
			}
			return np.Hash(), nil
		},
	}
}

func TestEC2NodeClassHashMatchesKarpenter(t *testing.T) {
	t.Parallel()
	oraclegen.CompareEC2NodeClasses(t, oracle(t), runOf(t).hashes)
}

func TestNodePoolHashMatchesKarpenter(t *testing.T) {
	t.Parallel()
	oraclegen.CompareNodePools(t, oracle(t), runOf(t).pools)
}

// TestInstanceTypeLabelsMatchKarpenter compares the instance-type labels the provider derives
// from raw DescribeInstanceTypes answers (its catalog conversion, then Select at the release)
// with those the release's instancetype.NewInstanceType gives, over the types Karpenter's own test
// data describes (its fake EC2 API) and over a whole region's catalog (oraclegen.RegionCatalog).
func TestInstanceTypeLabelsMatchKarpenter(t *testing.T) {
	t.Parallel()
	out, err := fake.NewEC2API().DescribeInstanceTypes(context.Background(), &ec2.DescribeInstanceTypesInput{})
	if err != nil {
		t.Fatal(err)
	}
	oraclegen.CompareLabels(t, minor(t), out.InstanceTypes, karpenterLabels, 250)
	oraclegen.CompareLabels(t, minor(t), oraclegen.RegionCatalog(t), karpenterLabels, 20000)
}

// karpenterLabels are the labels the release's instance type of info carries: the values of
// its single-valued In requirements (a key it requires not to exist is absent).
func karpenterLabels(info ec2types.InstanceTypeInfo) map[string]string {
	ctx := awsoptions.ToContext(options.ToContext(context.Background(), &options.Options{}), &awsoptions.Options{VMMemoryOverheadPercent: 0.075})
	it := newInstanceType(ctx, info, []string{"us-west-2a"}, []awsv1.ZoneInfo{{Zone: "us-west-2a", ZoneID: "usw2-az1"}}, nil, kubelet{},
		awsv1.AMIFamilyAL2023, nil)
	labels := map[string]string{}
	for key, r := range it.Requirements {
		if r.Operator() == corev1.NodeSelectorOpIn && r.Len() == 1 {
			labels[key] = r.Any()
		}
	}
	return labels
}

func TestRequirementsDriftMatchesKarpenter(t *testing.T) {
	t.Parallel()
	oraclegen.CompareRequirementsDrift(t, minor(t), func(labels map[string]string, reqs []requirements.Requirement) bool {
		var np []karpv1.NodeSelectorRequirementWithMinValues
		for _, r := range reqs {
			np = append(np, karpv1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		return scheduling.NewLabelRequirements(labels).Compatible(scheduling.NewNodeSelectorRequirementsWithMinValues(np...)) == nil
	}, runOf(t).drift)
}

func TestNodeOverlaysMatchKarpenter(t *testing.T) {
	t.Parallel()
	oraclegen.CompareOverlays(t, minor(t), karpenterOverlays, runOf(t).overlays)
}

// karpenterOverlays reconciles the release's NodeOverlay controller over the case (a fake
// API client holding the pool and the overlays, Karpenter's fake cloud provider listing the
// types) and applies its instance-type store to the pool's types.
func karpenterOverlays(c oraclegen.OverlayCase) (oraclegen.OverlayOutcome, error) {
	ctx := context.Background()
	its := make([]*cloudprovider.InstanceType, 0, len(c.Types))
	for _, tt := range c.Types {
		reqs := scheduling.NewLabelRequirements(tt.Labels)
		var zones, capTypes []string
		it := &cloudprovider.InstanceType{Name: tt.Name, Capacity: corev1.ResourceList{}}
		for of, price := range tt.Prices {
			zones, capTypes = append(zones, of.Zone), append(capTypes, of.CapacityType)
			it.Offerings = append(it.Offerings, &cloudprovider.Offering{Price: price, Available: true, Requirements: scheduling.NewRequirements(
				scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, of.CapacityType),
				scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, of.Zone))})
		}
		reqs.Add(scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
			scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, capTypes...))
		it.Requirements = reqs
		its = append(its, it)
	}
	objs := []client.Object{&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: c.Pool},
		Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{ObjectMeta: karpv1.ObjectMeta{Labels: c.TemplateLabels}}}}}
	for _, o := range c.Overlays {
		spec := v1alpha1.NodeOverlaySpec{Price: o.Price, PriceAdjustment: o.PriceAdjustment}
		for _, r := range o.Requirements {
			spec.Requirements = append(spec.Requirements, v1alpha1.NodeSelectorRequirement{Key: r.Key,
				Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		if o.Weight != nil {
			w := int32(*o.Weight)
			spec.Weight = &w
		}
		if len(o.Capacity) > 0 {
			spec.Capacity = corev1.ResourceList{}
			for k, v := range o.Capacity {
				spec.Capacity[corev1.ResourceName(k)] = resource.MustParse(v)
			}
		}
		objs = append(objs, &v1alpha1.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: o.Name}, Spec: spec})
	}
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(objs...).WithStatusSubresource(&v1alpha1.NodeOverlay{}).Build()
	cp := fakecp.NewCloudProvider()
	cp.InstanceTypes = its
	clk := clock.RealClock{}
	store := nodeoverlay.NewInstanceTypeStore()
	ctrl := newOverlayController(clk, kube, cp, store, state.NewCluster(clk, kube, cp))
	if _, err := ctrl.Reconcile(ctx, reconcile.Request{}); err != nil {
		return oraclegen.OverlayOutcome{}, err
	}
	applied, err := store.ApplyAll(c.Pool, its)
	if err != nil {
		return oraclegen.OverlayOutcome{}, err
	}
	out := oraclegen.OverlayOutcome{Prices: map[string]map[ocore.Offering]float64{}, Capacity: map[string]map[string]string{}}
	for _, it := range applied {
		out.Prices[it.Name] = map[ocore.Offering]float64{}
		for _, of := range it.Offerings {
			out.Prices[it.Name][ocore.Offering{CapacityType: of.CapacityType(), Zone: of.Zone()}] = of.Price
		}
		for k, q := range it.Capacity {
			if out.Capacity[it.Name] == nil {
				out.Capacity[it.Name] = map[string]string{}
			}
			out.Capacity[it.Name][string(k)] = q.String()
		}
	}
	var list v1alpha1.NodeOverlayList
	if err := kube.List(ctx, &list); err != nil {
		return oraclegen.OverlayOutcome{}, err
	}
	for _, o := range list.Items {
		if cond := o.StatusConditions().Get(v1alpha1.ConditionTypeValidationSucceeded); cond != nil && cond.IsFalse() {
			if cond.Reason != "Conflict" {
				return oraclegen.OverlayOutcome{}, fmt.Errorf("overlay %s failed validation: %s", o.Name, cond.Message)
			}
			out.Ignored = append(out.Ignored, o.Name)
		}
	}
	sort.Strings(out.Ignored)
	return out, nil
}

func TestLaunchMatchesKarpenter(t *testing.T) {
	t.Parallel()
	table, _ := ipricing.FallbackOnDemand("us-west-2")
	// The table Karpenter's pricing provider starts from in us-west-2: the region's own, else
	// us-east-1's (its Reset).
	karpenterTable, ok := awspricing.InitialOnDemandPricesAWS["us-west-2"]
	if !ok {
		karpenterTable = awspricing.InitialOnDemandPricesAWS["us-east-1"]
	}
	if minor(t) == minorOf(ipricing.FallbackKarpenterVersion) {
		// The plan's embedded table is this release's: equal, type by type.
		var diff []string
		for name, price := range table {
			if v, ok := karpenterTable[ec2types.InstanceType(name)]; !ok || v != price {
				diff = append(diff, fmt.Sprintf("%s: the provider's table has %v, Karpenter %s's %v", name, price, minor(t), v))
			}
		}
		if len(diff) > 0 {
			slices.Sort(diff)
			t.Fatalf("%d prices differ:\n%s", len(diff), strings.Join(diff, "\n"))
		}
		if len(table) != len(karpenterTable) {
			t.Fatalf("the provider's table has %d types, Karpenter %s's %d", len(table), minor(t), len(karpenterTable))
		}
	} else {
		// Before it, Karpenter's pricing provider starts from its own release's table, the plan
		// from the newest release's (pricing.FromPricingAPI): Karpenter's side starts from the
		// plan's table too, so that types the price answers leave out compare the code, not two
		// tables. (Karpenter's pricing package copies the outer map of its tables, not the maps of
		// each region, so this is the map its Reset reads.)
		clear(karpenterTable)
		for name, price := range table {
			karpenterTable[ec2types.InstanceType(name)] = price
		}
	}
	oraclegen.CompareLaunches(t, minor(t), karpenterLaunch, runOf(t).launches)
}

// karpenterLaunch is the release's launch of a NodeClaim of generic pods over the case's types,
// everything on Karpenter's side built by Karpenter's own code from the case's inputs: each
// type's instance type from EC2's description (instancetype.NewInstanceType: requirements, the
// class's reservations of the type, capacity), the prices from the Pricing API's and the spot
// price history's answers by its pricing provider (karpenterPrices), every offering by its
// offering provider over the class's subnets, reservations and placement group (the
// compatibility check from 1.11 among its rules: a type it refuses has no available offering),
// then the instance provider's filters in filterInstanceTypes' order (compatible and available
// or launchable, capacity reservation type, Capacity Block, reserved offering, exotic, spot
// offerings) and Truncate to 60, which orders by price and checks min values; then the capacity
// type the launch takes (launchCapacityType). A type left without a launchable offering gives
// CreateFleet no override and is not launched.
func karpenterLaunch(c oraclegen.LaunchCase) (out oraclegen.LaunchOutcome) {
	defer func() {
		if r := recover(); r != nil {
			out = oraclegen.LaunchOutcome{Crashed: fmt.Sprint(r)}
		}
	}()
	var np []karpv1.NodeSelectorRequirementWithMinValues
	for _, r := range c.Requirements {
		np = append(np, karpv1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator),
			Values: r.Values, MinValues: r.MinValues})
	}
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(np...)
	policy := options.MinValuesPolicyStrict
	if c.BestEffort {
		policy = options.MinValuesPolicyBestEffort
	}
	ctx := options.ToContext(context.Background(), &options.Options{MinValuesPolicy: policy,
		FeatureGates: options.FeatureGates{ReservedCapacity: true}})
	ctx = awsoptions.ToContext(ctx, &awsoptions.Options{VMMemoryOverheadPercent: 0.075})
	nc, crs, err := karpenterReservations(ctx, c)
	if err != nil {
		return oraclegen.LaunchOutcome{Crashed: err.Error()}
	}
	pl := karpenterClass(nc, c.Class)
	its := make([]*cloudprovider.InstanceType, 0, len(c.Types))
	infos := map[ec2types.InstanceType]ec2types.InstanceTypeInfo{}
	var refused []string
	for _, lt := range c.Types {
		info := *lt.Raw
		infos[info.InstanceType] = info
		if !isCompatible(info, nc, pl) {
			refused = append(refused, lt.Name)
		}
		its = append(its, classInstanceType(ctx, info, lt.OfferedZone, nc))
	}
	its = injectOfferings(ctx, karpenterPrices(ctx, c), crs, nc, pl, sets.New(c.Zones...), its, infos)
	var oneOf []string
	for _, f := range []instancefilter.Filter{compatibleFilter(reqs),
		instancefilter.CapacityReservationTypeFilter(reqs), instancefilter.CapacityBlockFilter(reqs), instancefilter.ReservedOfferingFilter(reqs),
		instancefilter.ExoticInstanceTypeFilter(reqs), instancefilter.SpotOfferingFilter(reqs)} {
		var candidates []string
		if f.Name() == "capacity-block-filter" {
			candidates = blockCandidates(reqs, its)
		}
		if its, _ = f.FilterReject(its); len(its) == 0 {
			return oraclegen.LaunchOutcome{Failed: true, Refused: refused}
		}
		if len(candidates) > 0 && len(its) == 1 && slices.Contains(candidates, its[0].Name) {
			oneOf = candidates
		}
	}
	launch, err := cloudprovider.InstanceTypes(its).Truncate(ctx, reqs, 60)
	tie := tieDecides(ctx, reqs, its, err == nil)
	if err != nil {
		return oraclegen.LaunchOutcome{Failed: true, Refused: refused, TieDecides: tie}
	}
	out = oraclegen.LaunchOutcome{CapacityType: launchCapacityType(np, launch), OneOf: oneOf, Refused: refused, TieDecides: tie}
	for _, it := range launch {
		price := math.MaxFloat64
		for _, of := range it.Offerings {
			if launchable(of) && reqs.IsCompatible(of.Requirements, scheduling.AllowUndefinedWellKnownLabels) && of.Price < price {
				price = of.Price
			}
		}
		if price == math.MaxFloat64 {
			continue // no launchable offering left after the spot filter: no CreateFleet override
		}
		out.Types, out.Prices = append(out.Types, it.Name), append(out.Prices, price)
	}
	return out
}

// tieDecides reports whether Truncate's min-values verdict (met: ok) changes with the order of
// its input: Truncate orders types by price with an unstable sort, so which of the types tied at
// the cut's price it keeps depends on the order it is given them. Only a launch with min values
// can be refused; it tries the input reversed and four shuffles.
func tieDecides(ctx context.Context, reqs scheduling.Requirements, its []*cloudprovider.InstanceType, ok bool) bool {
	if len(its) <= 60 || !reqs.HasMinValues() {
		return false
	}
	order := slices.Clone(its)
	slices.Reverse(order)
	rng := rand.New(rand.NewSource(int64(len(its))))
	for i := range 5 {
		if i > 0 {
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		}
		if _, err := cloudprovider.InstanceTypes(order).Truncate(ctx, reqs, 60); (err == nil) != ok {
			return true
		}
	}
	return false
}

// classInstanceType is NewInstanceType of the type for the class, offered in zones, as
// Karpenter's instance-type provider keeps it between calls: built once per type, zones and
// network interfaces (launchKey) when the class holds no reservation of it, rebuilt otherwise.
// Nothing downstream modifies an instance type Karpenter lists.
func classInstanceType(ctx context.Context, info ec2types.InstanceTypeInfo, zones []string, nc *awsv1.EC2NodeClass) *cloudprovider.InstanceType {
	crs := reservationsOf(nc, string(info.InstanceType))
	if len(crs) > 0 {
		return newInstanceType(ctx, info, zones, nc.ZoneInfo(), nc, kubelet{}, awsv1.AMIFamilyAL2023, crs)
	}
	key := string(info.InstanceType) + "|" + strings.Join(zones, ",") + "|" + launchKey(nc)
	if it, ok := instanceTypes.Load(key); ok {
		return it.(*cloudprovider.InstanceType)
	}
	it := newInstanceType(ctx, info, zones, nc.ZoneInfo(), nc, kubelet{}, awsv1.AMIFamilyAL2023, nil)
	instanceTypes.Store(key, it)
	return it
}

// instanceTypes are classInstanceType's, by key.
var instanceTypes sync.Map

// karpenterPrices is Karpenter's pricing provider after its first updates from the case's
// answers: the Pricing API's on-demand prices (Karpenter's fake Pricing API serving them as AWS's
// price list documents) and the spot price history's (its fake EC2 API), over the embedded table
// it starts from. An empty answer fails its update, which leaves that side as it started, as it
// does in a cluster.
func karpenterPrices(ctx context.Context, c oraclegen.LaunchCase) *awspricing.DefaultProvider {
	pricingAPI := &fake.PricingAPI{}
	var list []string
	for name, price := range c.OnDemand {
		list = append(list, fake.NewOnDemandPrice(name, price))
	}
	pricingAPI.GetProductsBehavior.Output.Set(&pricingsdk.GetProductsOutput{PriceList: list})
	ec2API := fake.NewEC2API()
	var history []ec2types.SpotPrice
	for name, zones := range c.Spot {
		for zone, price := range zones {
			history = append(history, ec2types.SpotPrice{InstanceType: ec2types.InstanceType(name), AvailabilityZone: aws.String(zone),
				SpotPrice: aws.String(strconv.FormatFloat(price, 'f', -1, 64)), Timestamp: aws.Time(c.Now)})
		}
	}
	ec2API.DescribeSpotPriceHistoryBehavior.Output.Set(&ec2.DescribeSpotPriceHistoryOutput{SpotPriceHistory: history})
	p := awspricing.NewDefaultProvider(pricingAPI, ec2API, "us-west-2", false)
	_ = p.UpdateOnDemandPricing(ctx)
	_ = p.UpdateSpotPricing(ctx)
	return p
}

// reservationsOf are the class's reservations of the type.
func reservationsOf(nc *awsv1.EC2NodeClass, name string) []awsv1.CapacityReservation {
	var out []awsv1.CapacityReservation
	for _, cr := range nc.CapacityReservations() {
		if cr.InstanceType == name {
			out = append(out, cr)
		}
	}
	return out
}

// kubelet is the kubelet configuration NewInstanceType reads.
type kubelet struct {
	maxPods, podsPerCore                       *int32
	kubeReserved, systemReserved, evictionHard map[string]string
}

// unavailableOfferings is Karpenter's ICE cache, empty: no case marks an offering unavailable.
var unavailableOfferings = awscache.NewUnavailableOfferings()

// karpenterReservations is the case's node class as Karpenter's node class controller records
// its reservations: the capacity reservation reconciler lists them (Karpenter's capacity
// reservation provider, over Karpenter's fake EC2 API that serves the case's reservations at its
// clock: active ones only, ended ones dropped) into the class's status with
// CapacityReservationFromEC2 (a Capacity Block in its last 40 minutes is `expiring`), and the
// provider holds each one's free instances. The class's subnets are in the case's zones.
func karpenterReservations(ctx context.Context, c oraclegen.LaunchCase) (*awsv1.EC2NodeClass, capacityreservation.Provider, error) {
	clk := clocktesting.NewFakeClock(c.Now)
	api := fake.NewEC2API()
	tags := []ec2types.Tag{{Key: aws.String("team"), Value: aws.String("ml")}}
	var out []ec2types.CapacityReservation
	for _, r := range c.Reservations {
		cr := ec2types.CapacityReservation{CapacityReservationId: aws.String(r.ID), InstanceType: aws.String(r.InstanceType),
			AvailabilityZone: aws.String(r.Zone), OwnerId: aws.String(r.OwnerID), InstanceMatchCriteria: ec2types.InstanceMatchCriteria(r.MatchCriteria),
			ReservationType: ec2types.CapacityReservationType(r.Type), AvailableInstanceCount: aws.Int32(int32(r.Available)),
			TotalInstanceCount: aws.Int32(int32(r.Total)), State: ec2types.CapacityReservationStateActive, Interruptible: aws.Bool(r.Interruptible),
			Tags: tags}
		if !r.Start.IsZero() {
			cr.StartDate = aws.Time(r.Start)
			if c.Now.Before(r.Start) {
				cr.State = ec2types.CapacityReservationStateScheduled
			}
		}
		if !r.End.IsZero() {
			cr.EndDate = aws.Time(r.End)
		}
		out = append(out, cr)
	}
	api.DescribeCapacityReservationsOutput.Set(&ec2.DescribeCapacityReservationsOutput{CapacityReservations: out})
	provider := capacityreservation.NewProvider(api, clk, gocache.New(time.Hour, 0), gocache.New(time.Hour, 0))
	family := awsv1.AMIFamilyAL2023
	nc := &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: awsv1.EC2NodeClassSpec{AMIFamily: &family,
		CapacityReservationSelectorTerms: []awsv1.CapacityReservationSelectorTerm{{Tags: map[string]string{"team": "ml"}}}}}
	for i, z := range c.Zones {
		nc.Status.Subnets = append(nc.Status.Subnets, awsv1.Subnet{ID: fmt.Sprintf("subnet-%d", i), Zone: z, ZoneID: fmt.Sprintf("usw2-az%d", i+1)})
	}
	if _, err := nodeclass.NewCapacityReservationReconciler(clk, provider).Reconcile(ctx, nc); err != nil {
		return nil, nil, err
	}
	return nc, provider, nil
}

// blockCandidates are the types CapacityBlockFilter may keep: those whose cheapest launchable,
// compatible Capacity Block offering is the cheapest of all (it keeps the first of them it meets,
// in an order that comes from a map); nil when none has one.
func blockCandidates(reqs scheduling.Requirements, its []*cloudprovider.InstanceType) []string {
	best := math.MaxFloat64
	cheapest := map[string]float64{}
	for _, it := range its {
		for _, o := range it.Offerings {
			if o.CapacityType() != karpv1.CapacityTypeReserved || !launchable(o) ||
				!reqs.IsCompatible(o.Requirements, scheduling.AllowUndefinedWellKnownLabels) ||
				o.Requirements.Get(awsv1.LabelCapacityReservationType).Any() != string(awsv1.CapacityReservationTypeCapacityBlock) {
				continue
			}
			if v, ok := cheapest[it.Name]; !ok || o.Price < v {
				cheapest[it.Name] = o.Price
			}
			best = min(best, o.Price)
		}
	}
	var out []string
	for name, v := range cheapest {
		if v == best {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// launchCapacityType is the capacity type Karpenter's instance provider launches the types as,
// shaped as its getCapacityType (unexported): reserved, then spot, when the NodeClaim's
// requirements allow it and a type has a launchable offering of it that they are compatible
// with; on-demand otherwise.
func launchCapacityType(np []karpv1.NodeSelectorRequirementWithMinValues, its []*cloudprovider.InstanceType) string {
	for _, ct := range []string{karpv1.CapacityTypeReserved, karpv1.CapacityTypeSpot} {
		reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(np...)
		if !reqs.Get(karpv1.CapacityTypeLabelKey).Has(ct) {
			continue
		}
		reqs[karpv1.CapacityTypeLabelKey] = scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, ct)
		for _, it := range its {
			if slices.ContainsFunc(it.Offerings.Compatible(reqs), launchable) {
				return ct
			}
		}
	}
	return karpv1.CapacityTypeOnDemand
}

func TestAllocatableMatchesKarpenter(t *testing.T) {
	t.Parallel()
	oraclegen.CompareAllocatable(t, minor(t), karpenterAllocatable, runOf(t).allocatable)
}

// karpenterAllocatable is the release's instance type (instancetype.NewInstanceType, with its
// default VM_MEMORY_OVERHEAD_PERCENT and no reserved ENIs) and its Allocatable().
func karpenterAllocatable(c oraclegen.AllocCase) oraclegen.AllocOutcome {
	arch := ec2types.ArchitectureTypeX8664
	if c.Arm64 {
		arch = ec2types.ArchitectureTypeArm64
	}
	info := ec2types.InstanceTypeInfo{InstanceType: ec2types.InstanceType(c.Name), Hypervisor: ec2types.InstanceTypeHypervisorNitro,
		VCpuInfo: &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(int32(c.VCPUs))}, MemoryInfo: &ec2types.MemoryInfo{SizeInMiB: aws.Int64(int64(c.MemoryMiB))},
		ProcessorInfo:         &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{arch}},
		SupportedUsageClasses: []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand},
		NetworkInfo: &ec2types.NetworkInfo{MaximumNetworkInterfaces: aws.Int32(int32(c.ENIs)), Ipv4AddressesPerInterface: aws.Int32(int32(c.IPv4PerENI)),
			DefaultNetworkCardIndex: aws.Int32(0), NetworkCards: []ec2types.NetworkCardInfo{{NetworkCardIndex: aws.Int32(0),
				MaximumNetworkInterfaces: aws.Int32(int32(c.ENIs))}}}}
	ctx := options.ToContext(context.Background(), &options.Options{})
	ctx = awsoptions.ToContext(ctx, &awsoptions.Options{VMMemoryOverheadPercent: 0.075})
	it := newInstanceType(ctx, info, []string{"us-west-2a"}, nil, nil, kubelet{maxPods: c.MaxPods, podsPerCore: c.PodsPerCore,
		kubeReserved: c.KubeReserved, systemReserved: c.SystemReserved, evictionHard: c.EvictionHard}, c.Family, nil)
	a := it.Allocatable()
	return oraclegen.AllocOutcome{CPUMilli: a.Cpu().MilliValue(), MemoryBytes: a.Memory().Value(), Pods: a.Pods().Value()}
}
