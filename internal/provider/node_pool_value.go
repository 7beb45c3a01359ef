package provider

import (
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
	"github.com/nodeplane/terraform-provider-karpenter/internal/workloadfit"
)

// poolValue is a karpenter_node_pool value as the provider reads it (tfvalue.Decode): the
// NodePool settings and the planner's inputs in their core types, what the provider computed
// kept raw until a step needs it.
type poolValue struct {
	nodepool.Config
	ID              string                         `tfsdk:"id"`
	NodeClass       tftypes.Value                  `tfsdk:"node_class"`
	Details         bool                           `tfsdk:"details"`
	MinValuesPolicy string                         `tfsdk:"min_values_policy"`
	Workloads       map[string]workloadfit.Request `tfsdk:"workloads"`
	NodeOverlays    []nodeoverlay.Config           `tfsdk:"node_overlays"`
	OwnerID         string                         `tfsdk:"owner_id"`
	Manifest        tftypes.Value                  `tfsdk:"manifest"`
	Manifests       tftypes.Value                  `tfsdk:"manifests"`
	Summary         tftypes.Value                  `tfsdk:"summary"`
	Zones           tftypes.Value                  `tfsdk:"zones"`
	InstanceTypes   tftypes.Value                  `tfsdk:"instance_types"`
	LaunchTemplates tftypes.Value                  `tfsdk:"launch_templates"`
	Nodes           tftypes.Value                  `tfsdk:"nodes"`
	Drift           tftypes.Value                  `tfsdk:"drift"`
	Timeouts        *struct {
		Create string `tfsdk:"create"`
		Update string `tfsdk:"update"`
		Delete string `tfsdk:"delete"`
	} `tfsdk:"timeouts"`
	// Computed answers of the plan (launchplan.Outputs), written by it, never read back.
	_ struct{} `tfsdk:"launch_plan"`
	_ struct{} `tfsdk:"prices"`
	_ struct{} `tfsdk:"max_pods"`
	_ struct{} `tfsdk:"karpenter_assumed_pods"`
	_ struct{} `tfsdk:"workload_fit"`
	_ struct{} `tfsdk:"warnings"`
	_ struct{} `tfsdk:"reservations"`
}

// static reports whether the provider launches the pool's nodes (replicas under its launcher).
func (v *poolValue) static() bool { return v.ProviderStatic() }

// mode is how the pool's nodes launch: "dynamic", or a static pool's launcher.
func (v *poolValue) mode() string {
	switch {
	case v.Replicas == nil:
		return "dynamic"
	case v.KarpenterLaunched():
		return nodepool.LauncherKarpenter
	}
	return nodepool.LauncherProvider
}

// Default waits of a static pool.
const (
	defaultLaunchTimeout    = 20 * time.Minute
	defaultTerminateTimeout = 20 * time.Minute
)

// timeout is the configured wait of one operation ("create", "update", "delete"), or def.
func (v *poolValue) timeout(op string, def time.Duration) time.Duration {
	if v.Timeouts == nil {
		return def
	}
	s := map[string]string{"create": v.Timeouts.Create, "update": v.Timeouts.Update, "delete": v.Timeouts.Delete}[op]
	if d, err := time.ParseDuration(s); err == nil && s != "" {
		return d
	}
	return def
}

// poolPlanned are the attributes a pool's plan computes (ModifyPlan writes exactly these, in
// one pass over the raw plan; `any` fields hold a Go value or a raw unknown).
type poolPlanned struct {
	launchplan.Outputs
	ID              string            `tfsdk:"id"`
	Manifest        *string           `tfsdk:"manifest"`
	Manifests       map[string]string `tfsdk:"manifests"`
	LaunchTemplates any               `tfsdk:"launch_templates"`
	Nodes           any               `tfsdk:"nodes"`
	Drift           any               `tfsdk:"drift"`
}

// templatePlanned is one planned `launch_templates` entry: the planned content with what EC2
// assigned, a Go value, null (nil: a dynamic pool's are only planned) or unknown until apply.
type templatePlanned struct {
	launchplan.TemplateOutput
	ID             any `tfsdk:"id"`
	DefaultVersion any `tfsdk:"default_version"`
}

// plannedTemplates encodes the planned `launch_templates` (planner.PlanTemplates).
func plannedTemplates(planned []planner.PlannedTemplate) []templatePlanned {
	if planned == nil {
		return nil
	}
	out := make([]templatePlanned, len(planned))
	for i, p := range planned {
		out[i] = templatePlanned{TemplateOutput: p.TemplateOutput, ID: p.ID, DefaultVersion: p.DefaultVersion}
		if p.ID == nil {
			out[i].ID = nil // a nil *string in an interface is not nil
		}
		if p.DefaultVersion == nil {
			out[i].DefaultVersion = nil
		}
		if p.IDUnknown {
			out[i].ID = tfvalue.Unknown(tftypes.String)
		}
		if p.VersionUnknown {
			out[i].DefaultVersion = tfvalue.Unknown(tftypes.Number)
		}
	}
	return out
}

// stateSubnets rebuilds zone -> planned subnet from the recorded plan, for in_planned_subnet.
func stateSubnets(v *poolValue) map[string]string {
	zones := decoded[map[string]launchplan.ZoneOutput](v.Zones)
	out := make(map[string]string, len(zones))
	for zone, z := range zones {
		out[zone] = z.SubnetID
	}
	return out
}

// classCache keeps the last node class value converted in this process, with its conversion:
// the pools of one class (in most configurations all of them) read `node_class` once instead of
// once each. The conversion is pure, so any provider instance may share it.
var classCache struct {
	sync.Mutex
	raw   tftypes.Value
	rc    launchplan.ClassValue
	class launchplan.Class
}

// poolClass converts a pool's `node_class` value (the class's `resolved`). Unknown late values
// (instance profile, user data, tags of a class planned in the same run) read as empty: no
// planned number depends on them.
func poolClass(raw tftypes.Value) (launchplan.ClassValue, launchplan.Class, error) {
	classCache.Lock()
	defer classCache.Unlock()
	if classCache.raw.Type() != nil && classCache.raw.Equal(raw) {
		return classCache.rc, classCache.class, nil
	}
	rc, class, err := decodeClassValue(raw)
	if err == nil {
		classCache.raw, classCache.rc, classCache.class = raw, rc, class
	}
	return rc, class, err
}

// decodeClassValue converts a node class value (a launchplan.ClassRef) without the cache.
func decodeClassValue(raw tftypes.Value) (launchplan.ClassValue, launchplan.Class, error) {
	var ref launchplan.ClassRef
	if err := tfvalue.Decode(raw, &ref); err != nil {
		return launchplan.ClassValue{}, launchplan.Class{}, err
	}
	rc, err := ref.Value()
	if err != nil {
		return rc, launchplan.Class{}, err
	}
	return rc, rc.Class(), nil
}

// className is the class's name in a pool's `node_class` ("" when unknown).
func className(raw tftypes.Value) string { return decoded[string](tfvalue.Attributes(raw)["name"]) }

// lateClassHash reports whether the class's hash is not known yet.
func lateClassHash(raw tftypes.Value) bool {
	h, ok := tfvalue.Attributes(raw)["hash"]
	return !raw.IsKnown() || (ok && !h.IsKnown())
}
