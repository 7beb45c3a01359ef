package provider

import "github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"

// wrapClients, when set, wraps every provider's client constructor: only in a binary built with
// the policyrecord tag (policyrecord.go), which the CLI acceptance tests run so that the
// published IAM policy decides their calls too. Release builds leave it nil.
var wrapClients func(p *karpenterProvider, next awsclient.NewClientFunc) awsclient.NewClientFunc
