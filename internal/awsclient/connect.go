package awsclient

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// NewClientFunc builds the client of the settings: New, or a test's stand-in.
type NewClientFunc func(context.Context, Settings) (*Client, error)

// The lookup port of planner.Configure reports a SettingError on the setting it names.
var _ settings.NamesSetting = (*SettingError)(nil)

// Connect builds the AWS client of the provider block with newClient: its settings are the
// block's (clientSettings) with userAgent. It is nil with the findings that say why not, each
// on the setting at fault (settings.ErrorFinding) where the error names one.
func Connect(ctx context.Context, cfg settings.ProviderConfig, newClient NewClientFunc, userAgent string) (*Client, []attrpath.Finding) {
	s, errs := clientSettings(cfg, userAgent)
	if len(errs) > 0 {
		return nil, errs
	}
	ctx = tflog.MaskFieldValuesWithFieldKeys(ctx, "access_key", "secret_key")
	tflog.Debug(ctx, "configuring AWS client", map[string]any{"region": s.Region, "profile": s.Profile, "ec2_endpoint": s.EC2Endpoint})
	client, err := newClient(ctx, s)
	if err != nil {
		return nil, []attrpath.Finding{settings.ErrorFinding(err, "Invalid AWS configuration", "Cannot configure the AWS client")}
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
		SQSEndpoint: e.SQS, EventsEndpoint: e.Events,
	}
	disk, err := CatalogDiskOf(cfg)
	if err != nil { // the error names the block's setting or the environment variable
		return s, []attrpath.Finding{{Path: attrpath.Of("catalog_cache", "ttl"), Summary: "Invalid catalog cache TTL",
			Message: err.Error(), Standalone: true}}
	}
	s.CatalogCache = disk
	return s, nil
}

// CatalogDiskOf is the block's catalog cache: its catalog_cache settings, else the
// environment, else the defaults (CatalogDiskFrom); nil when it is off.
func CatalogDiskOf(cfg settings.ProviderConfig) (*CatalogDisk, error) {
	var dir, ttl *string
	if c := cfg.CatalogCache; !c.Null {
		dir, ttl = orNil(c.Value.Directory), orNil(c.Value.TTL)
	}
	return CatalogDiskFrom(dir, ttl, os.Getenv, os.UserCacheDir)
}

// orNil is the setting's value, or nil when it is null (a value known only after apply is the
// zero value).
func orNil(s settings.Setting[string]) *string {
	if s.Null {
		return nil
	}
	return &s.Value
}
