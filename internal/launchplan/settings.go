package launchplan

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// resolveSettings settles the AMI family and the capacity settings. The class's AMIFamily wins
// over the CNI settings' copy; configured interfaces come from Class.NetworkInterfaces, else from
// the CNI settings.
func (b *builder) resolveSettings() {
	c := b.in.Class
	if c.AutoMode != nil { // Auto Mode's own images and networking: no AMI family, no VPC CNI settings
		b.settings = capacity.Settings{AutoMode: c.AutoMode}
		b.in.Requirements = requirements.ForAutoMode(b.in.Requirements)
		return
	}
	b.family = c.AMIFamily
	if b.family == "" {
		b.family = c.CNI.AMIFamily
	}
	b.family = capacity.ResolveFamily(b.family)
	b.settings = c.CNI
	b.settings.AMIFamily = b.family
	b.ifaces = c.NetworkInterfaces
	if b.ifaces == nil {
		b.ifaces = c.CNI.NetworkInterfaces
	}
	b.settings.NetworkInterfaces = b.ifaces
	for _, e := range capacity.ValidateSettings(b.settings) {
		b.fail(pathPool, "node class %q: %s", c.Name, e.Error())
	}
}
