package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// fakeEC2 holds instances and templates in memory; launches take one instance per request
// from the first override, ids in sequence.
type fakeEC2 struct {
	mu         sync.Mutex
	instances  []awsclient.Instance
	templates  []awsclient.LaunchTemplate
	tokens     []string
	launches   int
	deleted    []string
	now        time.Time
	failLaunch error
	// profileMissing answers that many launches with EC2's per-override error for an instance
	// profile it does not see yet, launching nothing.
	profileMissing int
	requests       []awsclient.LaunchRequest
}

func (f *fakeEC2) FindByTags(_ context.Context, tags map[string]string) ([]awsclient.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []awsclient.Instance
	for _, i := range f.instances {
		if i.State != "terminated" && hasAll(i.Tags, tags) {
			out = append(out, i)
		}
	}
	return out, nil
}

func hasAll(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

func (f *fakeEC2) Launch(_ context.Context, req awsclient.LaunchRequest) ([]string, []awsclient.FleetError, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failLaunch != nil {
		return nil, nil, f.failLaunch
	}
	f.launches++
	f.tokens = append(f.tokens, req.ClientToken)
	f.requests = append(f.requests, req)
	if f.profileMissing > 0 {
		f.profileMissing--
		return nil, []awsclient.FleetError{{Code: "InvalidParameterValue", InstanceType: req.Overrides[0].InstanceType, SubnetID: req.Overrides[0].SubnetID,
			Message: "Value (nodeplane-c1-static-0123456789) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name"}}, nil
	}
	var ids []string
	for range req.Count {
		f.now = f.now.Add(time.Second)
		o := req.Overrides[0]
		id := fmt.Sprintf("i-%03d", len(f.instances))
		f.instances = append(f.instances, awsclient.Instance{ID: id, Type: o.InstanceType, Zone: o.Zone, SubnetID: o.SubnetID,
			State: "running", LaunchTime: f.now, Tags: maps.Clone(req.Tags), LaunchTemplate: "lt-a", Fingerprint: "fp-1"})
		ids = append(ids, id)
	}
	return ids, nil, nil
}

func (f *fakeEC2) WaitFor(_ context.Context, ids []string, _ ...string) ([]awsclient.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []awsclient.Instance
	for _, i := range f.instances {
		if slices.Contains(ids, i.ID) {
			out = append(out, i)
		}
	}
	return out, nil
}

func (f *fakeEC2) Terminate(_ context.Context, ids []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.instances {
		if slices.Contains(ids, f.instances[i].ID) {
			f.instances[i].State = "terminated"
		}
	}
	return nil
}

func (f *fakeEC2) Ensure(_ context.Context, lt launchplan.LaunchTemplate) (awsclient.LaunchTemplate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.templates {
		if t.Name == lt.Name {
			if t.Tags[launchplan.TagOwner] != lt.Tags[launchplan.TagOwner] {
				return awsclient.LaunchTemplate{}, awsclient.ErrOwnedByOther
			}
			return t, nil
		}
	}
	t := awsclient.LaunchTemplate{ID: "lt-" + lt.Name, Name: lt.Name, DefaultVersion: 1, Tags: maps.Clone(lt.Tags), Fingerprint: "fp-1"}
	f.templates = append(f.templates, t)
	return t, nil
}

func (f *fakeEC2) FindByTags2(tags map[string]string) []awsclient.LaunchTemplate {
	var out []awsclient.LaunchTemplate
	for _, t := range f.templates {
		if hasAll(t.Tags, tags) {
			out = append(out, t)
		}
	}
	return out
}

// templatesFake adapts fakeEC2 to Templates (FindByTags clashes with the instance method).
type templatesFake struct{ *fakeEC2 }

func (t templatesFake) FindByTags(_ context.Context, tags map[string]string, _ map[string]awsclient.LaunchTemplate) ([]awsclient.LaunchTemplate, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.FindByTags2(tags), nil
}

func (t templatesFake) Delete(_ context.Context, id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.deleted = append(t.deleted, id)
	t.templates = slices.DeleteFunc(t.templates, func(x awsclient.LaunchTemplate) bool { return x.ID == id })
	return nil
}

func stageOf(f *fakeEC2) Stage { return Stage{Templates: templatesFake{f}, Instances: f} }

func own(owner string) Ownership {
	return Ownership{launchplan.TagNodePool: "general", launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagCluster: "c1", launchplan.TagOwner: owner}
}

func pool(owner string, replicas int) Pool {
	return Pool{
		Name: "general", Replicas: replicas, Own: own(owner), Zones: []string{"za", "zb"},
		LaunchPlan: []launchplan.Option{
			{Zone: "za", CapacityType: "on-demand", InstanceType: "m5.large", LaunchTemplate: "lt-a"},
			{Zone: "zb", CapacityType: "on-demand", InstanceType: "m5.large", LaunchTemplate: "lt-a"},
		},
		Subnets:      []launchplan.Subnet{{ID: "subnet-a", Zone: "za", AvailableIPs: 100}, {ID: "subnet-b", Zone: "zb", AvailableIPs: 100}},
		IPsPerType:   map[string]int{"m5.large": 10},
		CapacityType: "on-demand",
		Templates:    map[string]awsclient.LaunchTemplate{"lt-a": {ID: "lt-1", Name: "lt-a", Fingerprint: "fp-1"}},
		Wait:         time.Second,
	}
}

func TestReconcileLaunchesSpreadAndStableTokens(t *testing.T) {
	f := &fakeEC2{}
	res := stageOf(f).Reconcile(context.Background(), pool("o1", 3))
	if len(res.Errors) > 0 || len(res.Live) != 3 {
		t.Fatalf("errors %v, live %d", res.Errors, len(res.Live))
	}
	zones := map[string]int{}
	for _, i := range res.Live {
		zones[i.Zone]++
		if i.Tags[launchplan.TagOwner] != "o1" {
			t.Errorf("%s launched without the owner tag: %v", i.ID, i.Tags)
		}
	}
	if zones["za"]+zones["zb"] != 3 || zones["za"] == 0 || zones["zb"] == 0 {
		t.Errorf("not spread over the zones: %v", zones)
	}
	// A second reconcile at replicas changes nothing.
	before := f.launches
	if res := stageOf(f).Reconcile(context.Background(), pool("o1", 3)); len(res.Live) != 3 || f.launches != before {
		t.Errorf("second reconcile: live %d, launches %d -> %d", len(res.Live), before, f.launches)
	}
}

// Scale 3 -> 0 -> 3: every launch attempt gets its own token, so none meets a token AWS still
// binds to an earlier request.
func TestReconcileTokensNeverRepeat(t *testing.T) {
	f := &fakeEC2{}
	s := stageOf(f)
	for _, n := range []int{3, 0, 3, 0, 3} {
		if res := s.Reconcile(context.Background(), pool("o1", n)); len(res.Errors) > 0 || len(res.Live) != n {
			t.Fatalf("replicas %d: errors %v, live %d", n, res.Errors, len(res.Live))
		}
	}
	seen := map[string]bool{}
	for _, tok := range f.tokens {
		if tok == "" || seen[tok] {
			t.Errorf("token %q empty or reused: %v", tok, f.tokens)
		}
		seen[tok] = true
	}
	if len(f.tokens) < 6 {
		t.Errorf("%d launches, want one per zone per fill (6)", len(f.tokens))
	}
}

// Instances of another owner, with the same pool name and cluster, are neither counted,
// adopted nor terminated.
func TestReconcileLeavesOtherOwners(t *testing.T) {
	f := &fakeEC2{}
	if res := stageOf(f).Reconcile(context.Background(), pool("other", 2)); len(res.Live) != 2 {
		t.Fatalf("other owner: %d live", len(res.Live))
	}
	res := stageOf(f).Reconcile(context.Background(), pool("mine", 1))
	if len(res.Live) != 1 || res.Live[0].Tags[launchplan.TagOwner] != "mine" {
		t.Fatalf("mine: %+v", res.Live)
	}
	if err := stageOf(f).TerminateAll(context.Background(), own("mine"), time.Second); err != nil {
		t.Fatal(err)
	}
	for _, i := range f.instances {
		if i.Tags[launchplan.TagOwner] == "other" && i.State != "running" {
			t.Errorf("another owner's instance %s is %s", i.ID, i.State)
		}
		if i.Tags[launchplan.TagOwner] == "mine" && i.State != "terminated" {
			t.Errorf("own instance %s is %s", i.ID, i.State)
		}
	}
}

// A node in a subnet the class no longer selects is replaced: the replacement launches first,
// then the node is terminated.
func TestReconcileReplacesNodesOutsideTheClass(t *testing.T) {
	f := &fakeEC2{}
	s := stageOf(f)
	if res := s.Reconcile(context.Background(), pool("o1", 2)); len(res.Live) != 2 {
		t.Fatal(res.Errors)
	}
	p := pool("o1", 2)
	p.Subnets = []launchplan.Subnet{{ID: "subnet-a", Zone: "za", AvailableIPs: 100}, {ID: "subnet-b2", Zone: "zb", AvailableIPs: 100}}
	res := s.Reconcile(context.Background(), p)
	if len(res.Errors) > 0 || len(res.Live) != 2 {
		t.Fatalf("errors %v, live %+v", res.Errors, res.Live)
	}
	for _, i := range res.Live {
		if i.Zone == "zb" && i.SubnetID != "subnet-b2" {
			t.Errorf("zone b node %s still in %s", i.ID, i.SubnetID)
		}
	}
	for _, i := range f.instances {
		if i.SubnetID == "subnet-b" && i.State != "terminated" {
			t.Errorf("node %s in the dropped subnet is %s", i.ID, i.State)
		}
	}
}

// The after-launch hook stops the reconcile right after a fleet, as a crash would.
func TestReconcileAfterLaunchAborts(t *testing.T) {
	f := &fakeEC2{}
	s := stageOf(f)
	s.AfterLaunch = func(string) error { return errors.New("crash") }
	res := s.Reconcile(context.Background(), pool("o1", 2))
	if !res.Aborted || f.launches != 1 {
		t.Fatalf("aborted %v after %d launches", res.Aborted, f.launches)
	}
	// The re-run adopts what launched and completes the pool.
	s.AfterLaunch = nil
	if res := s.Reconcile(context.Background(), pool("o1", 2)); len(res.Live) != 2 || len(res.Errors) > 0 {
		t.Fatalf("re-run: live %d, errors %v", len(res.Live), res.Errors)
	}
	if n := len(f.instances); n != 2 {
		t.Errorf("%d instances exist, want 2", n)
	}
}

func TestReconcileLaunchFailureIsOnReplicas(t *testing.T) {
	f := &fakeEC2{failLaunch: errors.New("boom")}
	res := stageOf(f).Reconcile(context.Background(), pool("o1", 2))
	if len(res.Errors) != 1 || !res.Errors[0].OnReplicas {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// Templates: a planned name another owner holds fails; stale own templates are deleted, another
// owner's never.
func TestEnsureTemplatesOwnership(t *testing.T) {
	f := &fakeEC2{}
	s := stageOf(f)
	planned := []launchplan.LaunchTemplate{{Name: "c1/general/aaaa", Tags: own("o1")}, {Name: "c1/general/bbbb", Tags: own("o1")}}
	if _, err := s.EnsureTemplates(context.Background(), own("o1"), planned); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureTemplates(context.Background(), own("o2"), []launchplan.LaunchTemplate{{Name: "c1/general/aaaa", Tags: own("o2")}}); !errors.Is(err, awsclient.ErrOwnedByOther) {
		t.Fatalf("another owner's template was taken over: %v", err)
	}
	if _, err := s.EnsureTemplates(context.Background(), own("o1"), planned[:1]); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.deleted, []string{"lt-c1/general/bbbb"}) {
		t.Errorf("deleted %v, want only the stale own template", f.deleted)
	}
	if err := s.DeleteTemplates(context.Background(), own("o2")); err != nil || len(f.templates) != 1 {
		t.Errorf("another owner's delete touched o1's templates: %v, %d left", err, len(f.templates))
	}
}

func TestNewOwnerID(t *testing.T) {
	a, b := NewOwnerID(), NewOwnerID()
	if len(a) != 16 || a == b {
		t.Errorf("owner ids %q %q", a, b)
	}
}

// A profile created right before the pool's first launch: EC2 refuses it until IAM makes it
// visible. The stage waits and tries again, each attempt with a new token, and gives up after
// profileAttempts with EC2's message.
func TestReconcileWaitsForANewInstanceProfile(t *testing.T) {
	f := &fakeEC2{profileMissing: 2}
	var waits []time.Duration
	s := stageOf(f)
	s.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	res := s.Reconcile(context.Background(), pool("o1", 2))
	if len(res.Errors) > 0 || len(res.Live) != 2 {
		t.Fatalf("errors %v, live %d", res.Errors, len(res.Live))
	}
	if !slices.Equal(waits, []time.Duration{profileBackoff, 2 * profileBackoff}) || f.launches != 4 {
		t.Fatalf("waits %v, launches %d; want two growing waits and 2 refused + 2 launches", waits, f.launches)
	}
	if seen := map[string]bool{}; len(f.tokens) != 4 || func() bool {
		for _, tok := range f.tokens {
			if seen[tok] {
				return true
			}
			seen[tok] = true
		}
		return false
	}() {
		t.Fatalf("tokens %v: every attempt needs its own", f.tokens)
	}

	// A profile that never appears: profileAttempts launches, then EC2's message on replicas.
	f = &fakeEC2{profileMissing: 100}
	s = stageOf(f)
	s.Sleep = func(context.Context, time.Duration) error { return nil }
	res = s.Reconcile(context.Background(), pool("o1", 1))
	if len(res.Live) != 0 || len(res.Errors) == 0 || f.launches != profileAttempts ||
		!strings.Contains(res.Errors[0].Error(), "Invalid IAM Instance Profile name") {
		t.Fatalf("live %d, launches %d, errors %v", len(res.Live), f.launches, res.Errors)
	}
}

// The overrides of a zone are the plan's options of the pool's capacity type, in the plan's
// (price) order, each with its offering's price as the priority, as Karpenter sends them.
func TestReconcileOverridesCarryThePlansPrices(t *testing.T) {
	f := &fakeEC2{}
	p := pool("o1", 1)
	p.Zones = []string{"za"}
	p.LaunchPlan = []launchplan.Option{
		{Zone: "za", CapacityType: "on-demand", InstanceType: "t3.large", LaunchTemplate: "lt-a", Price: 0.0832},
		{Zone: "za", CapacityType: "on-demand", InstanceType: "c5.large", LaunchTemplate: "lt-a", Price: 0.085},
		{Zone: "za", CapacityType: "spot", InstanceType: "m5.large", LaunchTemplate: "lt-a", Price: 0.03},
		{Zone: "zb", CapacityType: "on-demand", InstanceType: "m5.large", LaunchTemplate: "lt-a", Price: 0.096},
	}
	if res := stageOf(f).Reconcile(context.Background(), p); len(res.Errors) > 0 || len(res.Live) != 1 {
		t.Fatalf("errors %v, live %d", res.Errors, len(res.Live))
	}
	if len(f.requests) != 1 {
		t.Fatalf("%d launches", len(f.requests))
	}
	var got []string
	for _, o := range f.requests[0].Overrides {
		got = append(got, fmt.Sprintf("%s %s %v", o.InstanceType, o.Zone, o.Priority))
	}
	if want := []string{"t3.large za 0.0832", "c5.large za 0.085"}; !slices.Equal(got, want) {
		t.Errorf("overrides %v, want %v", got, want)
	}
}
