package awsclient

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

func set(v string) settings.Setting[string] { return settings.Setting[string]{Value: v} }

var unset = settings.Setting[string]{Null: true}

// configCase is a block with every cluster fact unset, as a provider block without them decodes.
func configCase() settings.ProviderConfig {
	return settings.ProviderConfig{ProviderSettings: settings.ProviderSettings{Region: set("eu-west-1"), ClusterName: set("prod"),
		ClusterEndpoint: unset, ClusterCA: unset, ClusterServiceCIDR: unset, KubernetesVersion: unset},
		Endpoints: settings.Setting[settings.Endpoints]{Null: true}, CatalogCache: settings.Setting[settings.CatalogCacheSettings]{Null: true},
		Kubernetes: settings.Setting[settings.KubernetesAccess]{Null: true}}
}

// block is a nested block as configured.
func block[T any](v T) settings.Setting[T] { return settings.Setting[T]{Value: v} }

// fakeClients answers newClient with a client on eks, recording the settings it was asked for.
type fakeClients struct {
	eks   *awsfake.EKS
	err   error
	asked []Settings
}

func (f *fakeClients) new(_ context.Context, s Settings) (*Client, error) {
	f.asked = append(f.asked, s)
	if f.err != nil {
		return nil, f.err
	}
	return &Client{EKS: f.eks, Region: s.Region, Calls: NewCallCounter()}, nil
}

// findingText is "path|summary|error" of each finding, as the shell reports it.
func findingText(fs []attrpath.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path.String()+"|"+f.Summary+"|"+f.Error())
	}
	return out
}

func TestConfigureSettingsOfTheBlock(t *testing.T) {
	t.Setenv(EnvCatalogCacheDir, "/ci/cache")
	t.Setenv(EnvCatalogCacheTTL, "6h")
	cfg := configCase()
	cfg.Profile, cfg.AccessKey, cfg.SecretKey = set("ops"), set("AKID"), set("secret")
	cfg.MaxRetries = settings.Setting[int64]{Value: 7}
	cfg.SkipCredentialsValidation, cfg.SkipRequestingAccountID = true, true
	cfg.Endpoints = block(settings.Endpoints{EC2: "http://ec2", STS: "http://sts", SSM: "http://ssm", IAM: "http://iam", EKS: "http://eks", Pricing: "http://pricing"})
	cfg.CatalogCache = block(settings.CatalogCacheSettings{Directory: unset, TTL: set("30m")})
	f := &fakeClients{}
	c, errs, warnings := Configure(context.Background(), cfg, f.new, "terraform-provider-karpenter/1.2.3")
	if errs != nil || warnings != nil || c.Client == nil {
		t.Fatalf("errors %v, warnings %v", errs, warnings)
	}
	want := Settings{Region: "eu-west-1", Profile: "ops", AccessKey: "AKID", SecretKey: "secret", MaxRetries: 7,
		SkipCredentialsValidation: true, SkipRequestingAccountID: true, UserAgent: "terraform-provider-karpenter/1.2.3",
		EC2Endpoint: "http://ec2", STSEndpoint: "http://sts", SSMEndpoint: "http://ssm", IAMEndpoint: "http://iam",
		EKSEndpoint: "http://eks", PricingEndpoint: "http://pricing",
		CatalogCache: &CatalogDisk{Dir: "/ci/cache", TTL: 30 * time.Minute}} // the block's ttl, the environment's directory
	if len(f.asked) != 1 || !reflect.DeepEqual(f.asked[0], want) {
		t.Fatalf("settings\n got %+v\nwant %+v", f.asked, want)
	}
	if c.ClusterName != "prod" || c.KarpenterVersion != manifest.DefaultVersion || c.KubernetesVersion != "" || c.Kube != nil ||
		c.Bootstrap != (launchplan.Bootstrap{}) {
		t.Errorf("configured %+v", c)
	}

	// Without the block the environment applies; a ttl known only after apply is not the
	// environment's but the default.
	cfg.CatalogCache = settings.Setting[settings.CatalogCacheSettings]{Null: true}
	cfg.KarpenterVersion = set("1.12")
	c, _, _ = Configure(context.Background(), cfg, f.new, "")
	if got := f.asked[1].CatalogCache; got == nil || got.Dir != "/ci/cache" || got.TTL != 6*time.Hour || c.KarpenterVersion != "1.12" {
		t.Errorf("environment: %+v, version %q", got, c.KarpenterVersion)
	}
	cfg.CatalogCache = block(settings.CatalogCacheSettings{Directory: set("/tf"), TTL: settings.Setting[string]{Unknown: true}})
	_, _, _ = Configure(context.Background(), cfg, f.new, "")
	if got := f.asked[2].CatalogCache; got == nil || got.Dir != "/tf" || got.TTL != DefaultCatalogCacheTTL {
		t.Errorf("unknown ttl: %+v", got)
	}
}

func TestConfigureErrorsNameTheSetting(t *testing.T) {
	t.Setenv(EnvCatalogCacheTTL, "")
	cases := []struct {
		name   string
		edit   func(*settings.ProviderConfig)
		err    error
		want   []string
		client bool // whether newClient was asked
	}{
		{"unknown region: no client", func(c *settings.ProviderConfig) { c.Region = settings.Setting[string]{Unknown: true} }, nil,
			[]string{"region|Unknown provider setting|region: `region` depends on a value known only after apply. The provider reads EC2 during " +
				"plan, so its configuration must be known then: use a literal, a variable, or a value from an already-applied resource."}, false},
		{"blocks not known at all: no client", func(c *settings.ProviderConfig) {
			c.Endpoints.Unknown, c.Kubernetes.Unknown = true, true
			c.Region = settings.Setting[string]{Unknown: true} // reported once the blocks are known
		}, nil, []string{
			"endpoints|Unknown provider setting|endpoints: `endpoints` depends on a value known only after apply. The provider reads EC2 during " +
				"plan, so its configuration must be known then: use a literal, a variable, or a value from an already-applied resource.",
			"kubernetes|Unknown provider setting|kubernetes: `kubernetes` depends on a value known only after apply. The provider reads EC2 during " +
				"plan, so its configuration must be known then: use a literal, a variable, or a value from an already-applied resource."}, false},
		{"invalid cluster fact: no client", func(c *settings.ProviderConfig) { c.ClusterServiceCIDR = set("fd00::/108") }, nil,
			[]string{`cluster_service_cidr|Invalid service CIDR|cluster_service_cidr: "fd00::/108" is not an IPv4 CIDR such as 172.20.0.0/16`}, false},
		{"catalog cache ttl", func(c *settings.ProviderConfig) {
			c.CatalogCache = block(settings.CatalogCacheSettings{Directory: unset, TTL: set("an hour")})
		}, nil,
			[]string{`catalog_cache.ttl|Invalid catalog cache TTL|catalog_cache.ttl: "an hour" is not a duration such as 30m, 6h or 0s`}, false},
		{"a setting's client error", nil, &SettingError{Setting: "secret_key", Summary: "access_key and secret_key must be set together"},
			[]string{"secret_key|Invalid AWS configuration|secret_key: access_key and secret_key must be set together"}, true},
		{"any other client error", nil, errors.New("boom"), []string{"|Cannot configure the AWS client|boom"}, true},
		{"invalid kubernetes access", func(c *settings.ProviderConfig) {
			c.Kubernetes = block(settings.KubernetesAccess{Host: aws.String(" ")})
		}, nil,
			[]string{"kubernetes|Invalid Kubernetes access|invalid Kubernetes client configuration: host is empty"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configCase()
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			f := &fakeClients{err: tc.err}
			c, errs, _ := Configure(context.Background(), cfg, f.new, "")
			if got := findingText(errs); !slices.Equal(got, tc.want) || c.Client != nil {
				t.Errorf("findings\n got %q\nwant %q\nclient %v", got, tc.want, c.Client)
			}
			if asked := len(f.asked) > 0; asked != tc.client {
				t.Errorf("newClient asked: %v", asked)
			}
		})
	}
	// The environment's ttl is reported on the block's attribute, naming the variable.
	t.Setenv(EnvCatalogCacheTTL, "-1h")
	_, errs, _ := Configure(context.Background(), configCase(), (&fakeClients{}).new, "")
	if got := findingText(errs); !slices.Equal(got, []string{`catalog_cache.ttl|Invalid catalog cache TTL|` + EnvCatalogCacheTTL +
		`: "-1h" is negative; use 0s to turn the cache off`}) {
		t.Errorf("environment ttl: %q", got)
	}
}

func TestConfigureLooksUpTheCluster(t *testing.T) {
	const endpoint = "https://0123456789ABCDEF.yl4.eu-west-1.eks.amazonaws.com"
	ca := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIDEKS\n-----END CERTIFICATE-----\n"))
	cluster := ekstypes.Cluster{Name: aws.String("prod"), Endpoint: aws.String(endpoint), Version: aws.String("1.33"),
		CertificateAuthority:    &ekstypes.Certificate{Data: aws.String(ca)},
		KubernetesNetworkConfig: &ekstypes.KubernetesNetworkConfigResponse{ServiceIpv4Cidr: aws.String("10.100.0.0/16")}}
	lookup := func(edit func(*settings.ProviderConfig)) settings.ProviderConfig {
		cfg := configCase()
		cfg.LookupCluster = settings.Setting[bool]{Value: true}
		if edit != nil {
			edit(&cfg)
		}
		return cfg
	}
	f := &fakeClients{eks: &awsfake.EKS{Clusters: []ekstypes.Cluster{cluster}}}
	host := "https://127.0.0.1:16443"
	c, errs, warnings := Configure(context.Background(), lookup(func(c *settings.ProviderConfig) {
		c.KubernetesVersion = set("1.32")
		c.Kubernetes = block(settings.KubernetesAccess{Host: &host})
	}), f.new, "")
	if errs != nil || c.KubernetesVersion != "1.32" || c.Kube == nil || c.Kube.Host() != host ||
		c.Bootstrap != (launchplan.Bootstrap{Endpoint: endpoint, CABundle: ca, ServiceCIDR: "10.100.0.0/16"}) {
		t.Fatalf("configured %+v, errors %v", c, errs)
	}
	if got := findingText(warnings); !slices.Equal(got, []string{"kubernetes_version|Setting differs from the EKS cluster|kubernetes_version: " +
		"`kubernetes_version` differs from what eks:DescribeCluster returns for cluster \"prod\"; the setting is used."}) {
		t.Errorf("warnings %q", got)
	}

	// A looked-up fact is checked as the setting is; the warnings come with the errors.
	bad := cluster
	bad.Endpoint = aws.String("http://prod.internal")
	f.eks.Clusters = []ekstypes.Cluster{bad}
	c, errs, warnings = Configure(context.Background(), lookup(func(c *settings.ProviderConfig) { c.KubernetesVersion = set("1.32") }), f.new, "")
	if len(errs) != 1 || errs[0].Path.String() != "cluster_endpoint" || len(warnings) != 1 || c.Client != nil {
		t.Errorf("looked-up endpoint: %v, %v", errs, warnings)
	}

	// A cluster EKS does not have is an error on cluster_name.
	c, errs, _ = Configure(context.Background(), lookup(func(c *settings.ProviderConfig) { c.ClusterName = set("other") }), f.new, "")
	if got := findingText(errs); len(got) != 1 || errs[0].Path.String() != "cluster_name" || errs[0].Summary != "Cannot look up the EKS cluster" ||
		c.Client != nil {
		t.Errorf("missing cluster: %q", got)
	}
}

// The block decodes into settings.ProviderConfig by the schema's names, with the settings' and the
// blocks' flags; a kubernetes host not known yet is no access.
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
	cc, k := cfg.CatalogCache, cfg.Kubernetes
	if cfg.Region != set("eu-west-1") || !cfg.MaxRetries.Unknown || !cfg.LookupCluster.Null || cfg.ClusterEndpoint != unset ||
		cc.Null || cc.Value.Directory != unset || !cc.Value.TTL.Unknown || k.Null || k.Value.Host != nil || k.Value.Token != "t" {
		t.Errorf("decoded %+v", cfg)
	}
	if kc, err := open(k.Value); kc != nil || err != nil {
		t.Errorf("unknown host opened %v, %v", kc, err)
	}
	if disk, _ := CatalogDiskFrom(orNil(cc.Value.Directory), orNil(cc.Value.TTL), func(string) string { return "" },
		func() (string, error) { return "/home/u/.cache", nil }); disk == nil || disk.Dir != filepath.Join("/home/u/.cache", "terraform-provider-karpenter") {
		t.Errorf("catalog disk %+v", disk)
	}
}
