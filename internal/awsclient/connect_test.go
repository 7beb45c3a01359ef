package awsclient

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
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

func TestConnectSettingsOfTheBlock(t *testing.T) {
	t.Setenv(EnvCatalogCacheDir, "/ci/cache")
	t.Setenv(EnvCatalogCacheTTL, "6h")
	cfg := configCase()
	cfg.Profile, cfg.AccessKey, cfg.SecretKey = set("ops"), set("AKID"), set("secret")
	cfg.MaxRetries = settings.Setting[int64]{Value: 7}
	cfg.SkipCredentialsValidation, cfg.SkipRequestingAccountID = true, true
	cfg.Endpoints = block(settings.Endpoints{EC2: "http://ec2", STS: "http://sts", SSM: "http://ssm", IAM: "http://iam", EKS: "http://eks", Pricing: "http://pricing"})
	cfg.CatalogCache = block(settings.CatalogCacheSettings{Directory: unset, TTL: set("30m")})
	f := &fakeClients{}
	client, errs := Connect(context.Background(), cfg, f.new, "terraform-provider-karpenter/1.2.3")
	if errs != nil || client == nil || client.Region != "eu-west-1" {
		t.Fatalf("errors %v, client %+v", errs, client)
	}
	want := Settings{Region: "eu-west-1", Profile: "ops", AccessKey: "AKID", SecretKey: "secret", MaxRetries: 7,
		SkipCredentialsValidation: true, SkipRequestingAccountID: true, UserAgent: "terraform-provider-karpenter/1.2.3",
		EC2Endpoint: "http://ec2", STSEndpoint: "http://sts", SSMEndpoint: "http://ssm", IAMEndpoint: "http://iam",
		EKSEndpoint: "http://eks", PricingEndpoint: "http://pricing",
		CatalogCache: &CatalogDisk{Dir: "/ci/cache", TTL: 30 * time.Minute}} // the block's ttl, the environment's directory
	if len(f.asked) != 1 || !reflect.DeepEqual(f.asked[0], want) {
		t.Fatalf("settings\n got %+v\nwant %+v", f.asked, want)
	}

	// Without the block the environment applies; a ttl known only after apply is not the
	// environment's but the default.
	cfg.CatalogCache = settings.Setting[settings.CatalogCacheSettings]{Null: true}
	_, _ = Connect(context.Background(), cfg, f.new, "")
	if got := f.asked[1].CatalogCache; got == nil || got.Dir != "/ci/cache" || got.TTL != 6*time.Hour {
		t.Errorf("environment: %+v", got)
	}
	cfg.CatalogCache = block(settings.CatalogCacheSettings{Directory: set("/tf"), TTL: settings.Setting[string]{Unknown: true}})
	_, _ = Connect(context.Background(), cfg, f.new, "")
	if got := f.asked[2].CatalogCache; got == nil || got.Dir != "/tf" || got.TTL != DefaultCatalogCacheTTL {
		t.Errorf("unknown ttl: %+v", got)
	}
}

func TestConnectErrorsNameTheSetting(t *testing.T) {
	t.Setenv(EnvCatalogCacheTTL, "")
	cases := []struct {
		name   string
		edit   func(*settings.ProviderConfig)
		err    error
		want   []string
		client bool // whether newClient was asked
	}{
		{"catalog cache ttl", func(c *settings.ProviderConfig) {
			c.CatalogCache = block(settings.CatalogCacheSettings{Directory: unset, TTL: set("an hour")})
		}, nil,
			[]string{`catalog_cache.ttl|Invalid catalog cache TTL|catalog_cache.ttl: "an hour" is not a duration such as 30m, 6h or 0s`}, false},
		{"a setting's client error", nil, &SettingError{Setting: "secret_key", Summary: "access_key and secret_key must be set together"},
			[]string{"secret_key|Invalid AWS configuration|secret_key: access_key and secret_key must be set together"}, true},
		{"any other client error", nil, errors.New("boom"), []string{"|Cannot configure the AWS client|boom"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configCase()
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			f := &fakeClients{err: tc.err}
			client, errs := Connect(context.Background(), cfg, f.new, "")
			if got := findingText(errs); !slices.Equal(got, tc.want) || client != nil {
				t.Errorf("findings\n got %q\nwant %q\nclient %v", got, tc.want, client)
			}
			if asked := len(f.asked) > 0; asked != tc.client {
				t.Errorf("newClient asked: %v", asked)
			}
		})
	}
	// The environment's ttl is reported on the block's attribute, naming the variable.
	t.Setenv(EnvCatalogCacheTTL, "-1h")
	_, errs := Connect(context.Background(), configCase(), (&fakeClients{}).new, "")
	if got := findingText(errs); !slices.Equal(got, []string{`catalog_cache.ttl|Invalid catalog cache TTL|` + EnvCatalogCacheTTL +
		`: "-1h" is negative; use 0s to turn the cache off`}) {
		t.Errorf("environment ttl: %q", got)
	}
}

// The lookup port over EKS: DescribeClusterFacts reads the cluster's facts, and a cluster EKS
// does not have is an error on cluster_name, which the core reports there.
func TestDescribeClusterFactsOverTheFake(t *testing.T) {
	const endpoint = "https://0123456789ABCDEF.yl4.eu-west-1.eks.amazonaws.com"
	ca := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIDEKS\n-----END CERTIFICATE-----\n"))
	cluster := ekstypes.Cluster{Name: aws.String("prod"), Endpoint: aws.String(endpoint), Version: aws.String("1.33"),
		CertificateAuthority:    &ekstypes.Certificate{Data: aws.String(ca)},
		KubernetesNetworkConfig: &ekstypes.KubernetesNetworkConfigResponse{ServiceIpv4Cidr: aws.String("10.100.0.0/16")}}
	f := &fakeClients{eks: &awsfake.EKS{Clusters: []ekstypes.Cluster{cluster}}}
	client, errs := Connect(context.Background(), configCase(), f.new, "")
	if errs != nil {
		t.Fatal(errs)
	}
	facts, err := client.DescribeClusterFacts(context.Background(), "prod")
	if want := (settings.ClusterFacts{Endpoint: endpoint, CertificateAuthorityData: ca, ServiceIPv4CIDR: "10.100.0.0/16",
		KubernetesVersion: "1.33"}); err != nil || facts != want {
		t.Fatalf("facts %+v, %v; want %+v", facts, err, want)
	}

	_, err = client.DescribeClusterFacts(context.Background(), "other")
	finding := settings.ErrorFinding(err, "Cannot look up the EKS cluster", "Cannot look up the EKS cluster")
	if finding.Path.String() != "cluster_name" || finding.Summary != "Cannot look up the EKS cluster" || !finding.Standalone ||
		!strings.Contains(finding.Message, `EKS cluster "other" not found in region eu-west-1`) {
		t.Errorf("missing cluster: %+v", finding)
	}
}

// A catalog_cache block with a null directory and a ttl known only after apply (as
// TestProviderConfigDecodes decodes one) is the default directory in the user's cache.
func TestCatalogCacheOfADecodedBlock(t *testing.T) {
	cc := settings.CatalogCacheSettings{Directory: unset, TTL: settings.Setting[string]{Unknown: true}}
	if disk, _ := CatalogDiskFrom(orNil(cc.Directory), orNil(cc.TTL), func(string) string { return "" },
		func() (string, error) { return "/home/u/.cache", nil }); disk == nil || disk.Dir != filepath.Join("/home/u/.cache", "terraform-provider-karpenter") {
		t.Errorf("catalog disk %+v", disk)
	}
}
