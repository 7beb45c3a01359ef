package fleet

import (
	"context"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// TemplateRecord is one `launch_templates` entry of a pool's state: the planned content and
// what EC2 assigned (nil: nothing, as for a dynamic pool's templates, which are only planned).
type TemplateRecord struct {
	launchplan.TemplateOutput
	ID             *string `tfsdk:"id"`
	DefaultVersion *int64  `tfsdk:"default_version"`
}

// PoolRecord is what a pool's refresh reads of its state.
type PoolRecord struct {
	Name, Owner string
	Static      bool
	// Templates are the recorded templates; TemplatesNull: none are recorded (a dynamic pool
	// without `details`, or a state just imported).
	Templates     []TemplateRecord
	TemplatesNull bool
	// NodesRecorded: the state lists nodes (a dynamic pool imported from a static one does).
	NodesRecorded bool
	// Subnets are the planned subnet of each zone.
	Subnets map[string]string
}

// Refreshed is a pool's state after a refresh; a nil Templates or Nodes leaves the recorded
// value as it is.
type Refreshed struct {
	Templates []TemplateRecord
	Nodes     []Node
}

// Refresh reconciles a pool's recorded templates (ReadTemplates) and nodes with what its owner
// holds in EC2.
func (c Cluster) Refresh(ctx context.Context, r PoolRecord) (Refreshed, error) {
	recorded := make([]RecordedTemplate, len(r.Templates))
	known := map[string]LaunchTemplate{}
	for i, lt := range r.Templates {
		recorded[i] = RecordedTemplate{Name: lt.Name, Fingerprint: lt.Fingerprint}
		if lt.ID != nil && lt.DefaultVersion != nil {
			recorded[i].ID, recorded[i].DefaultVersion = *lt.ID, *lt.DefaultVersion
			known[lt.Name] = recorded[i]
		}
	}
	own := c.Own(r.Name, r.Owner)
	owned, err := c.EC2.ReadTemplates(ctx, c.Scope(), own, known)
	if err != nil {
		return Refreshed{}, Error{Summary: "Cannot read the pool's launch templates", Detail: err.Error(), Err: err}
	}
	read, from := ReadTemplates(recorded, owned, !r.Static, r.TemplatesNull)
	var out Refreshed
	if len(read) > 0 || !r.TemplatesNull { // none recorded stays none: a dynamic pool without `details` lists none
		out.Templates = make([]TemplateRecord, len(read))
	}
	for i, lt := range read {
		if from[i] >= 0 {
			out.Templates[i] = r.Templates[from[i]]
		}
		out.Templates[i].Name, out.Templates[i].Fingerprint = lt.Name, lt.Fingerprint
		out.Templates[i].ID, out.Templates[i].DefaultVersion = nil, nil
		if lt.ID != "" {
			out.Templates[i].ID, out.Templates[i].DefaultVersion = &lt.ID, &lt.DefaultVersion
		}
	}
	if r.Static || r.NodesRecorded {
		found, err := c.EC2.ReadInstances(ctx, c.Scope(), own)
		if err != nil {
			return Refreshed{}, Error{Summary: "Cannot read the pool's instances", Detail: err.Error(), Err: err}
		}
		if out.Nodes = NodesOf(found, r.Subnets); out.Nodes == nil {
			out.Nodes = []Node{}
		}
	}
	return out, nil
}
