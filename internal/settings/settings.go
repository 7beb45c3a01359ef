// Package settings holds the provider block and the cluster facts: the block as the shell
// decodes it (ProviderConfig, each value a Setting that knows whether it is unset or known only
// after apply), the rules it must pass before any AWS call (CheckSettings, UnknownBlocks), what
// eks:DescribeCluster reports of the cluster (ClusterFacts) and how that fills the facts left
// unset (MergeClusterFacts). It is plain Go: planner.Configure runs these rules in order, the
// AWS adapter turns the block into its client settings.
package settings

import "github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"

// Setting is one provider setting as configured: its value, and whether it is null (unset) or
// known only after apply (then Value is the zero value).
type Setting[T any] struct {
	Value   T
	Null    bool
	Unknown bool
}

// Flag records whether the setting is null or known only after apply, and returns where its
// value goes: the shell decodes the provider block into settings with it (tfvalue.Flagged).
func (s *Setting[T]) Flag(null, unknown bool) any {
	s.Null, s.Unknown = null, unknown
	return &s.Value
}

// known is the value, or the zero value when it is known only after apply.
func (s Setting[T]) known() T {
	if s.Unknown {
		var zero T
		return zero
	}
	return s.Value
}

// ProviderSettings are the provider settings the configure rules read, by attribute (the tfsdk
// tags). The AWS settings and karpenter_version matter here only for whether they are known at
// plan.
type ProviderSettings struct {
	Region           Setting[string] `tfsdk:"region"`
	Profile          Setting[string] `tfsdk:"profile"`
	AccessKey        Setting[string] `tfsdk:"access_key"`
	SecretKey        Setting[string] `tfsdk:"secret_key"`
	MaxRetries       Setting[int64]  `tfsdk:"max_retries"`
	ClusterName      Setting[string] `tfsdk:"cluster_name"`
	LookupCluster    Setting[bool]   `tfsdk:"lookup_cluster"`
	KarpenterVersion Setting[string] `tfsdk:"karpenter_version"`
	// KarpenterController is "namespace/name" of Karpenter's controller Deployment ("" found by label).
	KarpenterController Setting[string] `tfsdk:"karpenter_controller"`
	// The cluster facts: lookup_cluster fills the unset ones.
	ClusterEndpoint    Setting[string] `tfsdk:"cluster_endpoint"`
	ClusterCA          Setting[string] `tfsdk:"cluster_certificate_authority_data"`
	ClusterServiceCIDR Setting[string] `tfsdk:"cluster_service_cidr"`
	KubernetesVersion  Setting[string] `tfsdk:"kubernetes_version"`
}

// ProviderConfig is the provider block, decoded by its attribute names (the tfsdk tags): the
// settings the configure rules read, and those only the clients read. Values known only after
// apply read as unset, except where a Setting keeps the flag: the nested blocks keep it, since
// a block not known at all cannot configure the provider.
type ProviderConfig struct {
	ProviderSettings
	Endpoints                 Setting[Endpoints]            `tfsdk:"endpoints"`
	SkipCredentialsValidation bool                          `tfsdk:"skip_credentials_validation"`
	SkipRequestingAccountID   bool                          `tfsdk:"skip_requesting_account_id"`
	CatalogCache              Setting[CatalogCacheSettings] `tfsdk:"catalog_cache"`
	Kubernetes                Setting[KubernetesAccess]     `tfsdk:"kubernetes"`
	// CapacityBlockHorizon is capacity_block_horizon, a Go duration (CapacityBlockHorizon).
	CapacityBlockHorizon Setting[string] `tfsdk:"capacity_block_horizon"`
}

// Endpoints are the endpoints block ("": the SDK's own, or AWS_ENDPOINT_URL_<SERVICE>).
type Endpoints struct {
	EC2     string `tfsdk:"ec2"`
	STS     string `tfsdk:"sts"`
	SSM     string `tfsdk:"ssm"`
	IAM     string `tfsdk:"iam"`
	EKS     string `tfsdk:"eks"`
	Pricing string `tfsdk:"pricing"`
	SQS     string `tfsdk:"sqs"`
	Events  string `tfsdk:"events"`
}

// CatalogCacheSettings is the catalog_cache block; a null setting is read from the
// environment (awsclient.CatalogDiskFrom).
type CatalogCacheSettings struct {
	Directory Setting[string] `tfsdk:"directory"`
	TTL       Setting[string] `tfsdk:"ttl"`
}

// KubernetesAccess is the kubernetes block: read-only access to the cluster.
type KubernetesAccess struct {
	Host                 *string `tfsdk:"host"` // nil: not known yet, so no access
	ClusterCACertificate string  `tfsdk:"cluster_ca_certificate"`
	Token                string  `tfsdk:"token"`
}

// UnknownBlocks are the errors on the nested blocks whose whole value is known only after
// apply (values inside a block may be: they read as unset).
func (cfg ProviderConfig) UnknownBlocks() []attrpath.Finding {
	var errs []attrpath.Finding
	for _, b := range []struct {
		name    string
		unknown bool
	}{{"endpoints", cfg.Endpoints.Unknown}, {"catalog_cache", cfg.CatalogCache.Unknown}, {"kubernetes", cfg.Kubernetes.Unknown}} {
		if b.unknown {
			errs = append(errs, UnknownSetting(b.name))
		}
	}
	return errs
}
