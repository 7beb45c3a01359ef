package awsclient

import (
	"cmp"
	"context"
	"errors"
	"os"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// Configured is what a configured provider hands its resources and data sources.
type Configured struct {
	Client      *Client
	ClusterName string
	Bootstrap   launchplan.Bootstrap
	// KubernetesVersion is the cluster's major.minor ("" when neither set nor looked up).
	KubernetesVersion string
	// KarpenterVersion is karpenter_version, or manifest.DefaultVersion when it is unset.
	KarpenterVersion string
	// Kube is the read-only cluster access (nil without the kubernetes block).
	Kube *kubeclient.Client
}

// NewClientFunc builds the client of the settings: New, or a test's stand-in.
type NewClientFunc func(context.Context, Settings) (*Client, error)

// Configure sets the provider up from its block, step by step, and stops at the first step
// with errors: it checks that no nested block is unknown as a whole and the settings
// (settings.CheckSettings), builds the AWS client with newClient, fills the cluster facts
// left unset from eks:DescribeCluster when lookup_cluster asks (settings.MergeClusterFacts),
// and opens the Kubernetes access. Every finding is on the setting it is about; warnings say
// which settings differ from the cluster's.
func Configure(ctx context.Context, cfg settings.ProviderConfig, newClient NewClientFunc, userAgent string) (_ Configured, errs, warnings []attrpath.Finding) {
	// A configured process plans or applies, and every plan admits a manifest: compile the CRDs
	// (tens of ms) while the AWS clients are set up and STS answers, not after.
	karpenter := cmp.Or(cfg.KarpenterVersion.Value, manifest.DefaultVersion)
	go func() { _, _ = manifest.CRDsFor(karpenter) }()
	if errs := cfg.UnknownBlocks(); len(errs) > 0 {
		return Configured{}, errs, nil
	}
	s := cfg.ProviderSettings
	bootstrap, errs := settings.CheckSettings(s)
	if len(errs) > 0 {
		return Configured{}, errs, nil
	}
	client, errs := connect(ctx, cfg, newClient, userAgent)
	if len(errs) > 0 {
		return Configured{}, errs, nil
	}
	if s.LookupCluster.Value {
		facts, err := client.DescribeClusterFacts(ctx, s.ClusterName.Value)
		if err != nil {
			return Configured{}, []attrpath.Finding{settingFinding(err, "Cannot look up the EKS cluster", "Cannot look up the EKS cluster")}, nil
		}
		merged := settings.MergeClusterFacts(s, facts)
		if len(merged.Errors) > 0 {
			return Configured{}, merged.Errors, merged.Warnings
		}
		s, bootstrap, warnings = merged.Settings, merged.Bootstrap, merged.Warnings
	}
	kube, err := open(cfg.Kubernetes.Value)
	if err != nil {
		return Configured{}, []attrpath.Finding{{Path: attrpath.Of("kubernetes"), Summary: "Invalid Kubernetes access",
			Message: err.Error(), Standalone: true}}, warnings
	}
	return Configured{Client: client, ClusterName: s.ClusterName.Value, Bootstrap: bootstrap, KubernetesVersion: s.KubernetesVersion.Value,
		KarpenterVersion: karpenter, Kube: kube}, nil, warnings
}

// connect builds the AWS client of the block; nil with the findings that say why not.
func connect(ctx context.Context, cfg settings.ProviderConfig, newClient NewClientFunc, userAgent string) (*Client, []attrpath.Finding) {
	s, errs := clientSettings(cfg, userAgent)
	if len(errs) > 0 {
		return nil, errs
	}
	ctx = tflog.MaskFieldValuesWithFieldKeys(ctx, "access_key", "secret_key")
	tflog.Debug(ctx, "configuring AWS client", map[string]any{"region": s.Region, "profile": s.Profile, "ec2_endpoint": s.EC2Endpoint})
	client, err := newClient(ctx, s)
	if err != nil {
		return nil, []attrpath.Finding{settingFinding(err, "Invalid AWS configuration", "Cannot configure the AWS client")}
	}
	tflog.Debug(ctx, "AWS client ready", map[string]any{"region": client.Region, "account_id": client.AccountID})
	return client, nil
}

// clientSettings are the client's settings of the block: the AWS settings, the endpoints, the
// catalog cache (the block, else the environment, else the defaults) and the user agent.
func clientSettings(cfg settings.ProviderConfig, userAgent string) (Settings, []attrpath.Finding) {
	e := cfg.Endpoints.Value
	s := Settings{
		Region: cfg.Region.Value, Profile: cfg.Profile.Value, AccessKey: cfg.AccessKey.Value, SecretKey: cfg.SecretKey.Value,
		MaxRetries: int(cfg.MaxRetries.Value), SkipCredentialsValidation: cfg.SkipCredentialsValidation,
		SkipRequestingAccountID: cfg.SkipRequestingAccountID, UserAgent: userAgent,
		EC2Endpoint: e.EC2, STSEndpoint: e.STS, SSMEndpoint: e.SSM, IAMEndpoint: e.IAM, EKSEndpoint: e.EKS, PricingEndpoint: e.Pricing,
	}
	var dir, ttl *string
	if c := cfg.CatalogCache; !c.Null {
		dir, ttl = orNil(c.Value.Directory), orNil(c.Value.TTL)
	}
	disk, err := CatalogDiskFrom(dir, ttl, os.Getenv, os.UserCacheDir)
	if err != nil { // the error names the block's setting or the environment variable
		return s, []attrpath.Finding{{Path: attrpath.Of("catalog_cache", "ttl"), Summary: "Invalid catalog cache TTL",
			Message: err.Error(), Standalone: true}}
	}
	s.CatalogCache = disk
	return s, nil
}

// orNil is the setting's value, or nil when it is null (a value known only after apply is the
// zero value).
func orNil(s settings.Setting[string]) *string {
	if s.Null {
		return nil
	}
	return &s.Value
}

// open is the client of the access: nil without the block (a null host) or while its host is not
// known.
func open(k settings.KubernetesAccess) (*kubeclient.Client, error) {
	if k.Host == nil {
		return nil, nil
	}
	return kubeclient.New(kubeclient.Config{Host: *k.Host, CACertificatePEM: k.ClusterCACertificate, Token: k.Token})
}

// settingFinding is err on the setting a SettingError names, under onSetting, else on the
// provider as a whole, under otherwise. The SettingError's text names its setting already.
func settingFinding(err error, onSetting, otherwise string) attrpath.Finding {
	var se *SettingError
	if errors.As(err, &se) {
		return attrpath.Finding{Path: attrpath.Of(se.Setting), Summary: onSetting, Message: se.Error(), Standalone: true}
	}
	return attrpath.Finding{Summary: otherwise, Message: err.Error()}
}
