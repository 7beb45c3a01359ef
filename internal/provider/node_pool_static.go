package provider

import (
	"cmp"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// Default waits of a static pool.
const (
	defaultLaunchTimeout    = 20 * time.Minute
	defaultTerminateTimeout = 20 * time.Minute
)

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

// plannedSubnets maps zone -> the subnet the plan chose there.
func plannedSubnets(p launchplan.Plan) map[string]string {
	chosen := map[string]string{}
	for _, z := range p.Zones {
		chosen[z.Zone] = z.SubnetID
	}
	return chosen
}

// nodesFrom turns live instances into state entries in a stable order: by zone, then launch
// time, then id (EC2 lists them in no fixed order).
func nodesFrom(instances []awsclient.Instance, planned map[string]string) []nodeTF {
	live := slices.DeleteFunc(slices.Clone(instances), func(i awsclient.Instance) bool { return !i.Live() })
	slices.SortStableFunc(live, func(a, b awsclient.Instance) int {
		return cmp.Or(cmp.Compare(a.Zone, b.Zone), a.LaunchTime.Compare(b.LaunchTime), cmp.Compare(a.ID, b.ID))
	})
	out := make([]nodeTF, 0, len(live))
	for _, i := range live {
		out = append(out, nodeTF{
			InstanceID: i.ID, InstanceType: i.Type, Zone: i.Zone, SubnetID: i.SubnetID, PrivateIP: i.PrivateIP,
			CapacityType: i.CapacityType, LaunchTemplate: i.LaunchTemplate, TemplateFingerprint: i.Fingerprint, State: i.State,
			InPlannedSubnet: i.SubnetID != "" && i.SubnetID == planned[i.Zone],
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

// plannedFingerprints maps the plan's launch templates to their content fingerprints.
func plannedFingerprints(p launchplan.Plan) map[string]string {
	out := make(map[string]string, len(p.LaunchTemplates))
	for _, lt := range p.LaunchTemplates {
		out[lt.Name] = awsclient.Fingerprint(lt)
	}
	return out
}
