package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// ec2Objects is an in-memory EC2 of launch templates and instances behind the stage's ports; it
// logs every mutating call.
type ec2Objects struct {
	templates map[string]fleet.LaunchTemplate
	instances []fleet.Instance
	mutations []string
}

type templatesPort struct{ e *ec2Objects }

func (p templatesPort) Ensure(_ context.Context, lt launchplan.LaunchTemplate) (fleet.LaunchTemplate, error) {
	p.e.mutations = append(p.e.mutations, "ensure "+lt.Name)
	got := fleet.LaunchTemplate{ID: fmt.Sprintf("lt-%d", len(p.e.templates)+1), Name: lt.Name, DefaultVersion: 1, Tags: maps.Clone(lt.Tags),
		Fingerprint: lt.Fingerprint()}
	p.e.templates[lt.Name] = got
	return got, nil
}

func (p templatesPort) FindByTags(_ context.Context, tags map[string]string, _ map[string]fleet.LaunchTemplate) ([]fleet.LaunchTemplate, error) {
	var out []fleet.LaunchTemplate
	for _, lt := range p.e.templates {
		if (fleet.InstanceProfile{Tags: lt.Tags}).Owned(tags) {
			out = append(out, lt)
		}
	}
	return out, nil
}

func (p templatesPort) Delete(_ context.Context, id string) error {
	p.e.mutations = append(p.e.mutations, "delete "+id)
	for name, lt := range p.e.templates {
		if lt.ID == id {
			delete(p.e.templates, name)
		}
	}
	return nil
}

type instancesPort struct{ e *ec2Objects }

func (p instancesPort) FindByTags(_ context.Context, tags map[string]string) ([]fleet.Instance, error) {
	var out []fleet.Instance
	for _, i := range p.e.instances {
		if (fleet.InstanceProfile{Tags: i.Tags}).Owned(tags) {
			out = append(out, i)
		}
	}
	return out, nil
}

func (p instancesPort) Launch(_ context.Context, req fleet.LaunchRequest) ([]string, []fleet.FleetError, error) {
	p.e.mutations = append(p.e.mutations, fmt.Sprintf("launch %d", req.Count))
	var ids []string
	for range req.Count {
		o := req.Overrides[0]
		i := fleet.Instance{ID: fmt.Sprintf("i-%d", len(p.e.instances)+1), Type: o.InstanceType, Zone: o.Zone, SubnetID: o.SubnetID,
			State: "running", LaunchTime: time.Unix(int64(len(p.e.instances)), 0), Tags: maps.Clone(req.Tags)}
		p.e.instances = append(p.e.instances, i)
		ids = append(ids, i.ID)
	}
	return ids, nil, nil
}

func (p instancesPort) WaitFor(_ context.Context, ids []string, _ ...string) ([]fleet.Instance, error) {
	var out []fleet.Instance
	for _, i := range p.e.instances {
		for _, id := range ids {
			if i.ID == id {
				out = append(out, i)
			}
		}
	}
	return out, nil
}

func (p instancesPort) Terminate(_ context.Context, ids []string) error {
	p.e.mutations = append(p.e.mutations, "terminate "+strings.Join(ids, ","))
	return nil
}

func (f *poolPorts) applyPorts(e *ec2Objects) PoolPorts {
	p := f.ports(false)
	p.EC2.Templates, p.EC2.Instances = templatesPort{e}, instancesPort{e}
	return p
}

// The apply plans again and runs the stage only when the launch is the one the plan showed;
// otherwise it fails without a mutating call and saves nothing.
func TestApplyPoolRunsOnlyWhatThePlanShowed(t *testing.T) {
	ctx := context.Background()
	two := 2
	in := poolInput(&two)
	var f poolPorts
	planned := Pool(ctx, f.ports(false), poolFacts, in)
	if len(planned.Errors) > 0 {
		t.Fatalf("plan: %v", planned.Errors)
	}
	recorded := make([]fleet.TemplateRecord, len(planned.Outputs.LaunchTemplates))
	for i, o := range planned.Outputs.LaunchTemplates {
		recorded[i] = fleet.TemplateRecord{TemplateOutput: o}
	}
	shown := launchplan.Shown{Summary: planned.Outputs.Summary}

	stale := shown
	stale.Summary.InstanceTypes++
	e := &ec2Objects{templates: map[string]fleet.LaunchTemplate{}}
	res := ApplyPool(ctx, f.applyPorts(e), poolFacts, PoolApplyInput{PoolInput: in, Creating: true, Shown: &stale, Recorded: recorded, NodesNull: true})
	if len(res.Errors) != 1 || res.Errors[0].Summary != "The plan no longer holds" || len(e.mutations) != 0 || res.Save {
		t.Fatalf("a plan that no longer holds: errors %v, mutations %v, save %v", res.Errors, e.mutations, res.Save)
	}

	res = ApplyPool(ctx, f.applyPorts(e), poolFacts, PoolApplyInput{PoolInput: in, Creating: true, Shown: &shown, Recorded: recorded,
		NodesNull: true, Wait: time.Second})
	if len(res.Errors) != 0 || !res.Save || len(res.OwnerID) != 16 {
		t.Fatalf("a new static pool: errors %v, save %v, owner %q", res.Errors, res.Save, res.OwnerID)
	}
	if len(res.Templates) != len(recorded) || res.Templates[0].ID == nil || *res.Templates[0].ID != e.templates[recorded[0].Name].ID ||
		res.Templates[0].DefaultVersion == nil {
		t.Errorf("templates to save: %+v, want each with the id EC2 assigned", res.Templates)
	}
	if res.Nodes.Kept || len(res.Nodes.Value) != 2 || res.Nodes.Value[0].InstanceID != "i-1" {
		t.Errorf("nodes to save: %+v, want the two launched", res.Nodes)
	}
	if recorded[0].ID != nil {
		t.Error("ApplyPool wrote into the caller's records")
	}
	if got := strings.Join(e.mutations, "; "); !strings.HasPrefix(got, "ensure ") || !strings.HasSuffix(got, "launch 2") {
		t.Errorf("mutations %q: want the templates ensured, then one launch of 2", got)
	}
}

// A dynamic pool's apply picks the owner id and holds no EC2 objects: its nodes are null and
// its planned templates are saved as planned.
func TestApplyPoolDynamic(t *testing.T) {
	ctx := context.Background()
	in := poolInput(nil)
	in.Details = true
	var f poolPorts
	planned := Pool(ctx, f.ports(false), poolFacts, in)
	recorded := []fleet.TemplateRecord{{TemplateOutput: planned.Outputs.LaunchTemplates[0]}}
	e := &ec2Objects{templates: map[string]fleet.LaunchTemplate{}}
	res := ApplyPool(ctx, f.applyPorts(e), poolFacts, PoolApplyInput{PoolInput: in, Creating: true, Recorded: recorded})
	if len(res.Errors) != 0 || !res.Save || len(res.OwnerID) != 16 || res.Nodes.Kept || res.Nodes.Value != nil || len(e.mutations) != 0 {
		t.Fatalf("a new dynamic pool: %+v, mutations %v", res, e.mutations)
	}
	if len(res.Templates) != 1 || res.Templates[0].ID != nil {
		t.Errorf("a dynamic pool's templates: %+v, want the planned one without an id", res.Templates)
	}
}

// A static pool whose name another owner holds changes nothing and saves nothing.
func TestApplyPoolOnATakenName(t *testing.T) {
	one := 1
	f := poolPorts{taken: true}
	e := &ec2Objects{templates: map[string]fleet.LaunchTemplate{}}
	res := ApplyPool(context.Background(), f.applyPorts(e), poolFacts, PoolApplyInput{PoolInput: poolInput(&one), Creating: true, NodesNull: true})
	if len(res.Errors) != 1 || res.Errors[0].Summary != "Node pool name already taken" || res.Save || len(e.mutations) != 0 {
		t.Fatalf("a taken name: errors %v, save %v, mutations %v", res.Errors, res.Save, e.mutations)
	}
}

// Planned templates: a static pool's known id stays, and its default version only while the
// content does; a dynamic pool's have none.
func TestPlanTemplates(t *testing.T) {
	id, version := "lt-1", int64(3)
	outs := []launchplan.TemplateOutput{{Name: "a", Fingerprint: "fa"}, {Name: "b", Fingerprint: "fb2"}, {Name: "c", Fingerprint: "fc"}}
	recorded := []fleet.TemplateRecord{{TemplateOutput: launchplan.TemplateOutput{Name: "a", Fingerprint: "fa"}, ID: &id, DefaultVersion: &version},
		{TemplateOutput: launchplan.TemplateOutput{Name: "b", Fingerprint: "fb1"}, ID: &id, DefaultVersion: &version}}
	got := PlanTemplates(outs, recorded, true)
	if got[0].IDUnknown || got[0].VersionUnknown || *got[0].ID != id || *got[0].DefaultVersion != version {
		t.Errorf("unchanged template: %+v", got[0])
	}
	if got[1].IDUnknown || !got[1].VersionUnknown || *got[1].ID != id {
		t.Errorf("changed content: %+v, want the id kept and a new version", got[1])
	}
	if !got[2].IDUnknown || !got[2].VersionUnknown {
		t.Errorf("new template: %+v, want both unknown", got[2])
	}
	for _, p := range PlanTemplates(outs, recorded, false) {
		if p.IDUnknown || p.VersionUnknown || p.ID != nil || p.DefaultVersion != nil {
			t.Errorf("dynamic pool template: %+v, want null id and version", p)
		}
	}
	if PlanTemplates(nil, recorded, true) != nil {
		t.Error("no templates shown must stay nil")
	}
}

// Applied values the shell could not read plan and change nothing; what the plan recorded is
// saved as after a failed apply, and nothing is saved when nothing was recorded.
func TestApplyPoolUnreadable(t *testing.T) {
	one, id, version := 1, "lt-1", int64(2)
	var f poolPorts
	e := &ec2Objects{templates: map[string]fleet.LaunchTemplate{}}
	recorded := []fleet.TemplateRecord{{TemplateOutput: launchplan.TemplateOutput{Name: "demo/general/a"}, ID: &id, DefaultVersion: &version}}
	res := ApplyPool(context.Background(), f.applyPorts(e), poolFacts, PoolApplyInput{PoolInput: poolInput(&one), Unreadable: true,
		Recorded: recorded, NodesNull: true})
	if !res.Save || len(res.Templates) != 1 || *res.Templates[0].ID != id || !res.Nodes.Kept || len(e.mutations) != 0 || len(f.calls) != 0 {
		t.Fatalf("recorded templates: %+v, mutations %v, calls %v", res, e.mutations, f.calls)
	}
	res = ApplyPool(context.Background(), f.applyPorts(e), poolFacts, PoolApplyInput{PoolInput: poolInput(&one), Unreadable: true, NodesNull: true})
	if res.Save {
		t.Errorf("nothing recorded: %+v, want nothing saved", res)
	}
}

// staticListing lists the given launch templates, or fails with err.
type staticListing struct {
	listing
	templates []fleet.LaunchTemplate
	err       error
}

func (l staticListing) ListTemplates(context.Context, map[string]string, map[string]string) ([]fleet.LaunchTemplate, error) {
	return l.templates, l.err
}

// TestStaticPools: every owner of each pool the templates name, by name and owner id, but for
// names without the prefix and pools the cluster lists already; an unreadable listing is an error.
func TestStaticPools(t *testing.T) {
	ctx := context.Background()
	var lts []fleet.LaunchTemplate
	for _, po := range [][2]string{{"general", "o2"}, {"general", "o1"}, {"batch", "o3"}, {"web", "o4"}, {"gpu", "o5"}, {"general", "o1"}} {
		lts = append(lts, fleet.LaunchTemplate{ID: "lt-" + po[0] + po[1], Tags: fleet.OwnershipOf(poolFacts.ClusterName, po[0], po[1])})
	}
	ports := PoolPorts{EC2: PoolEC2{Listing: staticListing{templates: lts}}}
	got, errs := StaticPools(ctx, ports, poolFacts, "", []string{"web"})
	if want := []StaticPool{{"batch", "o3"}, {"general", "o1"}, {"general", "o2"}, {"gpu", "o5"}}; len(errs) > 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("static pools %v, want %v (%v)", got, want, errs)
	}
	if got, _ = StaticPools(ctx, ports, poolFacts, "g", nil); fmt.Sprint(got) != "[{general o1} {general o2} {gpu o5}]" {
		t.Errorf("with prefix g: %v", got)
	}
	ports.EC2.Listing = staticListing{err: errors.New("UnauthorizedOperation")}
	if got, errs = StaticPools(ctx, ports, poolFacts, "", nil); got != nil || len(errs) != 1 ||
		errs[0].Summary != "Cannot list the static pools' launch templates" || !strings.HasPrefix(errs[0].Message, "UnauthorizedOperation\n\n") {
		t.Errorf("unreadable listing: %v %v", got, errs)
	}
}
