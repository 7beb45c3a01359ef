package provider

import (
	"context"
	"encoding/base64"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// providerConfigValue builds a provider config with the given top-level string/bool/number
// attributes set and the rest null; endpoints sets the nested ec2/sts endpoint.
func providerConfigValue(t *testing.T, p provider.Provider, attrs map[string]any, stsEndpoint string) tfsdk.Config {
	t.Helper()
	ctx := context.Background()
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	objType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, typ := range objType.AttributeTypes {
		vals[name] = tftypes.NewValue(typ, nil)
	}
	for k, v := range attrs {
		vals[k] = tftypes.NewValue(objType.AttributeTypes[k], v)
	}
	if stsEndpoint != "" {
		et := objType.AttributeTypes["endpoints"].(tftypes.Object)
		vals["endpoints"] = tftypes.NewValue(et, map[string]tftypes.Value{
			"ec2":     tftypes.NewValue(tftypes.String, stsEndpoint),
			"sts":     tftypes.NewValue(tftypes.String, stsEndpoint),
			"ssm":     tftypes.NewValue(tftypes.String, nil),
			"iam":     tftypes.NewValue(tftypes.String, nil),
			"eks":     tftypes.NewValue(tftypes.String, nil),
			"pricing": tftypes.NewValue(tftypes.String, nil),
			"sqs":     tftypes.NewValue(tftypes.String, nil),
			"events":  tftypes.NewValue(tftypes.String, nil),
		})
	}
	return tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, vals)}
}

// isolateAWSEnv clears the variables that would let the SDK find a region or credentials.
func isolateAWSEnv(t *testing.T) {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL_SSM", "AWS_ENDPOINT_URL_IAM", "AWS_ENDPOINT_URL_EKS"} {
		t.Setenv(k, "")
		_ = os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func TestConfigure_errorsNameTheSetting(t *testing.T) {
	isolateAWSEnv(t)
	cases := []struct {
		name     string
		attrs    map[string]any
		endpoint string
		wantPath string
		wantText string
	}{
		{"no region anywhere", map[string]any{"skip_credentials_validation": true, "skip_requesting_account_id": true}, "", "region", "no AWS region"},
		{"access key without secret", map[string]any{"region": "ap-southeast-1", "access_key": "AKIDEXAMPLE"}, "", "secret_key", "must be set together"},
		{"unreachable STS", map[string]any{"region": "ap-southeast-1", "access_key": "a", "secret_key": "b", "max_retries": 1}, "http://127.0.0.1:1", "endpoints", "cannot be reached"},
		{"profile that does not exist", map[string]any{"region": "ap-southeast-1", "profile": "no-such-profile"}, "", "profile", "no-such-profile"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := New("test")()
			var resp provider.ConfigureResponse
			p.Configure(context.Background(), provider.ConfigureRequest{Config: providerConfigValue(t, p, c.attrs, c.endpoint)}, &resp)
			paths := errorPaths(resp.Diagnostics)
			if len(paths) != 1 || paths[0] != c.wantPath {
				t.Fatalf("error paths = %v, want [%s]; diags: %v", paths, c.wantPath, resp.Diagnostics)
			}
			if d := resp.Diagnostics.Errors()[0]; !strings.Contains(d.Detail(), c.wantText) {
				t.Fatalf("detail %q does not mention %q", d.Detail(), c.wantText)
			}
		})
	}
}

func TestConfigure_skipsSTSWhenAsked(t *testing.T) {
	isolateAWSEnv(t)
	p := New("test")()
	var resp provider.ConfigureResponse
	cfg := providerConfigValue(t, p, map[string]any{
		"region": "ap-southeast-1", "access_key": "a", "secret_key": "b",
		"skip_credentials_validation": true, "skip_requesting_account_id": true, "cluster_name": "my-cluster",
	}, "http://127.0.0.1:1")
	p.Configure(context.Background(), provider.ConfigureRequest{Config: cfg}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected errors: %v", resp.Diagnostics)
	}
	m, ok := resp.DataSourceData.(*Meta)
	if !ok || m.ClusterName != "my-cluster" || m.Client.Region != "ap-southeast-1" {
		t.Fatalf("meta = %+v", resp.DataSourceData)
	}
	if calls := m.Client.Calls.Snapshot(); len(calls) != 0 {
		t.Fatalf("skipping validation must make no call, got %v", calls)
	}
}

func warningPaths(diags diag.Diagnostics) []string {
	var out []string
	for _, d := range diags.Warnings() {
		if dp, ok := d.(diag.DiagnosticWithPath); ok {
			out = append(out, dp.Path().String())
		}
	}
	return out
}

func TestConfigure_lookupCluster(t *testing.T) {
	const eksEndpoint = "https://0123456789ABCDEF.yl4.eu-west-1.eks.amazonaws.com"
	eksCA := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIDEKS\n-----END CERTIFICATE-----\n"))
	cluster := func(endpoint, version string) *ekstypes.Cluster {
		return &ekstypes.Cluster{Name: aws.String("prod"), Endpoint: aws.String(endpoint), Version: aws.String(version),
			CertificateAuthority:    &ekstypes.Certificate{Data: aws.String(eksCA)},
			KubernetesNetworkConfig: &ekstypes.KubernetesNetworkConfigResponse{ServiceIpv4Cidr: aws.String("10.100.0.0/16")}}
	}
	lookup := map[string]any{"cluster_name": "prod", "lookup_cluster": true}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{"cluster_name": "prod", "lookup_cluster": true}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name          string
		attrs         map[string]any
		cluster       *ekstypes.Cluster
		err           error
		wantCalls     []string
		wantErrPath   string // "" when Configure succeeds
		wantErrText   string
		wantWarnPaths []string
		wantBootstrap launchplan.Bootstrap
		wantVersion   string
	}{
		{name: "facts filled", attrs: lookup, cluster: cluster(eksEndpoint, "1.33"), wantCalls: []string{"prod"},
			wantBootstrap: launchplan.Bootstrap{Endpoint: eksEndpoint, CABundle: eksCA, ServiceCIDR: "10.100.0.0/16"}, wantVersion: "1.33"},
		{name: "explicit settings win", cluster: cluster(eksEndpoint, "1.33"), wantCalls: []string{"prod"},
			attrs:         with(map[string]any{"cluster_endpoint": testClusterEndpoint, "kubernetes_version": "1.32", "cluster_service_cidr": "10.100.0.0/16"}),
			wantWarnPaths: []string{"cluster_endpoint", "kubernetes_version"}, // the equal service CIDR does not warn
			wantBootstrap: launchplan.Bootstrap{Endpoint: testClusterEndpoint, CABundle: eksCA, ServiceCIDR: "10.100.0.0/16"}, wantVersion: "1.32"},
		{name: "what EKS does not report stays unset", attrs: lookup, wantCalls: []string{"prod"},
			cluster:     &ekstypes.Cluster{Name: aws.String("prod"), Status: ekstypes.ClusterStatusCreating, Version: aws.String("1.34")},
			wantVersion: "1.34"},
		{name: "lookup off by default", attrs: map[string]any{"cluster_name": "prod"}, cluster: cluster(eksEndpoint, "1.33")},
		{name: "cluster not found", attrs: lookup, wantCalls: []string{"prod"},
			err:         &ekstypes.ResourceNotFoundException{Message: aws.String("No cluster found for name: prod.")},
			wantErrPath: "cluster_name", wantErrText: `EKS cluster "prod" not found`},
		{name: "access denied", attrs: lookup, wantCalls: []string{"prod"},
			err:         &ekstypes.AccessDeniedException{Message: aws.String("User: arn:aws:iam::111122223333:user/ci is not authorized")},
			wantErrPath: "lookup_cluster", wantErrText: "eks:DescribeCluster"},
		{name: "without cluster_name", attrs: map[string]any{"lookup_cluster": true}, cluster: cluster(eksEndpoint, "1.33"),
			wantErrPath: "lookup_cluster", wantErrText: "set `cluster_name`"},
		{name: "looked-up endpoint checked as the setting", attrs: lookup, cluster: cluster("http://prod.internal", "1.33"), wantCalls: []string{"prod"},
			wantErrPath: "cluster_endpoint", wantErrText: `"http://prod.internal" is not an https URL`},
		{name: "looked-up version checked as the setting", attrs: lookup, cluster: cluster(eksEndpoint, "1.33.2"), wantCalls: []string{"prod"},
			wantErrPath: "kubernetes_version", wantErrText: "not major.minor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := &awsfake.EKS{}
			if c.cluster != nil {
				fake.Clusters = []ekstypes.Cluster{*c.cluster}
			}
			if c.err != nil {
				fake.Fail = map[string]error{"DescribeCluster": c.err}
			}
			p := &karpenterProvider{version: "test", newClient: func(context.Context, awsclient.Settings) (*awsclient.Client, error) {
				return &awsclient.Client{EKS: fake, Region: "eu-west-1", Calls: awsclient.NewCallCounter()}, nil
			}}
			var resp provider.ConfigureResponse
			p.Configure(context.Background(), provider.ConfigureRequest{Config: providerConfigValue(t, p, c.attrs, "")}, &resp)
			var names []string
			for _, in := range awsfake.Inputs[eks.DescribeClusterInput](fake) {
				names = append(names, aws.ToString(in.Name))
			}
			if !reflect.DeepEqual(names, c.wantCalls) {
				t.Fatalf("DescribeCluster calls = %v, want %v", names, c.wantCalls)
			}
			if c.wantErrPath != "" {
				paths := errorPaths(resp.Diagnostics)
				if len(paths) != 1 || paths[0] != c.wantErrPath {
					t.Fatalf("error paths = %v, want [%s]; diags: %v", paths, c.wantErrPath, resp.Diagnostics)
				}
				if d := resp.Diagnostics.Errors()[0]; !strings.Contains(d.Detail(), c.wantErrText) {
					t.Fatalf("detail %q does not mention %q", d.Detail(), c.wantErrText)
				}
				if resp.DataSourceData != nil {
					t.Fatalf("a failed configure handed out %+v", resp.DataSourceData)
				}
				return
			}
			if resp.Diagnostics.HasError() {
				t.Fatalf("unexpected errors: %v", resp.Diagnostics)
			}
			if got := warningPaths(resp.Diagnostics); !reflect.DeepEqual(got, c.wantWarnPaths) {
				t.Fatalf("warning paths = %v, want %v", got, c.wantWarnPaths)
			}
			m := resp.DataSourceData.(*Meta)
			if m.Bootstrap != c.wantBootstrap || m.KubernetesVersion != c.wantVersion {
				t.Fatalf("bootstrap = %+v, version %q; want %+v, %q", m.Bootstrap, m.KubernetesVersion, c.wantBootstrap, c.wantVersion)
			}
		})
	}
}

// endpoints.eks reaches the client settings, as the other endpoints do.
func TestConfigure_eksEndpoint(t *testing.T) {
	var got awsclient.Settings
	p := &karpenterProvider{version: "test", newClient: func(_ context.Context, s awsclient.Settings) (*awsclient.Client, error) {
		got = s
		return &awsclient.Client{Region: "eu-west-1", Calls: awsclient.NewCallCounter()}, nil
	}}
	endpoints := map[string]tftypes.Value{"eks": tftypes.NewValue(tftypes.String, "http://127.0.0.1:4566")}
	for _, name := range []string{"ec2", "sts", "ssm", "iam", "pricing", "sqs", "events"} {
		endpoints[name] = tftypes.NewValue(tftypes.String, nil)
	}
	var resp provider.ConfigureResponse
	p.Configure(context.Background(), provider.ConfigureRequest{Config: providerConfigValue(t, p, map[string]any{"endpoints": endpoints}, "")}, &resp)
	if resp.Diagnostics.HasError() || got.EKSEndpoint != "http://127.0.0.1:4566" {
		t.Fatalf("EKSEndpoint = %q; diags: %v", got.EKSEndpoint, resp.Diagnostics)
	}
}

// endpoints.pricing reaches the client settings.
func TestConfigure_pricingEndpoint(t *testing.T) {
	var got awsclient.Settings
	p := &karpenterProvider{version: "test", newClient: func(_ context.Context, s awsclient.Settings) (*awsclient.Client, error) {
		got = s
		return &awsclient.Client{Region: "eu-west-1", Calls: awsclient.NewCallCounter()}, nil
	}}
	endpoints := map[string]tftypes.Value{"pricing": tftypes.NewValue(tftypes.String, "http://127.0.0.1:4567")}
	for _, name := range []string{"ec2", "sts", "ssm", "iam", "eks", "sqs", "events"} {
		endpoints[name] = tftypes.NewValue(tftypes.String, nil)
	}
	var resp provider.ConfigureResponse
	p.Configure(context.Background(), provider.ConfigureRequest{Config: providerConfigValue(t, p, map[string]any{"endpoints": endpoints}, "")}, &resp)
	if resp.Diagnostics.HasError() || got.PricingEndpoint != "http://127.0.0.1:4567" {
		t.Fatalf("PricingEndpoint = %q; diags: %v", got.PricingEndpoint, resp.Diagnostics)
	}
}

// Every provider attribute reaches the core by its name (tfvalue skips an attribute without a
// field): a field of settings.ProviderConfig, the nested blocks' too; the feature gates are
// read on their own.
func TestProviderConfigCoversTheSchema(t *testing.T) {
	p := New("test")()
	var sresp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &sresp)
	objType := sresp.Schema.Type().TerraformType(context.Background()).(tftypes.Object)
	nested := map[string]any{"": settings.ProviderConfig{}, "endpoints": settings.Endpoints{},
		"catalog_cache": settings.CatalogCacheSettings{}, "kubernetes": settings.KubernetesAccess{}}
	for block, v := range nested {
		want := objType.AttributeTypes
		if block != "" {
			want = want[block].(tftypes.Object).AttributeTypes
		}
		got := map[string]bool{}
		for _, name := range tfvalue.Names(v) {
			got[name] = true
		}
		for name := range want {
			if !got[name] && name != "karpenter_feature_gates" {
				t.Errorf("%s.%s has no field in %T", block, name, v)
			}
			delete(got, name)
		}
		if len(got) > 0 {
			t.Errorf("%T has fields for no attribute: %v", v, got)
		}
	}
}

// A nested block known only after apply as a whole stops Configure on its path, before any
// client is built, as the framework's conversion of the block used to.
func TestConfigure_unknownBlock(t *testing.T) {
	built := false
	p := &karpenterProvider{version: "test", newClient: func(context.Context, awsclient.Settings) (*awsclient.Client, error) {
		built = true
		return &awsclient.Client{Region: "eu-west-1", Calls: awsclient.NewCallCounter()}, nil
	}}
	var resp provider.ConfigureResponse
	cfg := providerConfigValue(t, p, map[string]any{"region": "eu-west-1", "endpoints": tftypes.UnknownValue}, "")
	p.Configure(context.Background(), provider.ConfigureRequest{Config: cfg}, &resp)
	if paths := errorPaths(resp.Diagnostics); len(paths) != 1 || paths[0] != "endpoints" || built || resp.DataSourceData != nil {
		t.Fatalf("error paths %v, client built %v; diags: %v", paths, built, resp.Diagnostics)
	}
	if d := resp.Diagnostics.Errors()[0]; d.Summary() != "Unknown provider setting" || !strings.Contains(d.Detail(), "known only after apply") {
		t.Errorf("diagnostic %q: %q", d.Summary(), d.Detail())
	}
}

// The block decodes into settings.ProviderConfig by the schema's names, with the settings' and
// the blocks' flags. A kubernetes host not known yet decodes as nil, which opens no access
// (planner's TestOpenKubeWithoutAHost); the catalog_cache decoded here is the one awsclient's
// TestCatalogCacheOfADecodedBlock reads.
func TestProviderConfigDecodes(t *testing.T) {
	str, unknown := tftypes.String, tftypes.UnknownValue
	cache := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"directory": str, "ttl": str}}
	kube := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"host": str, "cluster_ca_certificate": str, "token": str}}
	endpoints := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"ec2": str}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"region": str, "max_retries": tftypes.Number,
		"lookup_cluster": tftypes.Bool, "cluster_endpoint": str, "catalog_cache": cache, "kubernetes": kube, "endpoints": endpoints}}
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"region": tftypes.NewValue(str, "eu-west-1"), "max_retries": tftypes.NewValue(tftypes.Number, unknown), "endpoints": tftypes.NewValue(endpoints, unknown),
		"lookup_cluster": tftypes.NewValue(tftypes.Bool, nil), "cluster_endpoint": tftypes.NewValue(str, nil),
		"catalog_cache": tftypes.NewValue(cache, map[string]tftypes.Value{"directory": tftypes.NewValue(str, nil), "ttl": tftypes.NewValue(str, unknown)}),
		"kubernetes": tftypes.NewValue(kube, map[string]tftypes.Value{"host": tftypes.NewValue(str, unknown),
			"cluster_ca_certificate": tftypes.NewValue(str, nil), "token": tftypes.NewValue(str, "t")}),
	})
	var cfg settings.ProviderConfig
	if err := tfvalue.Decode(v, &cfg); err != nil {
		t.Fatal(err)
	}
	if !cfg.Endpoints.Unknown || cfg.Endpoints.Value != (settings.Endpoints{}) {
		t.Errorf("endpoints %+v", cfg.Endpoints)
	}
	unset := settings.Setting[string]{Null: true}
	cc, k := cfg.CatalogCache, cfg.Kubernetes
	if cfg.Region != (settings.Setting[string]{Value: "eu-west-1"}) || !cfg.MaxRetries.Unknown || !cfg.LookupCluster.Null || cfg.ClusterEndpoint != unset ||
		cc.Null || cc.Value.Directory != unset || !cc.Value.TTL.Unknown || k.Null || k.Value.Host != nil || k.Value.Token != "t" {
		t.Errorf("decoded %+v", cfg)
	}
}
