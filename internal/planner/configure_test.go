package planner

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

func setTo(v string) settings.Setting[string] { return settings.Setting[string]{Value: v} }

var unsetString = settings.Setting[string]{Null: true}

// providerBlock is a block with every cluster fact unset, as a provider block without them
// decodes.
func providerBlock() settings.ProviderConfig {
	return settings.ProviderConfig{ProviderSettings: settings.ProviderSettings{Region: setTo("eu-west-1"), ClusterName: setTo("prod"),
		ClusterEndpoint: unsetString, ClusterCA: unsetString, ClusterServiceCIDR: unsetString, KubernetesVersion: unsetString},
		Endpoints: settings.Setting[settings.Endpoints]{Null: true}, CatalogCache: settings.Setting[settings.CatalogCacheSettings]{Null: true},
		Kubernetes: settings.Setting[settings.KubernetesAccess]{Null: true}}
}

// blockOf is a nested block as configured.
func blockOf[T any](v T) settings.Setting[T] { return settings.Setting[T]{Value: v} }

// fakeCluster is the AWS client Configure connects: it answers DescribeClusterFacts with facts
// or err and records the names it was asked for.
type fakeCluster struct {
	facts settings.ClusterFacts
	err   error
	asked []string
}

var _ ClusterLookup = (*fakeCluster)(nil)

func (f *fakeCluster) DescribeClusterFacts(_ context.Context, name string) (settings.ClusterFacts, error) {
	f.asked = append(f.asked, name)
	return f.facts, f.err
}

// connector is Configure's connect port: it hands out client, or nothing with findings, and
// counts its calls.
type connector struct {
	client   *fakeCluster
	findings []attrpath.Finding
	calls    int
}

func (c *connector) connect(context.Context) (*fakeCluster, []attrpath.Finding) {
	c.calls++
	if len(c.findings) > 0 {
		return nil, c.findings
	}
	return c.client, nil
}

// namedError is an error that names the setting at fault, as the adapter's SettingError does.
type namedError struct{ setting, text string }

func (e *namedError) Error() string           { return e.setting + ": " + e.text }
func (e *namedError) ProviderSetting() string { return e.setting }

// findingText is "path|summary|error" of each finding, as the shell reports it.
func findingText(fs []attrpath.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path.String()+"|"+f.Summary+"|"+f.Error())
	}
	return out
}

func TestConfigureWithoutLookup(t *testing.T) {
	client := &fakeCluster{}
	conn := &connector{client: client}
	c, errs, warnings := Configure(context.Background(), providerBlock(), conn.connect, false)
	if errs != nil || warnings != nil || c.Client != client || conn.calls != 1 {
		t.Fatalf("errors %v, warnings %v, client %v, connected %d times", errs, warnings, c.Client, conn.calls)
	}
	if c.ClusterName != "prod" || c.KarpenterVersion != manifest.DefaultVersion || c.KubernetesVersion != "" || c.Kube != nil ||
		c.Bootstrap != (launchplan.Bootstrap{}) || c.Cluster != nil {
		t.Errorf("configured %+v", c)
	}
	if client.asked != nil {
		t.Errorf("lookup_cluster unset, yet the cluster was described: %v", client.asked)
	}

	cfg := providerBlock()
	cfg.KarpenterVersion = setTo("1.12")
	if c, _, _ = Configure(context.Background(), cfg, conn.connect, false); c.KarpenterVersion != "1.12" {
		t.Errorf("karpenter version %q", c.KarpenterVersion)
	}
}

func TestConfigureErrorsNameTheSetting(t *testing.T) {
	unknown := "depends on a value known only after apply. The provider reads EC2 during plan, so its configuration must be " +
		"known then: use a literal, a variable, or a value from an already-applied resource."
	ttl := attrpath.Finding{Path: attrpath.Of("catalog_cache", "ttl"), Summary: "Invalid catalog cache TTL",
		Message: `catalog_cache.ttl: "an hour" is not a duration such as 30m, 6h or 0s`, Standalone: true}
	blank := " "
	cases := []struct {
		name     string
		edit     func(*settings.ProviderConfig)
		findings []attrpath.Finding // connect's
		want     []string
		connect  bool // whether connect was called
	}{
		{"unknown region: no client", func(c *settings.ProviderConfig) { c.Region = settings.Setting[string]{Unknown: true} }, nil,
			[]string{"region|Unknown provider setting|region: `region` " + unknown}, false},
		{"blocks not known at all: no client", func(c *settings.ProviderConfig) {
			c.Endpoints.Unknown, c.Kubernetes.Unknown = true, true
			c.Region = settings.Setting[string]{Unknown: true} // reported once the blocks are known
		}, nil, []string{
			"endpoints|Unknown provider setting|endpoints: `endpoints` " + unknown,
			"kubernetes|Unknown provider setting|kubernetes: `kubernetes` " + unknown}, false},
		{"invalid cluster fact: no client", func(c *settings.ProviderConfig) { c.ClusterServiceCIDR = setTo("fd00::/108") }, nil,
			[]string{`cluster_service_cidr|Invalid service CIDR|cluster_service_cidr: "fd00::/108" is not an IPv4 CIDR such as 172.20.0.0/16`}, false},
		{"the client's findings", nil, []attrpath.Finding{ttl},
			[]string{`catalog_cache.ttl|Invalid catalog cache TTL|catalog_cache.ttl: "an hour" is not a duration such as 30m, 6h or 0s`}, true},
		{"invalid kubernetes access", func(c *settings.ProviderConfig) { c.Kubernetes = blockOf(settings.KubernetesAccess{Host: &blank}) }, nil,
			[]string{"kubernetes|Invalid Kubernetes access|invalid Kubernetes client configuration: host is empty"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := providerBlock()
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			conn := &connector{client: &fakeCluster{}, findings: tc.findings}
			c, errs, _ := Configure(context.Background(), cfg, conn.connect, false)
			if got := findingText(errs); !slices.Equal(got, tc.want) || c.Client != nil {
				t.Errorf("findings\n got %q\nwant %q\nclient %v", got, tc.want, c.Client)
			}
			if called := conn.calls > 0; called != tc.connect {
				t.Errorf("connect called: %v", called)
			}
		})
	}
}

func TestConfigureLooksUpTheCluster(t *testing.T) {
	const endpoint = "https://0123456789ABCDEF.yl4.eu-west-1.eks.amazonaws.com"
	ca := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIDEKS\n-----END CERTIFICATE-----\n"))
	facts := settings.ClusterFacts{Endpoint: endpoint, CertificateAuthorityData: ca, ServiceIPv4CIDR: "10.100.0.0/16", KubernetesVersion: "1.33",
		ARN: "arn:aws:eks:eu-west-1:111122223333:cluster/prod", AutoMode: &settings.AutoModeFacts{Enabled: true, NodePools: []string{"system"}}}
	lookup := func(edit func(*settings.ProviderConfig)) settings.ProviderConfig {
		cfg := providerBlock()
		cfg.LookupCluster = settings.Setting[bool]{Value: true}
		if edit != nil {
			edit(&cfg)
		}
		return cfg
	}
	client := &fakeCluster{facts: facts}
	conn := &connector{client: client}
	host := "https://127.0.0.1:16443"
	c, errs, warnings := Configure(context.Background(), lookup(func(c *settings.ProviderConfig) {
		c.KubernetesVersion = setTo("1.32")
		c.Kubernetes = blockOf(settings.KubernetesAccess{Host: &host})
	}), conn.connect, false)
	if errs != nil || c.KubernetesVersion != "1.32" || c.Kube == nil || c.Kube.Host() != host || c.Client != client ||
		c.Bootstrap != (launchplan.Bootstrap{Endpoint: endpoint, CABundle: ca, ServiceCIDR: "10.100.0.0/16"}) {
		t.Fatalf("configured %+v, errors %v", c, errs)
	}
	if got := findingText(warnings); !slices.Equal(got, []string{"kubernetes_version|Setting differs from the EKS cluster|kubernetes_version: " +
		"`kubernetes_version` differs from what eks:DescribeCluster returns for cluster \"prod\"; the setting is used."}) {
		t.Errorf("warnings %q", got)
	}
	if !slices.Equal(client.asked, []string{"prod"}) {
		t.Errorf("described %v, want [prod]", client.asked)
	}
	// The cluster's ARN and EKS Auto Mode compute are carried to the resources.
	if c.Cluster == nil || c.Cluster.ARN != facts.ARN || !c.Cluster.AutoModeEnabled() || !slices.Equal(c.Cluster.AutoMode.NodePools, []string{"system"}) {
		t.Errorf("cluster facts %+v", c.Cluster)
	}

	// A looked-up fact is checked as the setting is; the warnings come with the errors.
	client.facts.Endpoint = "http://prod.internal"
	c, errs, warnings = Configure(context.Background(), lookup(func(c *settings.ProviderConfig) { c.KubernetesVersion = setTo("1.32") }), conn.connect, false)
	if len(errs) != 1 || errs[0].Path.String() != "cluster_endpoint" || len(warnings) != 1 || c.Client != nil {
		t.Errorf("looked-up endpoint: %v, %v", errs, warnings)
	}

	// A lookup error that names a setting is on it (a cluster EKS does not have: cluster_name);
	// any other is on the provider.
	client.err = &namedError{setting: "cluster_name", text: `EKS cluster "other" not found in region eu-west-1`}
	c, errs, _ = Configure(context.Background(), lookup(func(c *settings.ProviderConfig) { c.ClusterName = setTo("other") }), conn.connect, false)
	if got := findingText(errs); !slices.Equal(got, []string{`cluster_name|Cannot look up the EKS cluster|cluster_name: ` +
		`EKS cluster "other" not found in region eu-west-1`}) || c.Client != nil {
		t.Errorf("missing cluster: %q", got)
	}
	client.err = errors.New("boom")
	c, errs, _ = Configure(context.Background(), lookup(nil), conn.connect, false)
	if got := findingText(errs); !slices.Equal(got, []string{"|Cannot look up the EKS cluster|boom"}) || c.Client != nil {
		t.Errorf("other lookup error: %q", got)
	}
}

// A kubernetes block whose host is not known yet (or no block) is no access, and no error.
func TestOpenKubeWithoutAHost(t *testing.T) {
	if kc, err := openKube(settings.KubernetesAccess{Token: "t"}); kc != nil || err != nil {
		t.Errorf("unknown host opened %v, %v", kc, err)
	}
}
