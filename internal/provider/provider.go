// Package provider is the Terraform shell: schemas, validation on attribute paths, and CRUD that
// hands plain Go values to the pure packages and the AWS adapter.
package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/admitted"
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/featuregates"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/memo"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

var (
	_ provider.Provider                  = (*karpenterProvider)(nil)
	_ provider.ProviderWithListResources = (*karpenterProvider)(nil)
)

type karpenterProvider struct {
	version string
	// newClient is swapped by unit tests; production uses awsclient.New.
	newClient awsclient.NewClientFunc
	// afterLaunch is injected by tests: it runs after each CreateFleet of a static pool, and an
	// error stops the apply there as a crash would.
	afterLaunch func(pool string) error
	// beforeClaim is injected by tests: it runs when a new pool's apply has checked that no other
	// owner holds the name, right before its first EC2 write.
	beforeClaim func(pool string)
	// crdNames is injected by tests: the CRDs read by kind instead of installation.CRDNames (the
	// test API server keeps other versions' CRDs under other names).
	crdNames map[string]string
	// meta is what Configure gave the resources, for the plans the server answers itself
	// (resolvableServer); nil before Configure.
	meta atomic.Pointer[Meta]
}

// New returns the provider factory that main and the tests serve.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &karpenterProvider{version: version, newClient: awsclient.New}
	}
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
	// KarpenterFeatureGates are karpenter_feature_gates as configured: `Name`, `Name=true` or
	// `Name=false` (read them with reservations.GateOn).
	KarpenterFeatureGates []string
	// CapacityBlockHorizon is capacity_block_horizon: how far ahead of a plan a selected Capacity
	// Block's end is a warning (reservations.DefaultHorizon when unset).
	CapacityBlockHorizon time.Duration
	// Controller is Karpenter's controller as the cluster runs it (nil: not read).
	Controller *installation.Controller
	// Kube is the read-only cluster access (nil without the provider's `kubernetes`).
	Kube *kubeclient.Client
	// CRDs are the cluster's Karpenter CRDs compared with KarpenterVersion's (nil: not read).
	CRDs *installation.CRDCheck
	// Cluster is what eks:DescribeCluster reported with lookup_cluster (nil: not looked up).
	Cluster     *settings.ClusterFacts
	AfterLaunch func(pool string) error // tests only
	BeforeClaim func(pool string)       // tests only
	// clusterLists keeps the cluster-wide lists every pool plan of the process asks for (the
	// NodePools, the NodeOverlays' names): listed once, a snapshot for the whole walk.
	clusterLists memo.Memo
	// reported are the provider-wide warnings already raised as diagnostics (onceEach).
	reported sync.Map
	// admitted are the manifests this build admitted before, kept beside the catalog cache
	// (nil: no cache directory, or the cache is off).
	admitted *admitted.Store
}

// providerWide are the summaries of pool warnings that describe the provider's environment, not
// the pool: every pool of a plan would raise the same one (the Pricing API cannot be read).
var providerWide = map[string]bool{launchplan.SummaryPriceFallback: true}

// onceEach is warnings without the provider-wide ones this configured provider has raised
// already: the first pool that meets the condition says it, the others carry it in their
// `warnings` and `summary.prices` only, so a plan of a hundred pools has one such warning
// instead of a hundred (each of which Terraform prints or consolidates).
func (m *Meta) onceEach(warnings []attrpath.Finding) []attrpath.Finding {
	out := warnings[:0:0]
	for _, w := range warnings {
		if providerWide[w.Summary] {
			if _, seen := m.reported.LoadOrStore(w.Summary+"\x00"+w.Error(), true); seen {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// clusterNodePools lists the cluster's NodePools, once per configured provider (clusterLists).
func (m *Meta) clusterNodePools(ctx context.Context) ([]map[string]any, error) {
	return memo.Do(ctx, &m.clusterLists, "nodepools", func() ([]map[string]any, error) {
		return m.Kube.Objects(ctx, manifest.NodePoolAPIVersion, "nodepools", "")
	})
}

// clusterNodeOverlays lists the names of the cluster's NodeOverlays, once per configured
// provider (clusterLists).
func (m *Meta) clusterNodeOverlays(ctx context.Context) ([]string, error) {
	return memo.Do(ctx, &m.clusterLists, "nodeoverlays", func() ([]string, error) { return m.Kube.NodeOverlays(ctx) })
}

// clusterAutoMode is the looked-up cluster's EKS Auto Mode compute (nil: not looked up).
func (m *Meta) clusterAutoMode() *settings.AutoModeFacts {
	if m.Cluster == nil {
		return nil
	}
	return m.Cluster.AutoMode
}

// autoModeCluster is the cluster an Auto Mode NodeClass's plan checks (nil without
// lookup_cluster: nothing is checked).
func (m *Meta) autoModeCluster() *planner.AutoModeCluster {
	if m.Cluster == nil {
		return nil
	}
	facts := *m.Cluster
	if facts.ARN == "" { // EKS reported no ARN: the cluster is the caller's, in the caller's partition
		facts.ARN = awsclient.ARN(m.Client.Partition, "eks", m.Client.Region, m.Client.AccountID, "cluster/"+m.ClusterName)
	}
	return &planner.AutoModeCluster{Name: m.ClusterName, Facts: facts, AccountID: m.Client.AccountID, Entries: m.Client}
}

// providerSettings is the provider's configuration as Configure decodes it: what configures the
// clients; the feature gates are read as a framework list, whose unknown elements are errors.
type providerSettings struct {
	settings.ProviderConfig
	_ struct{} `tfsdk:"karpenter_feature_gates"`
}

func (p *karpenterProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var decodedCfg providerSettings
	if !decodeInto(req.Config.Raw, &decodedCfg, "provider configuration", &resp.Diagnostics) {
		return
	}
	cfg, userAgent := decodedCfg.ProviderConfig, "terraform-provider-karpenter/"+p.version
	connect := func(ctx context.Context) (*awsclient.Client, []attrpath.Finding) {
		return awsclient.Connect(ctx, cfg, p.newClient, userAgent)
	}
	var store *admitted.Store
	if disk, err := awsclient.CatalogDiskOf(cfg); err == nil && disk != nil { // Connect reports an error
		store = admitted.Open(disk.Dir, p.version)
	}
	c, errs, warnings := planner.Configure(ctx, cfg, connect, store.Recorded())
	if addFindings(&resp.Diagnostics, errs, warnings); resp.Diagnostics.HasError() {
		return
	}
	var gates types.List // a list as the framework reads it: an element not known yet is its error
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("karpenter_feature_gates"), &gates)...)
	horizon, errs := cfg.Horizon()
	if addFindings(&resp.Diagnostics, errs, nil); resp.Diagnostics.HasError() {
		return
	}
	meta := &Meta{Client: c.Client, ClusterName: c.ClusterName, Bootstrap: c.Bootstrap, KubernetesVersion: c.KubernetesVersion,
		KarpenterVersion: c.KarpenterVersion, KarpenterFeatureGates: stringList(ctx, gates, &resp.Diagnostics), Kube: c.Kube,
		Cluster: c.Cluster, CapacityBlockHorizon: horizon, AfterLaunch: p.afterLaunch, BeforeClaim: p.beforeClaim, admitted: store}
	if c.Kube != nil && !resp.Diagnostics.HasError() {
		var errs, warnings []attrpath.Finding
		meta.Controller, errs, warnings = planner.CheckInstallation(ctx, planner.InstallationPorts{Deployment: c.Kube.Deployment,
			Deployments: c.Kube.Deployments, Queue: c.Client.InterruptionQueue, ServiceAccount: c.Kube.ServiceAccountAnnotations,
			PodIdentityRole: c.Client.PodIdentityRole, RolePolicies: awsclient.InstanceProfiles{IAM: c.Client.IAM, Versions: c.Client.PolicyVersions()}.RolePolicies},
			cfg.KarpenterController.Value,
			installation.Want{KarpenterVersion: c.KarpenterVersion, FeatureGates: meta.KarpenterFeatureGates, ClusterName: c.ClusterName,
				Region: c.Client.Region})
		addFindings(&resp.Diagnostics, errs, warnings)
		if resp.Diagnostics.HasError() {
			return
		}
		names := p.crdNames
		if names == nil {
			names = installation.CRDNames
		}
		meta.CRDs, warnings = planner.ReadCRDs(ctx, c.Kube.CRD, names, c.KarpenterVersion)
		addFindings(&resp.Diagnostics, nil, warnings)
	}
	resp.DataSourceData, resp.ResourceData, resp.ListResourceData = meta, meta, meta
	if !resp.Diagnostics.HasError() {
		p.meta.Store(meta)
	}
}

func (p *karpenterProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		newNodeClassResource,
		newAutoModeNodeClassResource,
		newNodePoolResource,
		newNodeOverlayResource,
	}
}

// ListResources are what `terraform query` lists (Terraform >= 1.14).
func (p *karpenterProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{newNodeClassList, newAutoModeNodeClassList, newNodePoolList, newNodeOverlayList}
}

func (p *karpenterProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newSubnetsDataSource,
		newSecurityGroupsDataSource,
		newPodCapacityDataSource,
		newInstanceTypesDataSource,
		newCapacityReservationsDataSource,
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
				"`AWS_ENDPOINT_URL` and `AWS_ENDPOINT_URL_<SERVICE>` (`_EC2`, `_STS`, `_SSM`, `_IAM`, `_EKS`, `_PRICING`, `_SQS`, `_EVENTBRIDGE`) variables work too; values set here win.",
			Attributes: map[string]schema.Attribute{
				"ec2":     schema.StringAttribute{Optional: true, MarkdownDescription: "EC2 endpoint URL."},
				"sts":     schema.StringAttribute{Optional: true, MarkdownDescription: "STS endpoint URL."},
				"ssm":     schema.StringAttribute{Optional: true, MarkdownDescription: "SSM endpoint URL (AMI `alias` and `ssm_parameter` terms)."},
				"iam":     schema.StringAttribute{Optional: true, MarkdownDescription: "IAM endpoint URL (instance profiles for a node class `role`)."},
				"eks":     schema.StringAttribute{Optional: true, MarkdownDescription: "EKS endpoint URL (`lookup_cluster`)."},
				"pricing": schema.StringAttribute{Optional: true, MarkdownDescription: "AWS Pricing API endpoint URL (on-demand prices; by default the Pricing API region Karpenter uses)."},
				"sqs":     schema.StringAttribute{Optional: true, MarkdownDescription: "SQS endpoint URL (the running controller's interruption queue, with `kubernetes` access)."},
				"events":  schema.StringAttribute{Optional: true, MarkdownDescription: "EventBridge endpoint URL (the rules that feed the interruption queue)."},
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
				"on throttling and transient errors. Default `%d`. The interruption queue's SQS and EventBridge reads, which only the "+
				"installation check makes, take at most %d.", awsclient.DefaultMaxRetries, awsclient.AdvisoryMaxAttempts),
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
				"With the `NodeOverlay` gate on, a pool also lists the cluster's NodeOverlays (`list` on `nodeoverlays.karpenter.sh`) " +
				"and warns about those its `node_overlays` lacks. The served EC2NodeClass, NodePool and NodeOverlay CRDs are read " +
				"(`get` on `customresourcedefinitions.apiextensions.k8s.io`) and every manifest is checked against them as well: a " +
				"missing CRD, or a field an older CRD would drop or refuse, is an error (see the installation guide). Import by name reads " +
				"the live EC2NodeClass or NodePool (`get` on `ec2nodeclasses.karpenter.k8s.aws` and `nodepools.karpenter.sh`; see the " +
				"guide \"From YAML to the provider\"). `karpenter_capacity_reservations` lists the cluster's NodePools (`list` on " +
				"`nodepools.karpenter.sh`) to judge the ones on its classes. Nothing is ever " +
				"written to the cluster.",
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
				"saw. The prices and the AWS managed policies the node-role check reads (which version is the default, for `ttl`; " +
				"a version's document, which never changes) are kept beside it. One file per EC2 endpoint, region and account; " +
				"not used when the account id is skipped. Also beside it, one file per build of the provider: the manifests " +
				"that build admitted (Karpenter's CRD validation with its CEL rules, and Karpenter's runtime checks), so that a " +
				"later plan takes those verdicts instead of judging the same manifests again; refusals are always judged again.",
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
			Validators: []validator.String{stringvalidator.RegexMatches(settings.KubernetesVersionPattern, "must be major.minor, e.g. 1.33")},
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
		"karpenter_controller": schema.StringAttribute{Optional: true, MarkdownDescription: "Karpenter's controller Deployment as " +
			"`namespace/name` (e.g. `kube-system/karpenter`). With `kubernetes` access the plan compares the running controller with " +
			"these settings: another release than `karpenter_version` is a warning (an older one also admits every manifest against " +
			"its CRDs; older than v1.9, an error), a gate in `karpenter_feature_gates` it runs without is an error, and another " +
			"`CLUSTER_NAME` is an error. Its interruption queue and its IAM role (IRSA annotation or EKS Pod Identity) are checked " +
			"against what its release needs (warnings). Unset, the controller is found by the chart's label " +
			"`app.kubernetes.io/name=karpenter` (none found: nothing is checked; several: a warning). Needs `get`/`list` on " +
			"`deployments.apps` and `get` on `serviceaccounts`. See the guide Checking the Karpenter installation."},
		"karpenter_feature_gates": schema.ListAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Karpenter feature gates the cluster's controller runs with (its `--feature-gates` and " +
				"`--aws-feature-gates`): `Name` or `Name=true` turns a gate on, `Name=false` off; a gate not listed has its default, " +
				"and the last entry naming a gate wins. Every gate of Karpenter 1.9–1.15 is accepted (read from the releases' own " +
				"options; see the Karpenter versions guide), and one that the release `karpenter_version` names lacks is refused " +
				"on its entry, as that controller refuses to start with it. `TerminateFirstDrift` (1.15) changes the warning about " +
				"a static pool at its node limit: drift then deletes first. `NodeClassCEL` " +
				"(Karpenter 1.15, off by default) lets a class's `kubelet.max_pods_expression` and reserved-resource expressions through; " +
				"without it Karpenter refuses a class that has one, and so does the plan. `NodeOverlay` (alpha, off by default) makes " +
				"Karpenter apply NodeOverlays; without it `karpenter_node_overlay` and a pool's `node_overlays` are refused, as Karpenter " +
				"would ignore them. `StaticCapacity` (alpha, off by default) makes Karpenter keep static NodePools; a pool with " +
				"`launcher = \"karpenter\"` needs it. `ReservedCapacity` is on by default in Karpenter 1.9–1.15 (pools with " +
				"`reserved` launch into the classes' capacity reservations); `ReservedCapacity=false` says the cluster runs it off.",
			Validators: []validator.List{listvalidator.ValueStringsAre(featureGateValidator{})},
		},
		"capacity_block_horizon": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "How far ahead of the plan a Capacity Block a node class selects is a warning when it ends, a Go " +
				"duration greater than zero such as `24h`, `90m` or `2h30m`. Default `24h`. Karpenter stops launching into a block 40 " +
				"minutes before its end (it calls it `expiring`) and the block's nodes are reclaimed at the end.",
			Validators: []validator.String{horizonValidator{}},
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

type featureGateValidator struct{}

func (featureGateValidator) Description(context.Context) string {
	return "a feature gate of a Karpenter release (" + strings.Join(featuregates.Names(), ", ") + "), as Name, Name=true or Name=false"
}
func (v featureGateValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (featureGateValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := featuregates.CheckEntry(req.ConfigValue.ValueString()); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid feature gate", msg)
	}
}

var _ provider.ProviderWithValidateConfig = (*karpenterProvider)(nil)

// ValidateConfig refuses the feature gates the release karpenter_version names does not have,
// each on its entry (planner.CheckFeatureGates); entries not known yet are left out.
func (p *karpenterProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var version types.String
	var list types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("karpenter_version"), &version)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("karpenter_feature_gates"), &list)...)
	if resp.Diagnostics.HasError() || version.IsUnknown() || list.IsNull() || list.IsUnknown() {
		return
	}
	var gates []types.String
	if resp.Diagnostics.Append(list.ElementsAs(ctx, &gates, false)...); resp.Diagnostics.HasError() {
		return
	}
	entries := make([]string, len(gates))
	for i, g := range gates {
		entries[i] = g.ValueString() // "" when not known: not a gate setting, so not judged here
	}
	addFindings(&resp.Diagnostics, planner.CheckFeatureGates(version.ValueString(), entries), nil)
}

// horizonValidator checks capacity_block_horizon (settings.ParseCapacityBlockHorizon) at
// validation time, on its own path.
type horizonValidator struct{}

func (horizonValidator) Description(context.Context) string {
	return "a Go duration greater than zero such as 24h or 90m"
}
func (v horizonValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (horizonValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := settings.ParseCapacityBlockHorizon(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid capacity_block_horizon", err.Error())
	}
}
