package launchplan

import (
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

// checkBootstrap fails a static pool whose nodes could not join: the provider launches them
// itself, so their user data must name the cluster and carry its endpoint, CA and service CIDR
// (a Custom AMI bootstraps itself). A dynamic pool's templates only show what Karpenter renders.
func (b *builder) checkBootstrap() {
	if b.in.Replicas == nil || b.family == capacity.FamilyCustom || b.in.Class.AutoMode != nil {
		return
	}
	missing := b.in.Bootstrap.Missing()
	if b.in.ClusterName == "" {
		missing = append([]string{"cluster_name"}, missing...)
	}
	if len(missing) > 0 {
		b.fail(pathReplicas, "the provider launches a static pool's nodes itself, and its %s nodes join only when their user data names "+
			"the cluster and carries its API endpoint, CA bundle and service CIDR; set the provider's %s (with terraform-aws-eks: "+
			"module.eks.cluster_name, cluster_endpoint, cluster_certificate_authority_data and cluster_service_cidr)",
			b.family, strings.Join(missing, ", "))
	}
}

// checkImage fails a static pool whose node class resolved no image at plan: the provider
// launches its nodes itself. A dynamic pool's class may leave an alias to Karpenter, which
// resolves it at runtime (the class's plan warns about that once).
func (b *builder) checkImage() {
	c := b.in.Class
	if b.in.Replicas == nil || len(c.AMIs) > 0 || c.AutoMode != nil {
		return
	}
	why := c.AMIUnresolved
	if why == "" {
		why = "its AMI selector terms matched no image"
	}
	b.fail(pathReplicas, "the provider launches a static pool's nodes itself and needs an image, but node class %q resolved none at plan: %s "+
		"(an `ssm_parameter`, `id`, `name` or `tags` term resolves through EC2 and SSM in any account)", c.Name, why)
}
