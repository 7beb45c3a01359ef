package karpenteroracle

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/karpenter-provider-aws/pkg/apis"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awscache "github.com/aws/karpenter-provider-aws/pkg/cache"
	"github.com/aws/karpenter-provider-aws/pkg/controllers/nodeclass"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	awsoptions "github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	instancefilter "github.com/aws/karpenter-provider-aws/pkg/providers/instance/filter"
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
	oraclegen.CompareLaunches(t, minor(t), karpenterLaunch, runOf(t).launches)
}

// karpenterLaunch is the release's launch of a NodeClaim of generic pods over the case's types:
// its compatibility check on the case's class (isCompatible, from 1.11; a type it refuses has
// no available offering), the types' reserved offerings as the release's offering code builds
// them from the class's reservations (karpenterReservations; offerer), the instance provider's
// filters in filterInstanceTypes' order (compatible and available or launchable, capacity
// reservation type, Capacity Block, reserved offering, exotic, spot offerings) and Truncate to
// 60, which orders by price and checks min values; then the capacity type the launch takes
// (launchCapacityType). A type left without a launchable offering gives CreateFleet no override
// and is not launched.
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
	nc, crs, err := karpenterReservations(ctx, c)
	if err != nil {
		return oraclegen.LaunchOutcome{Crashed: err.Error()}
	}
	pl := karpenterClass(nc, c.Class)
	offers := newOfferer(ctx, casePrices(c.OnDemand), crs, nc, pl, sets.New(c.Zones...))
	its := make([]*cloudprovider.InstanceType, 0, len(c.Types))
	infos := map[ec2types.InstanceType]ec2types.InstanceTypeInfo{}
	var refused []string
	for _, lt := range c.Types {
		info := instanceTypeInfo(lt)
		if lt.Raw != nil {
			info = *lt.Raw
		}
		infos[info.InstanceType] = info
		compatible := isCompatible(info, nc, pl)
		if !compatible {
			refused = append(refused, lt.Name)
		}
		var it *cloudprovider.InstanceType
		if lt.Raw != nil {
			it = karpenterRegionType(ctx, lt, info, nc)
		} else {
			it = drawnType(lt, nc)
		}
		for _, of := range lt.Offerings {
			it.Offerings = append(it.Offerings, &cloudprovider.Offering{Price: of.Price, Available: of.Available && compatible,
				Requirements: scheduling.NewRequirements(scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, of.CapacityType),
					scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, of.Zone))})
		}
		its = append(its, offers.resolve(ctx, it, info))
	}
	its = offers.finish(ctx, its, infos)
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
	if err != nil {
		return oraclegen.LaunchOutcome{Failed: true, Refused: refused}
	}
	out = oraclegen.LaunchOutcome{CapacityType: launchCapacityType(np, launch), OneOf: oneOf, Refused: refused}
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

// drawnType is a type of a drawn family with the provider's labels as its requirements, its
// capacity, and the reservation requirements instancetype's computeRequirements writes from the
// class's reservations of the type: `reserved` among its capacity types, their ids and types
// (and interruptible flags, from 1.10).
func drawnType(lt oraclegen.LaunchType, nc *awsv1.EC2NodeClass) *cloudprovider.InstanceType {
	r := scheduling.NewLabelRequirements(lt.Labels)
	it := &cloudprovider.InstanceType{Name: lt.Name, Overhead: &cloudprovider.InstanceTypeOverhead{}, Capacity: corev1.ResourceList{
		corev1.ResourceCPU: *resource.NewQuantity(int64(lt.VCPUs), resource.DecimalSI), corev1.ResourcePods: resource.MustParse("110"),
		corev1.ResourceMemory: *resource.NewQuantity(int64(lt.MemoryMiB)<<20, resource.BinarySI)}}
	if lt.GPUs > 0 {
		it.Capacity[awsv1.ResourceNVIDIAGPU] = *resource.NewQuantity(int64(lt.GPUs), resource.DecimalSI)
	}
	cts := map[string]bool{}
	for _, of := range lt.Offerings {
		cts[of.CapacityType] = true
	}
	r.Add(scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, lt.OfferedZone...))
	mine := reservationsOf(nc, lt.Name)
	if len(mine) > 0 {
		cts[karpv1.CapacityTypeReserved] = true
	}
	r.Add(reservationRequirements(mine)...)
	r.Add(scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, slices.Collect(maps.Keys(cts))...))
	it.Requirements = r
	return it
}

// reservationRequirements are the requirements instancetype's computeRequirements writes from
// the class's reservations of a type: their ids, types and (from 1.10) interruptible flags, or
// that none of those labels exists.
func reservationRequirements(crs []awsv1.CapacityReservation) []*scheduling.Requirement {
	if len(crs) == 0 {
		return append([]*scheduling.Requirement{scheduling.NewRequirement(cloudprovider.ReservationIDLabel, corev1.NodeSelectorOpDoesNotExist),
			scheduling.NewRequirement(awsv1.LabelCapacityReservationType, corev1.NodeSelectorOpDoesNotExist)}, interruptibleRequirement(crs)...)
	}
	var ids, rtypes []string
	for _, cr := range crs {
		ids, rtypes = append(ids, cr.ID), append(rtypes, string(cr.ReservationType))
	}
	return append([]*scheduling.Requirement{scheduling.NewRequirement(cloudprovider.ReservationIDLabel, corev1.NodeSelectorOpIn, ids...),
		scheduling.NewRequirement(awsv1.LabelCapacityReservationType, corev1.NodeSelectorOpIn, rtypes...)}, interruptibleRequirement(crs)...)
}

// karpenterRegionType is a real type of the region catalog as Karpenter's cloud provider lists
// it for the class: the release's own NewInstanceType from EC2's description (its requirements,
// the class's reservations of the type among them, and its capacity, which the exotic filter
// reads).
func karpenterRegionType(ctx context.Context, lt oraclegen.LaunchType, info ec2types.InstanceTypeInfo, nc *awsv1.EC2NodeClass) *cloudprovider.InstanceType {
	ctx = awsoptions.ToContext(ctx, &awsoptions.Options{VMMemoryOverheadPercent: 0.075})
	return newInstanceType(ctx, info, lt.OfferedZone, nc.ZoneInfo(), nc, kubelet{}, awsv1.AMIFamilyAL2023, reservationsOf(nc, lt.Name))
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

// instanceTypeInfo is the type as DescribeInstanceTypes describes it to Karpenter, with what its
// compatibility check reads (no EfaInfo without EFA, as EC2 reports it).
func instanceTypeInfo(lt oraclegen.LaunchType) ec2types.InstanceTypeInfo {
	i := lt.Info
	info := ec2types.InstanceTypeInfo{InstanceType: ec2types.InstanceType(lt.Name), Hypervisor: ec2types.InstanceTypeHypervisor(i.Hypervisor),
		NitroEnclavesSupport: ec2types.NitroEnclavesSupport(i.NitroEnclavesSupport), ProcessorInfo: &ec2types.ProcessorInfo{},
		PlacementGroupInfo: &ec2types.PlacementGroupInfo{}, NetworkInfo: &ec2types.NetworkInfo{EnaSupport: ec2types.EnaSupport(i.ENASupport),
			Ipv4AddressesPerInterface: aws.Int32(int32(i.IPv4PerENI)), EfaSupported: aws.Bool(i.EFASupported)}}
	for _, f := range i.ProcessorFeatures {
		info.ProcessorInfo.SupportedFeatures = append(info.ProcessorInfo.SupportedFeatures, ec2types.SupportedAdditionalProcessorFeature(f))
	}
	for _, st := range i.PlacementStrategies {
		info.PlacementGroupInfo.SupportedStrategies = append(info.PlacementGroupInfo.SupportedStrategies, ec2types.PlacementGroupStrategy(st))
	}
	for idx, n := range i.CardENIs {
		info.NetworkInfo.NetworkCards = append(info.NetworkInfo.NetworkCards, ec2types.NetworkCardInfo{NetworkCardIndex: aws.Int32(int32(idx)),
			MaximumNetworkInterfaces: aws.Int32(int32(n))})
	}
	if i.EFASupported {
		info.NetworkInfo.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(int32(i.MaxEFAInterfaces))}
	}
	return info
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

// casePrices is the case's on-demand price table as Karpenter's pricing provider answers it
// (the reserved capacity resolver reads OnDemandPrice only). Karpenter's own provider would
// answer a type AWS does not price from its embedded table; the case gives both sides the same
// table instead, so that a type without an on-demand price gets Karpenter's reserved price of 0.
type casePrices map[string]float64

func (casePrices) LivenessProbe(*http.Request) error { return nil }
func (p casePrices) InstanceTypes() []ec2types.InstanceType {
	out := make([]ec2types.InstanceType, 0, len(p))
	for name := range p {
		out = append(out, ec2types.InstanceType(name))
	}
	return out
}
func (p casePrices) OnDemandPrice(it ec2types.InstanceType) (float64, bool) {
	v, ok := p[string(it)]
	return v, ok
}
func (casePrices) SpotPrice(ec2types.InstanceType, string) (float64, bool) { return 0, false }
func (casePrices) UpdateOnDemandPricing(context.Context) error             { return nil }
func (casePrices) UpdateSpotPricing(context.Context) error                 { return nil }

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
