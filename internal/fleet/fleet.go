// Package fleet is the apply stage of a node pool: it makes EC2 hold the planned launch
// templates and, for a static pool, exactly `replicas` instances launched through instant EC2
// Fleets (as Karpenter keeps CreateFleet in its instance provider). It talks to EC2 only through
// the small Templates and Instances interfaces, which awsclient satisfies and tests fake.
//
// Ownership: every object carries the pool's ownership tags, which include the owner id of the
// Terraform resource instance; the stage lists, adopts, changes and deletes only objects with
// all of them, so another owner's objects (another state, another cluster) are never touched.
package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// Templates is what the stage needs of EC2 launch templates (awsclient.LaunchTemplates).
type Templates interface {
	Ensure(ctx context.Context, lt launchplan.LaunchTemplate) (LaunchTemplate, error)
	FindByTags(ctx context.Context, tags map[string]string, known map[string]LaunchTemplate) ([]LaunchTemplate, error)
	Delete(ctx context.Context, id string) error
}

// Instances is what the stage needs of EC2 instances (awsclient.Instances).
type Instances interface {
	FindByTags(ctx context.Context, tags map[string]string) ([]Instance, error)
	Launch(ctx context.Context, req LaunchRequest) ([]string, []FleetError, error)
	WaitFor(ctx context.Context, ids []string, states ...string) ([]Instance, error)
	Terminate(ctx context.Context, ids []string) error
}

// Stage runs the apply of node pools.
type Stage struct {
	Templates Templates
	Instances Instances
	// NewToken returns a CreateFleet client token: one per launch attempt, so the SDK's retries
	// of that attempt are idempotent and no later attempt (after a scale to 0, a destroy, a
	// refill) can meet a token EC2 still binds to an earlier request. Default: 128 random bits.
	NewToken func() string
	// AfterLaunch, when set (by tests), runs after each successful CreateFleet; an error stops
	// the apply there as a crash would: Result.Aborted is set and nothing may be saved.
	AfterLaunch func(pool string) error
	// Sleep waits between launch attempts that EC2 refused because the instance profile is not
	// yet visible to it; default Sleep (honouring ctx). Tests make it instant.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Attempts and waits for an instance profile EC2 does not see yet: IAM makes a new profile
// visible to EC2 within seconds, and a class applied in the same run as its static pool creates
// its profile right before the pool's first launch.
const (
	ProfileAttempts = 6
	ProfileBackoff  = 2 * time.Second // doubled each attempt: 2+4+8+16+32 s at most
)

// profileNotVisible reports whether EC2 refused every override because of the instance profile
// name (Karpenter's IsInstanceProfileNotFound): the launch is then retried, with a new token.
func profileNotVisible(errs []FleetError) bool {
	return len(errs) > 0 && !slices.ContainsFunc(errs, func(fe FleetError) bool { return !fe.InstanceProfileNotVisible() })
}

func (s Stage) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Error is a failure of the stage. OnReplicas marks failures to reach `replicas`.
type Error struct {
	Summary, Detail string
	OnReplicas      bool
	Err             error // the cause, when there is one
}

func (e Error) Error() string { return e.Summary + ": " + e.Detail }

func (e Error) Unwrap() error { return e.Err }

// Ownership are the tags every object of one pool carries.
type Ownership map[string]string

// ReadScope is the tag filter of every managed object of a cluster, listed once per apply and
// filtered per pool; nil without a cluster name (the scope would be every managed object in
// the region, possibly of many clusters, so each pool then lists its own).
func ReadScope(cluster string) map[string]string {
	if cluster == "" {
		return nil
	}
	return map[string]string{launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagCluster: cluster}
}

// PoolTags are the tags every owner's objects of a pool name in a cluster carry.
func PoolTags(cluster, pool string) map[string]string {
	tags := map[string]string{launchplan.TagNodePool: pool, launchplan.TagManagedBy: launchplan.ManagedBy}
	if cluster != "" {
		tags[launchplan.TagCluster] = cluster
	}
	return tags
}

// OwnershipOf are the tags of a pool's own EC2 objects: the pool tags and the owner id. The
// provider never lists, adopts, changes or deletes an object without all of them.
func OwnershipOf(cluster, pool, owner string) Ownership {
	tags := PoolTags(cluster, pool)
	tags[launchplan.TagOwner] = owner
	return tags
}

// NewOwnerID returns a fresh owner id: 16 hex characters.
func NewOwnerID() string { return randomHex(8) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

func (s Stage) token() string {
	if s.NewToken != nil {
		return s.NewToken()
	}
	return randomHex(16)
}

// EnsureTemplates makes EC2 hold exactly the planned templates of the pool owned by own: each
// is created or gets a new default version, then the owner's templates that are no longer
// planned are deleted. It returns the templates by name.
func (s Stage) EnsureTemplates(ctx context.Context, own Ownership, planned []launchplan.LaunchTemplate) (map[string]LaunchTemplate, error) {
	out := make(map[string]LaunchTemplate, len(planned))
	for _, lt := range planned {
		got, err := s.Templates.Ensure(ctx, lt)
		if err != nil {
			return out, Error{Summary: "Cannot write a launch template", Detail: err.Error(), Err: err}
		}
		out[lt.Name] = got
	}
	owned, err := s.Templates.FindByTags(ctx, own, nil)
	if err != nil {
		return out, Error{Summary: "Cannot list the pool's launch templates", Detail: err.Error()}
	}
	for _, o := range owned {
		if _, ok := out[o.Name]; !ok {
			if err := s.Templates.Delete(ctx, o.ID); err != nil {
				return out, Error{Summary: "Cannot delete a stale launch template", Detail: err.Error()}
			}
		}
	}
	return out, nil
}

// DeleteTemplates deletes every template of the owner.
func (s Stage) DeleteTemplates(ctx context.Context, own Ownership) error {
	owned, err := s.Templates.FindByTags(ctx, own, nil)
	if err != nil {
		return Error{Summary: "Cannot list the pool's launch templates", Detail: err.Error()}
	}
	var errs []error
	for _, o := range owned {
		errs = append(errs, s.Templates.Delete(ctx, o.ID))
	}
	if err := errors.Join(errs...); err != nil {
		return Error{Summary: "Cannot delete the pool's launch templates", Detail: err.Error()}
	}
	return nil
}

// Pool is a static pool's apply: what the plan recorded and the ensured templates.
type Pool struct {
	Name     string
	Replicas int
	Own      Ownership
	// Zones are the planned zones; LaunchPlan the CreateFleet overrides per zone and capacity
	// type; Subnets the class's subnets (free IPs) for picking one per launch.
	Zones      []string
	LaunchPlan []launchplan.Option
	Subnets    []launchplan.Subnet
	// IPsPerType is the VPC addresses one node of a type takes at max pods.
	IPsPerType   map[string]int
	CapacityType string
	// Tags are added to the instances (class tags); the ownership tags win.
	Tags      map[string]string
	Templates map[string]LaunchTemplate
	Wait      time.Duration
}

// Result is what a reconcile leaves: the live nodes (also on error, so what launched stays in
// state), the errors, and whether a test hook aborted it.
type Result struct {
	Live    []Instance
	Errors  []Error
	Aborted bool
}

// Reconcile brings the pool's live instances to Replicas: it adopts the owner's instances left
// by an interrupted apply, launches the difference through instant fleets spread over the zones,
// or terminates the newest. Nodes to replace (launched from template content the plan no longer
// has, or in a subnet the class no longer selects) do not count: their replacements launch
// first and they are terminated once the pool has its replicas running.
func (s Stage) Reconcile(ctx context.Context, p Pool) Result {
	found, err := s.Instances.FindByTags(ctx, p.Own)
	if err != nil {
		return Result{Errors: []Error{{Summary: "Cannot list the pool's instances", Detail: err.Error()}}}
	}
	fingerprints := make(map[string]string, len(p.Templates)) // as ensured: the planned content
	for name, lt := range p.Templates {
		fingerprints[name] = lt.Fingerprint
	}
	subnets := map[string]bool{}
	for _, sn := range p.Subnets {
		subnets[sn.ID] = true
	}
	var res Result
	var nodes []launchplan.Node
	var replace []string
	for _, i := range found {
		if !i.Live() {
			continue
		}
		if Replaced(i, fingerprints, p.Zones, subnets) {
			replace = append(replace, i.ID)
			continue
		}
		res.Live = append(res.Live, i)
		nodes = append(nodes, launchplan.Node{ID: i.ID, Zone: i.Zone, Order: i.LaunchTime.UnixNano()})
	}
	launch, terminate := launchplan.Reconcile(p.Zones, nodes, p.Replicas)
	kept := func() []Instance { return append(res.Live, byID(found, replace)...) }

	if len(terminate) > 0 {
		if err := s.Instances.Terminate(ctx, append(terminate, replace...)); err != nil {
			res.Errors = append(res.Errors, Error{Summary: "Cannot scale the pool down", Detail: err.Error()})
			res.Live = kept()
			return res
		}
		res.Live = slices.DeleteFunc(res.Live, func(i Instance) bool { return slices.Contains(terminate, i.ID) })
		return res
	}

	launched, launchErrs, aborted := s.launch(ctx, p, launch)
	if aborted != nil {
		res.Errors = append(res.Errors, *aborted)
		res.Aborted = true
		return res
	}
	if len(launched) > 0 {
		wctx, cancel := context.WithTimeout(ctx, p.Wait)
		defer cancel()
		running, err := s.Instances.WaitFor(wctx, launched, "running")
		if err != nil {
			res.Errors = append(res.Errors, Error{Summary: "Instances did not reach running", Detail: err.Error()})
		}
		res.Live = append(res.Live, running...)
	}
	if len(launchErrs) > 0 {
		res.Errors = append(res.Errors, Error{Summary: "Static capacity only partly launched", OnReplicas: true,
			Detail: fmt.Sprintf("%d of %d nodes are running. %s", len(res.Live), p.Replicas, strings.Join(launchErrs, "; "))})
	}
	if len(replace) > 0 {
		if len(res.Live) < p.Replicas || len(res.Errors) > 0 {
			res.Live = kept() // keep them until their replacements run: no capacity is dropped
			return res
		}
		if err := s.Instances.Terminate(ctx, replace); err != nil {
			res.Errors = append(res.Errors, Error{Summary: "Cannot terminate replaced nodes",
				Detail: fmt.Sprintf("their replacements run; terminating %s failed: %v", strings.Join(replace, ", "), err)})
			res.Live = kept()
		}
	}
	return res
}

// NodeVerdict is why a live static node is replaced; the zero value keeps it.
type NodeVerdict struct {
	Outside bool // in a zone the plan does not use or a subnet the class no longer selects
	Drifted bool // runs launch-template content the plan no longer has
}

// Replace reports whether the node is replaced.
func (v NodeVerdict) Replace() bool { return v.Outside || v.Drifted }

// Classify is the one replace-or-keep rule of a live static node, for the plan's warnings and
// the apply alike.
func Classify(zone, subnetID string, stamp launchplan.TemplateStamp, plannedFingerprints map[string]string, zones []string,
	subnets map[string]bool) NodeVerdict {
	return NodeVerdict{Outside: !slices.Contains(zones, zone) || !subnets[subnetID], Drifted: launchplan.Drifted(stamp, plannedFingerprints)}
}

// Replaced reports whether a live node must be replaced (Classify).
func Replaced(i Instance, plannedFingerprints map[string]string, zones []string, subnets map[string]bool) bool {
	return Classify(i.Zone, i.SubnetID, launchplan.TemplateStamp{Template: i.LaunchTemplate, Fingerprint: i.Fingerprint},
		plannedFingerprints, zones, subnets).Replace()
}

// launch runs the fleets of each zone's launch: one attempt (one client token) per fleet, the
// next subnet of the zone when one runs out of addresses.
func (s Stage) launch(ctx context.Context, p Pool, launch []launchplan.ZoneLaunch) (launched, errs []string, aborted *Error) {
	tracker := launchplan.NewSubnetTracker(p.Subnets)
	tags := map[string]string{}
	maps.Copy(tags, p.Tags)
	profileTries := 0 // shared by the zones: the profile becomes visible once
	for _, zl := range launch {
		remaining := zl.Count
		for remaining > 0 {
			subnet, ok := tracker.Pick(zl.Zone)
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: no subnet with free addresses left", zl.Zone))
				break
			}
			var overrides []Override
			for _, o := range p.LaunchPlan {
				if o.Zone != zl.Zone || o.CapacityType != p.CapacityType {
					continue
				}
				overrides = append(overrides, Override{LaunchTemplateID: p.Templates[o.LaunchTemplate].ID, InstanceType: o.InstanceType,
					SubnetID: subnet.ID, Zone: zl.Zone, Priority: o.Price})
			}
			if len(overrides) == 0 {
				errs = append(errs, fmt.Sprintf("%s: no instance type of the plan is offered there as %s", zl.Zone, p.CapacityType))
				break
			}
			tags["Name"] = p.Name + "/" + zl.Zone
			maps.Copy(tags, p.Own)
			ids, fleetErrs, err := s.Instances.Launch(ctx, LaunchRequest{
				Overrides: overrides, Count: remaining, CapacityType: p.CapacityType, Tags: tags, ClientToken: s.token(),
			})
			if err != nil {
				errs = append(errs, err.Error())
				break
			}
			if len(ids) == 0 && profileNotVisible(fleetErrs) && profileTries < ProfileAttempts-1 {
				// Nothing launched: a new attempt (new token) once EC2 sees the profile.
				if err := s.sleep(ctx, ProfileBackoff<<profileTries); err != nil {
					errs = append(errs, err.Error())
					break
				}
				profileTries++
				continue
			}
			launched = append(launched, ids...)
			remaining -= len(ids)
			if s.AfterLaunch != nil {
				if err := s.AfterLaunch(p.Name); err != nil {
					return launched, errs, &Error{Summary: "Apply interrupted", Detail: err.Error()}
				}
			}
			if slices.ContainsFunc(fleetErrs, FleetError.InsufficientFreeAddresses) {
				tracker.MarkUnavailable(subnet.ID) // try the zone's next subnet
				continue
			}
			if remaining > 0 {
				msgs := make([]string, len(fleetErrs))
				for i, fe := range fleetErrs {
					msgs[i] = fe.Error()
				}
				errs = append(errs, fmt.Sprintf("%s: %d of %d launched; EC2 said: %s", zl.Zone, zl.Count-remaining, zl.Count, strings.Join(msgs, "; ")))
				break
			}
			ips := 0
			for _, o := range overrides {
				ips = max(ips, p.IPsPerType[o.InstanceType])
			}
			tracker.Take(subnet.ID, ips*len(ids))
		}
	}
	return launched, errs, nil
}

// TerminateAll ends every instance of the owner and waits until they are gone.
func (s Stage) TerminateAll(ctx context.Context, own Ownership, wait time.Duration) error {
	found, err := s.Instances.FindByTags(ctx, own)
	if err != nil {
		return Error{Summary: "Cannot list the pool's instances", Detail: err.Error()}
	}
	ids := make([]string, 0, len(found))
	for _, i := range found {
		ids = append(ids, i.ID)
	}
	if len(ids) == 0 {
		return nil
	}
	if err := s.Instances.Terminate(ctx, ids); err != nil {
		return Error{Summary: "Cannot terminate the pool's instances", Detail: err.Error()}
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if _, err := s.Instances.WaitFor(wctx, ids, "terminated"); err != nil {
		return Error{Summary: "Instances did not terminate", Detail: err.Error()}
	}
	return nil
}

// byID picks the instances with the given ids, in the order of all.
func byID(all []Instance, ids []string) []Instance {
	var out []Instance
	for _, i := range all {
		if slices.Contains(ids, i.ID) {
			out = append(out, i)
		}
	}
	return out
}

var pathReplicas = attrpath.Of("replicas")

// ErrorFinding is err as a finding: a stage Error keeps its summary and detail, on `replicas`
// when it is a failure to reach them; any other error is an apply failure.
func ErrorFinding(err error) attrpath.Finding {
	var e Error
	switch {
	case errors.As(err, &e) && e.OnReplicas:
		return attrpath.Finding{Path: pathReplicas, Summary: e.Summary, Message: e.Detail}
	case errors.As(err, &e):
		return attrpath.Finding{Summary: e.Summary, Message: e.Detail}
	}
	return attrpath.Finding{Summary: "Apply failed", Message: err.Error()}
}
