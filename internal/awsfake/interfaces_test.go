package awsfake_test

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
)

// Each fake stands in for the awsclient interface of its API (awsfake itself imports no
// provider package, so that internal/awsclient's own tests can use it).
var (
	_ awsclient.EC2API       = (*awsfake.EC2)(nil)
	_ awsclient.SpotPriceAPI = (*awsfake.EC2)(nil)
	_ awsclient.IAMAPI       = (*awsfake.IAM)(nil)
	_ awsclient.EKSAPI       = (*awsfake.EKS)(nil)
	_ awsclient.PricingAPI   = (*awsfake.Pricing)(nil)
)
