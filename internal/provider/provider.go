// Package provider is the Terraform shell: schemas, validation on attribute paths, and CRUD that
// hands plain Go values to the pure packages and the AWS adapter.
package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeletconfig"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

var _ provider.Provider = (*karpenterProvider)(nil)

type karpenterProvider struct {
	version string
	// newClient is swapped by unit tests; production uses awsclient.New.
	newClient func(context.Context, awsclient.Settings) (*awsclient.Client, error)
	// afterLaunch is injected by tests: it runs after each CreateFleet of a static pool, and an
	// error stops the apply there as a crash would.
	afterLaunch func(pool string) error
	// beforeClaim is injected by tests: it runs when a new pool's apply has checked that no other
	// owner holds the name, right before its first EC2 write.
	beforeClaim func(pool string)
}

// New returns the provider factory that main and the tests serve.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &karpenterProvider{version: version, newClient: awsclient.New}
	}
}

type providerModel struct {
	Region                    types.String       `tfsdk:"region"`
	Profile                   types.String       `tfsdk:"profile"`
	AccessKey                 types.String       `tfsdk:"access_key"`
	SecretKey                 types.String       `tfsdk:"secret_key"`
	Endpoints                 *endpointsModel    `tfsdk:"endpoints"`
	SkipCredentialsValidation types.Bool         `tfsdk:"skip_credentials_validation"`
	SkipRequestingAccountID   types.Bool         `tfsdk:"skip_requesting_account_id"`
	MaxRetries                types.Int64        `tfsdk:"max_retries"`
	ClusterName               types.String       `tfsdk:"cluster_name"`
	ClusterEndpoint           types.String       `tfsdk:"cluster_endpoint"`
	ClusterCA                 types.String       `tfsdk:"cluster_certificate_authority_data"`
	ClusterServiceCIDR        types.String       `tfsdk:"cluster_service_cidr"`
	KubernetesVersion         types.String       `tfsdk:"kubernetes_version"`
	LookupCluster             types.Bool         `tfsdk:"lookup_cluster"`
	CatalogCache              *catalogCacheModel `tfsdk:"catalog_cache"`
	Kubernetes                *kubernetesModel   `tfsdk:"kubernetes"`
	KarpenterVersion          types.String       `tfsdk:"karpenter_version"`
	KarpenterFeatureGates     types.List         `tfsdk:"karpenter_feature_gates"`
}

// kubernetesModel is the optional read-only access to the cluster.
type kubernetesModel struct {
	Host                 types.String `tfsdk:"host"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Token                types.String `tfsdk:"token"`
}

type catalogCacheModel struct {
	Directory types.String `tfsdk:"directory"`
	TTL       types.String `tfsdk:"ttl"`
}

type endpointsModel struct {
	EC2     types.String `tfsdk:"ec2"`
	STS     types.String `tfsdk:"sts"`
	SSM     types.String `tfsdk:"ssm"`
	IAM     types.String `tfsdk:"iam"`
	EKS     types.String `tfsdk:"eks"`
	Pricing types.String `tfsdk:"pricing"`
}

func (p *karpenterProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "karpenter"
	resp.Version = p.version
}

func (p *karpenterProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Brings Karpenter's EC2NodeClass / NodePool networking model to `terraform plan`: " +
			"selector terms resolved against the live EC2 API, pod capacity per instance type, and launch plans. " +
			"Credentials and region follow the standard AWS sources unless set here.",
		Attributes: mergeAttributes(providerAWSAttributes(), providerClusterAttributes(), providerKarpenterAttributes()),
	}
}

// Meta is what Configure hands to every resource and data source.
type Meta struct {
	Client      *awsclient.Client
	ClusterName string
	Bootstrap   launchplan.Bootstrap
	// KubernetesVersion is the cluster's major.minor ("" when not set): AMI aliases resolve with it.
	KubernetesVersion string
	// KarpenterVersion is the Karpenter minor manifests are rendered and admitted for ("1.15").
	KarpenterVersion string
	// KarpenterFeatureGates are the feature gates the cluster's Karpenter enables (NodeClassCEL).
	KarpenterFeatureGates []string
	// Kube is the read-only cluster access (nil without the provider's `kubernetes`).
	Kube        *kubeclient.Client
	AfterLaunch func(pool string) error // tests only
	BeforeClaim func(pool string)       // tests only
}

func (p *karpenterProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	// A configured process plans or applies, and every plan admits a manifest: compile the CRDs
	// (tens of ms) while the AWS clients are set up and STS answers, not after.
	go func() {
		var v types.String
		_ = req.Config.GetAttribute(ctx, path.Root("karpenter_version"), &v)
		_, _ = manifest.CRDsFor(cmp.Or(v.ValueString(), manifest.DefaultVersion))
	}()
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	settings := cfg.settings()
	bootstrap, errs := launchplan.CheckSettings(settings)
	if addFindings(&resp.Diagnostics, attrpath.Path{}, errs, "", false); resp.Diagnostics.HasError() {
		return
	}
	client := p.client(ctx, cfg, &resp.Diagnostics)
	if client == nil {
		return
	}
	if settings.LookupCluster.Value {
		if settings, bootstrap = lookupCluster(ctx, client, settings, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
	}
	meta := &Meta{Client: client, ClusterName: settings.ClusterName.Value, Bootstrap: bootstrap, KubernetesVersion: settings.KubernetesVersion.Value,
		KarpenterVersion: cmp.Or(settings.KarpenterVersion.Value, manifest.DefaultVersion), AfterLaunch: p.afterLaunch, BeforeClaim: p.beforeClaim}
	meta.KarpenterFeatureGates = stringList(ctx, cfg.KarpenterFeatureGates, &resp.Diagnostics)
	if k := cfg.Kubernetes; k != nil && !k.Host.IsNull() && !k.Host.IsUnknown() {
		kc, err := kubeclient.New(kubeclient.Config{Host: k.Host.ValueString(), CACertificatePEM: k.ClusterCACertificate.ValueString(), Token: k.Token.ValueString()})
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("kubernetes"), "Invalid Kubernetes access", err.Error())
			return
		}
		meta.Kube = kc
	}
	resp.DataSourceData = meta
	resp.ResourceData = meta
}

// settings are the configuration as launchplan's configure rules read it.
func (cfg providerModel) settings() launchplan.ProviderSettings {
	str := func(v types.String) launchplan.Setting[string] { return setting(v, v.ValueString()) }
	return launchplan.ProviderSettings{
		Region: str(cfg.Region), Profile: str(cfg.Profile), AccessKey: str(cfg.AccessKey), SecretKey: str(cfg.SecretKey),
		MaxRetries: setting(cfg.MaxRetries, cfg.MaxRetries.ValueInt64()), ClusterName: str(cfg.ClusterName),
		LookupCluster: setting(cfg.LookupCluster, cfg.LookupCluster.ValueBool()), KarpenterVersion: str(cfg.KarpenterVersion),
		ClusterEndpoint: str(cfg.ClusterEndpoint), ClusterCA: str(cfg.ClusterCA), ClusterServiceCIDR: str(cfg.ClusterServiceCIDR),
		KubernetesVersion: str(cfg.KubernetesVersion),
	}
}

// setting is a Terraform value as a launchplan.Setting.
func setting[T any](v attr.Value, value T) launchplan.Setting[T] {
	return launchplan.Setting[T]{Value: value, Null: v.IsNull(), Unknown: v.IsUnknown()}
}

// client builds the AWS client of the settings; nil with the reason reported.
func (p *karpenterProvider) client(ctx context.Context, cfg providerModel, diags *diag.Diagnostics) *awsclient.Client {
	s := awsclient.Settings{
		Region:                    cfg.Region.ValueString(),
		Profile:                   cfg.Profile.ValueString(),
		AccessKey:                 cfg.AccessKey.ValueString(),
		SecretKey:                 cfg.SecretKey.ValueString(),
		MaxRetries:                int(cfg.MaxRetries.ValueInt64()),
		SkipCredentialsValidation: cfg.SkipCredentialsValidation.ValueBool(),
		SkipRequestingAccountID:   cfg.SkipRequestingAccountID.ValueBool(),
		UserAgent:                 "terraform-provider-karpenter/" + p.version,
	}
	if cfg.Endpoints != nil {
		s.EC2Endpoint = cfg.Endpoints.EC2.ValueString()
		s.STSEndpoint = cfg.Endpoints.STS.ValueString()
		s.SSMEndpoint = cfg.Endpoints.SSM.ValueString()
		s.IAMEndpoint = cfg.Endpoints.IAM.ValueString()
		s.EKSEndpoint = cfg.Endpoints.EKS.ValueString()
		s.PricingEndpoint = cfg.Endpoints.Pricing.ValueString()
	}
	var dir, ttl *string
	if c := cfg.CatalogCache; c != nil {
		dir, ttl = c.Directory.ValueStringPointer(), c.TTL.ValueStringPointer()
	}
	disk, err := awsclient.CatalogDiskFrom(dir, ttl, os.Getenv, os.UserCacheDir)
	if err != nil {
		diags.AddAttributeError(path.Root("catalog_cache").AtName("ttl"), "Invalid catalog cache TTL", err.Error())
		return nil
	}
	s.CatalogCache = disk
	ctx = tflog.MaskFieldValuesWithFieldKeys(ctx, "access_key", "secret_key")
	tflog.Debug(ctx, "configuring AWS client", map[string]any{"region": s.Region, "profile": s.Profile, "ec2_endpoint": s.EC2Endpoint})
	client, err := p.newClient(ctx, s)
	if err != nil {
		addSettingError(diags, err, "Invalid AWS configuration", "Cannot configure the AWS client")
		return nil
	}
	tflog.Debug(ctx, "AWS client ready", map[string]any{"region": client.Region, "account_id": client.AccountID})
	return client
}

// lookupCluster fills the unset cluster facts from EKS (lookup_cluster): the merged settings
// and the bootstrap facts they make.
func lookupCluster(ctx context.Context, client *awsclient.Client, s launchplan.ProviderSettings, diags *diag.Diagnostics) (launchplan.ProviderSettings, launchplan.Bootstrap) {
	facts, err := client.DescribeClusterFacts(ctx, s.ClusterName.Value)
	if err != nil {
		addSettingError(diags, err, "Cannot look up the EKS cluster", "Cannot look up the EKS cluster")
		return s, launchplan.Bootstrap{}
	}
	merged := launchplan.MergeClusterFacts(s, launchplan.ClusterFacts(facts))
	addFindings(diags, attrpath.Path{}, merged.Errors, "", false)
	addFindings(diags, attrpath.Path{}, merged.Warnings, "", true)
	return merged.Settings, merged.Bootstrap
}

// addSettingError reports err on the setting it names (awsclient.SettingError), or on the
// provider as a whole.
func addSettingError(diags *diag.Diagnostics, err error, onSetting, otherwise string) {
	var se *awsclient.SettingError
	if errors.As(err, &se) {
		diags.AddAttributeError(path.Root(se.Setting), onSetting, se.Error())
		return
	}
	diags.AddError(otherwise, err.Error())
}

func (p *karpenterProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		newNodeClassResource,
		newNodePoolResource,
	}
}

func (p *karpenterProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newSubnetsDataSource,
		newSecurityGroupsDataSource,
		newPodCapacityDataSource,
		newInstanceTypesDataSource,
	}
}

// metaFrom is the shared Configure body of resources and data sources.
func metaFrom(providerData any, diags interface{ AddError(string, string) }) *Meta {
	if providerData == nil {
		return nil // ValidateConfig and early calls run before the provider is configured
	}
	m, ok := providerData.(*Meta)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *provider.Meta, got %T; this is a bug in the provider", providerData))
		return nil
	}
	return m
}

// providerAWSAttributes are provider settings of one group (Schema).
func providerAWSAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"region": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "AWS region, e.g. `ap-southeast-1`. Defaults to `AWS_REGION` / `AWS_DEFAULT_REGION` or the shared config profile's region.",
		},
		"profile": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Shared config / credentials profile name. Defaults to `AWS_PROFILE`.",
		},
		"access_key": schema.StringAttribute{
			Optional:            true,
			Sensitive:           true,
			MarkdownDescription: "AWS access key id. Set together with `secret_key`; otherwise the default credential chain applies.",
		},
		"secret_key": schema.StringAttribute{
			Optional:            true,
			Sensitive:           true,
			MarkdownDescription: "AWS secret access key. Set together with `access_key`.",
		},
		"endpoints": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Custom service endpoints, e.g. LocalStack's `http://127.0.0.1:4566`. The standard " +
				"`AWS_ENDPOINT_URL` and `AWS_ENDPOINT_URL_<SERVICE>` (`_EC2`, `_STS`, `_SSM`, `_IAM`, `_EKS`, `_PRICING`) variables work too; values set here win.",
			Attributes: map[string]schema.Attribute{
				"ec2":     schema.StringAttribute{Optional: true, MarkdownDescription: "EC2 endpoint URL."},
				"sts":     schema.StringAttribute{Optional: true, MarkdownDescription: "STS endpoint URL."},
				"ssm":     schema.StringAttribute{Optional: true, MarkdownDescription: "SSM endpoint URL (AMI `alias` and `ssm_parameter` terms)."},
				"iam":     schema.StringAttribute{Optional: true, MarkdownDescription: "IAM endpoint URL (instance profiles for a node class `role`)."},
				"eks":     schema.StringAttribute{Optional: true, MarkdownDescription: "EKS endpoint URL (`lookup_cluster`)."},
				"pricing": schema.StringAttribute{Optional: true, MarkdownDescription: "AWS Pricing API endpoint URL (on-demand prices; by default the Pricing API region Karpenter uses)."},
			},
		},
		"skip_credentials_validation": schema.BoolAttribute{
			Optional:            true,
			MarkdownDescription: "Skip the STS `GetCallerIdentity` credentials check at configure time. Default `false`.",
		},
		"skip_requesting_account_id": schema.BoolAttribute{
			Optional:            true,
			MarkdownDescription: "Do not look up the account id. With `skip_credentials_validation` no STS call is made at all. Default `false`.",
		},
		"max_retries": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("Maximum attempts per AWS API call, with adaptive (client-side rate limited) retries "+
				"on throttling and transient errors. Default `%d`.", awsclient.DefaultMaxRetries),
			Validators: []validator.Int64{int64validator.Between(1, 100)},
		},
	}
}

// providerClusterAttributes are provider settings of one group (Schema).
func providerClusterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"kubernetes": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Optional read-only access to the cluster, in the usual shape (`host`, `cluster_ca_certificate`, " +
				"`token`; e.g. from terraform-aws-eks and `aws_eks_cluster_auth`). With it, a dynamic pool's plan lists the pool's " +
				"Karpenter NodeClaims (`get`/`list` on `nodeclaims.karpenter.sh`) and, with `ec2:DescribeInstances`, their subnets, " +
				"and `drift.verdict` counts exactly which running nodes a change drifts and why. Without it the verdict is per pool. " +
				"Nothing is ever written to the cluster.",
			Attributes: map[string]schema.Attribute{
				"host": schema.StringAttribute{Required: true, MarkdownDescription: "The API server's URL, e.g. `module.eks.cluster_endpoint`."},
				"cluster_ca_certificate": schema.StringAttribute{Optional: true, MarkdownDescription: "PEM CA bundle of the API server " +
					"(`base64decode(module.eks.cluster_certificate_authority_data)`); unset: the system roots."},
				"token": schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "Bearer token, e.g. " +
					"`data.aws_eks_cluster_auth.this.token`."},
			},
		},
		"catalog_cache": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Where and how long the instance-type catalog (`DescribeInstanceTypes` and " +
				"`DescribeInstanceTypeOfferings`, seconds of paging) is kept on disk, so that `terraform plan`, `apply` and the " +
				"next plan read it once per `ttl` instead of once per provider process, and apply plans on the catalog the plan " +
				"saw. One file per EC2 endpoint, region and account; not used when the account id is skipped.",
			Attributes: map[string]schema.Attribute{
				"directory": schema.StringAttribute{Optional: true, MarkdownDescription: "Cache directory. Default: " +
					"`KARPENTER_CATALOG_CACHE_DIR`, else `terraform-provider-karpenter` in the user's cache directory (`$XDG_CACHE_HOME` or `~/.cache` on Linux)."},
				"ttl": schema.StringAttribute{Optional: true, MarkdownDescription: "How long a cached catalog is used, a Go duration " +
					"such as `30m` or `6h`; `0s` turns the cache off. Default: `KARPENTER_CATALOG_CACHE_TTL`, else `1h`.",
					Validators: []validator.String{durationValidator{}}},
			},
		},
		"cluster_name": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "EKS cluster name. Node classes without selector terms discover subnets and security groups " +
				"tagged `karpenter.sh/discovery = <cluster_name>`, and EC2 objects the provider creates are tagged with it.",
		},
		"cluster_endpoint": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "The cluster's API server endpoint (`https://…`, terraform-aws-eks: `module.eks.cluster_endpoint`). With " +
				"`cluster_certificate_authority_data` and `cluster_service_cidr` it goes into the user data of every launch template " +
				"(nodeadm NodeConfig, `bootstrap.sh` flags, Bottlerocket settings, `Start-EKSBootstrap.ps1` arguments); static pools " +
				"need all three (and `cluster_name`), since the provider launches their nodes itself.",
		},
		"cluster_certificate_authority_data": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "The cluster's CA bundle, base64 as EKS returns it (`module.eks.cluster_certificate_authority_data`).",
		},
		"cluster_service_cidr": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "The cluster's Kubernetes service IPv4 CIDR, e.g. `172.20.0.0/16` (`module.eks.cluster_service_cidr`).",
		},
	}
}

// providerKarpenterAttributes are provider settings of one group (Schema).
func providerKarpenterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"kubernetes_version": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "The cluster's Kubernetes version, `major.minor` (`module.eks.cluster_version`). Node classes resolve an AMI " +
				"`alias` at plan through the AWS public SSM parameters of this version, as Karpenter does; without it an alias is left to " +
				"Karpenter (a warning), and static pools cannot use it.",
			Validators: []validator.String{stringvalidator.RegexMatches(launchplan.KubernetesVersionPattern, "must be major.minor, e.g. 1.33")},
		},
		"karpenter_version": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "The Karpenter minor the cluster runs, `\"1.9\"` to `\"" + manifest.DefaultVersion + "\"` (default: `\"" +
				manifest.DefaultVersion + "\"`, the newest supported). Manifests are rendered and validated at plan against that " +
				"version's CRDs (each minor's newest patch, embedded): an attribute the version lacks is an error naming the first " +
				"version that has it, and v1.15's free-form `kubelet` fields and expressions need `\"1.15\"`. Every class and pool " +
				"of the provider uses it. See the Karpenter versions guide.",
			Validators: []validator.String{stringvalidator.OneOf(manifest.Versions()...)},
		},
		"karpenter_feature_gates": schema.ListAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Karpenter feature gates the cluster's controller runs with (its `--feature-gates`), by name. `NodeClassCEL` " +
				"(Karpenter 1.15, off by default) lets a class's `kubelet.max_pods_expression` and reserved-resource expressions through; " +
				"without it Karpenter refuses a class that has one, and so does the plan.",
			Validators: []validator.List{listvalidator.ValueStringsAre(stringvalidator.OneOf(kubeletconfig.FeatureGate))},
		},
		"lookup_cluster": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "Read `cluster_endpoint`, `cluster_certificate_authority_data`, `cluster_service_cidr` and " +
				"`kubernetes_version` from EKS: one `eks:DescribeCluster` of `cluster_name` (required with it) when the provider is " +
				"configured. Each fills only a setting left unset; a setting given here wins, with a warning when it differs " +
				"from the cluster's. Looked-up values are checked as the settings are; what EKS does not report (a cluster still " +
				"creating, an IPv6 service range) stays unset. Default `false`.",
		},
	}
}
