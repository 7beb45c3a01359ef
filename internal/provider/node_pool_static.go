package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// Default waits of a static pool.
const (
	defaultLaunchTimeout    = 20 * time.Minute
	defaultTerminateTimeout = 20 * time.Minute
)

// testHookAfterLaunch, when set by a test, runs after each successful CreateFleet of a pool
// and before state is saved; an error aborts the apply there, simulating a crash.
var testHookAfterLaunch func(pool string) error

// nodeTF is one instance of a static pool.
type nodeTF struct {
	InstanceID     string `tfsdk:"instance_id"`
	InstanceType   string `tfsdk:"instance_type"`
	Zone           string `tfsdk:"zone"`
	SubnetID       string `tfsdk:"subnet_id"`
	PrivateIP      string `tfsdk:"private_ip"`
	CapacityType   string `tfsdk:"capacity_type"`
	LaunchTemplate string `tfsdk:"launch_template"`
	// TemplateFingerprint is the fingerprint of the template content the node was launched
	// with; when it is not the planned template's, the node has drifted and apply replaces it.
	TemplateFingerprint string `tfsdk:"template_fingerprint"`
	State               string `tfsdk:"state"`
	InPlannedSubnet     bool   `tfsdk:"in_planned_subnet"`
}

var nodeObjType = types.ObjectType{AttrTypes: attrTypesOf(nodeTF{})}

// plannedSubnets maps zone -> the subnet the plan chose there (with its CIDR).
func plannedSubnets(p launchplan.Plan, rc resolvedClass) map[string]resolvedSubnet {
	chosen := map[string]string{}
	for _, z := range p.Zones {
		chosen[z.Zone] = z.SubnetID
	}
	return subnetsByZone(chosen, rc)
}

// subnetsByZone looks up, in the node class, the subnet chosen for each zone.
func subnetsByZone(chosen map[string]string, rc resolvedClass) map[string]resolvedSubnet {
	byID := map[string]resolvedSubnet{}
	for _, s := range rc.Subnets {
		byID[s.ID] = s
	}
	out := map[string]resolvedSubnet{}
	for zone, id := range chosen {
		out[zone] = byID[id]
	}
	return out
}

func inCIDR(ip, cidr string) bool {
	_, n, err := net.ParseCIDR(cidr)
	addr := net.ParseIP(ip)
	return err == nil && addr != nil && n.Contains(addr)
}

// nodesFrom turns live instances into state entries, oldest first.
func nodesFrom(instances []awsclient.Instance, planned map[string]resolvedSubnet) []nodeTF {
	out := []nodeTF{}
	for _, i := range instances {
		if !i.Live() {
			continue
		}
		out = append(out, nodeTF{
			InstanceID: i.ID, InstanceType: i.Type, Zone: i.Zone, SubnetID: i.SubnetID, PrivateIP: i.PrivateIP,
			CapacityType: i.CapacityType, LaunchTemplate: i.LaunchTemplate, TemplateFingerprint: i.Fingerprint, State: i.State,
			InPlannedSubnet: inCIDR(i.PrivateIP, planned[i.Zone].CIDRBlock),
		})
	}
	return out
}

// capacityTypeOf is the capacity type a static pool launches: spot when the plan allows it,
// as Karpenter prefers spot, else on-demand.
func capacityTypeOf(p launchplan.Plan) string {
	for _, o := range p.LaunchPlan {
		if o.CapacityType == "spot" {
			return "spot"
		}
	}
	return "on-demand"
}

func clientToken(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "|")))
	return hex.EncodeToString(sum[:])[:32]
}

// reconcileNodes brings the pool's live instances to `replicas`: adopts tagged instances left
// by an interrupted apply, launches the difference through instant fleets spread over the
// zones, or terminates the newest. Drifted nodes (launched from template content the plan no
// longer has) are replaced: the replacements launch first and the drifted nodes are terminated
// once the pool has its replicas running. It returns the live nodes, also on error, so what did
// launch stays in state.
func (r *nodePoolResource) reconcileNodes(ctx context.Context, m *nodePoolModel, p launchplan.Plan, rc resolvedClass,
	templates map[string]awsclient.LaunchTemplate, wait time.Duration, diags *diag.Diagnostics) (live []awsclient.Instance, aborted bool) {
	replicas := int(m.Replicas.ValueInt64())
	pool := m.Name.ValueString()
	x := awsclient.Instances{EC2: r.meta.Client.EC2}
	tags := r.ownershipTags(pool)

	found, err := x.FindByTags(ctx, tags)
	if err != nil {
		diags.AddError("Cannot list the pool's instances", err.Error())
		return nil, false
	}
	// Drifted nodes (launched from template content the plan no longer has) do not count toward
	// replicas: replacements launch first, and the drifted nodes are terminated once they run.
	fingerprints := make(map[string]string, len(templates)) // as ensured: the planned content
	for name, lt := range templates {
		fingerprints[name] = lt.Fingerprint
	}
	var nodes []launchplan.Node
	var drifted []string
	for _, i := range found {
		if !i.Live() {
			continue
		}
		if launchplan.Drifted(launchplan.TemplateStamp{Template: i.LaunchTemplate, Fingerprint: i.Fingerprint}, fingerprints) {
			drifted = append(drifted, i.ID)
			continue
		}
		live = append(live, i)
		nodes = append(nodes, launchplan.Node{ID: i.ID, Zone: i.Zone, Order: i.LaunchTime.UnixNano()})
	}
	zones := make([]string, len(p.Zones))
	for i, z := range p.Zones {
		zones[i] = z.Zone
	}
	launch, terminate := launchplan.Reconcile(zones, nodes, replicas)

	if len(terminate) > 0 {
		if err := x.Terminate(ctx, append(terminate, drifted...)); err != nil {
			diags.AddError("Cannot scale the pool down", err.Error())
			return append(live, instancesByID(found, drifted)...), false
		}
		gone := map[string]bool{}
		for _, id := range terminate {
			gone[id] = true
		}
		kept := live[:0]
		for _, i := range live {
			if !gone[i.ID] {
				kept = append(kept, i)
			}
		}
		return kept, false
	}

	imageID := ""
	if len(rc.AMIIDs) > 0 {
		imageID = rc.AMIIDs[0]
	}
	capType := capacityTypeOf(p)
	ipsPerType := map[string]int{}
	for _, t := range p.InstanceTypes {
		ipsPerType[t.Name] = t.VPCIPsAtMaxPods
	}
	tracker := launchplan.NewSubnetTracker(planClass(rc).Subnets)
	var launched []string
	var launchErrs []string
	liveIDs := make([]string, len(live))
	for i, l := range live {
		liveIDs[i] = l.ID
	}
	sort.Strings(liveIDs)

	for _, zl := range launch {
		remaining := zl.Count
		for remaining > 0 {
			subnet, ok := tracker.Pick(zl.Zone)
			if !ok {
				launchErrs = append(launchErrs, fmt.Sprintf("%s: no subnet with free addresses left", zl.Zone))
				break
			}
			var overrides []awsclient.Override
			prio := 0.0
			for _, o := range p.LaunchPlan {
				if o.Zone != zl.Zone || o.CapacityType != capType {
					continue
				}
				overrides = append(overrides, awsclient.Override{LaunchTemplateID: templates[o.LaunchTemplate].ID, InstanceType: o.InstanceType,
					SubnetID: subnet.ID, Zone: zl.Zone, ImageID: imageID, Priority: prio})
				prio++
			}
			if len(overrides) == 0 {
				launchErrs = append(launchErrs, fmt.Sprintf("%s: no instance type of the plan is offered there as %s", zl.Zone, capType))
				break
			}
			instTags := map[string]string{"Name": pool + "/" + zl.Zone}
			for k, v := range tags {
				instTags[k] = v
			}
			for k, v := range rc.Tags {
				instTags[k] = v
			}
			ids, fleetErrs, err := x.Launch(ctx, awsclient.LaunchRequest{
				Overrides: overrides, Count: remaining, CapacityType: capType, Tags: instTags,
				ClientToken: clientToken(pool, zl.Zone, subnet.ID, fmt.Sprint(remaining), strings.Join(liveIDs, ","), strings.Join(drifted, ",")),
			})
			if err != nil {
				launchErrs = append(launchErrs, err.Error())
				break
			}
			launched = append(launched, ids...)
			remaining -= len(ids)
			if testHookAfterLaunch != nil {
				if err := testHookAfterLaunch(pool); err != nil {
					diags.AddError("Apply interrupted", err.Error())
					return live, true
				}
			}
			dry := false
			for _, fe := range fleetErrs {
				if fe.Code == awsclient.ErrCodeInsufficientFreeAddresses {
					dry = true
				}
			}
			if dry {
				tracker.MarkUnavailable(subnet.ID) // try the zone's next subnet
				continue
			}
			if remaining > 0 {
				var msgs []string
				for _, fe := range fleetErrs {
					msgs = append(msgs, fe.Error())
				}
				launchErrs = append(launchErrs, fmt.Sprintf("%s: %d of %d launched; EC2 said: %s", zl.Zone, zl.Count-remaining, zl.Count, strings.Join(msgs, "; ")))
				break
			}
			ips := 0
			for _, o := range overrides {
				ips = max(ips, ipsPerType[o.InstanceType])
			}
			tracker.Take(subnet.ID, ips*len(ids))
		}
	}

	if len(launched) > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		running, err := x.WaitFor(wctx, launched, "running")
		if err != nil {
			diags.AddError("Instances did not reach running", err.Error())
		}
		live = append(live, running...)
	}
	if len(launchErrs) > 0 {
		diags.AddAttributeError(path.Root("replicas"), "Static capacity only partly launched",
			fmt.Sprintf("%d of %d nodes are running. %s", len(live), replicas, strings.Join(launchErrs, "; ")))
	}
	if len(drifted) > 0 {
		if len(live) < replicas || diags.HasError() {
			// Keep the drifted nodes until their replacements run: no capacity is dropped.
			return append(live, instancesByID(found, drifted)...), false
		}
		if err := x.Terminate(ctx, drifted); err != nil {
			diags.AddError("Cannot terminate drifted nodes", fmt.Sprintf("their replacements run; terminating %s failed: %v", strings.Join(drifted, ", "), err))
			return append(live, instancesByID(found, drifted)...), false
		}
	}
	return live, false
}

// plannedFingerprints maps the plan's launch templates to their content fingerprints.
func plannedFingerprints(p launchplan.Plan) map[string]string {
	out := make(map[string]string, len(p.LaunchTemplates))
	for _, lt := range p.LaunchTemplates {
		out[lt.Name] = awsclient.Fingerprint(lt)
	}
	return out
}

// instancesByID picks the instances with the given ids, in the order of all.
func instancesByID(all []awsclient.Instance, ids []string) []awsclient.Instance {
	var out []awsclient.Instance
	for _, i := range all {
		if slices.Contains(ids, i.ID) {
			out = append(out, i)
		}
	}
	return out
}

// terminateAll ends every instance of the pool and waits until they are gone.
func (r *nodePoolResource) terminateAll(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) {
	x := awsclient.Instances{EC2: r.meta.Client.EC2}
	found, err := x.FindByTags(ctx, r.ownershipTags(m.Name.ValueString()))
	if err != nil {
		diags.AddError("Cannot list the pool's instances", err.Error())
		return
	}
	var ids []string
	for _, i := range found {
		ids = append(ids, i.ID)
	}
	if len(ids) == 0 {
		return
	}
	if err := x.Terminate(ctx, ids); err != nil {
		diags.AddError("Cannot terminate the pool's instances", err.Error())
		return
	}
	timeout, d := m.Timeouts.Delete(ctx, defaultTerminateTimeout)
	diags.Append(d...)
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := x.WaitFor(wctx, ids, "terminated"); err != nil {
		diags.AddError("Instances did not terminate", err.Error())
	}
}
