package settings

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

var (
	factsEndpoint = "https://0123456789ABCDEF.yl4.eu-west-1.eks.amazonaws.com"
	factsCA       = base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIDEKS\n-----END CERTIFICATE-----\n"))
)

func factSet(v string) Setting[string] { return Setting[string]{Value: v} }

var (
	unsetSetting   = Setting[string]{Null: true}
	unknownSetting = Setting[string]{Unknown: true}
)

// unsetSettings are settings with every cluster fact null.
func unsetSettings() ProviderSettings {
	return ProviderSettings{ClusterName: factSet("prod"), ClusterEndpoint: unsetSetting, ClusterCA: unsetSetting,
		ClusterServiceCIDR: unsetSetting, KubernetesVersion: unsetSetting}
}

// factText is "path|summary|message" of each finding.
func factText(fs []attrpath.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path.String()+"|"+f.Summary+"|"+f.Message)
	}
	return out
}

const unknownMessage = "depends on a value known only after apply. The provider reads EC2 during plan, so its configuration must be " +
	"known then: use a literal, a variable, or a value from an already-applied resource."

func TestCheckSettingsUnknownSettingsFirst(t *testing.T) {
	s := unsetSettings()
	s.Region, s.MaxRetries, s.LookupCluster, s.KarpenterVersion = unknownSetting, Setting[int64]{Unknown: true}, Setting[bool]{Unknown: true}, unknownSetting
	s.ClusterEndpoint = factSet("http://not-checked") // an unknown setting stops the checks before the cluster facts
	b, errs := CheckSettings(s)
	want := []string{
		"region|Unknown provider setting|`region` " + unknownMessage,
		"max_retries|Unknown provider setting|`max_retries` " + unknownMessage,
		"lookup_cluster|Unknown provider setting|`lookup_cluster` " + unknownMessage,
		"karpenter_version|Unknown provider setting|`karpenter_version` " + unknownMessage,
	}
	if got := factText(errs); !slices.Equal(got, want) || b != (launchplan.Bootstrap{}) {
		t.Errorf("findings\n got %q\nwant %q\nbootstrap %+v", got, want, b)
	}
	// Every one of the eight is checked, in the schema's order.
	all := ProviderSettings{Region: unknownSetting, Profile: unknownSetting, AccessKey: unknownSetting, SecretKey: unknownSetting,
		MaxRetries: Setting[int64]{Unknown: true}, ClusterName: unknownSetting, LookupCluster: Setting[bool]{Unknown: true}, KarpenterVersion: unknownSetting}
	var paths []string
	_, errs = CheckSettings(all)
	for _, f := range errs {
		paths = append(paths, f.Path.String())
	}
	if want := []string{"region", "profile", "access_key", "secret_key", "max_retries", "cluster_name", "lookup_cluster", "karpenter_version"}; !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
}

func TestCheckSettingsClusterFacts(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*ProviderSettings)
		want   []string
		wantBS launchplan.Bootstrap
	}{
		{"valid facts", func(s *ProviderSettings) {
			s.ClusterEndpoint, s.ClusterCA, s.ClusterServiceCIDR = factSet(factsEndpoint), factSet(factsCA), factSet("172.20.0.0/16")
		}, nil, launchplan.Bootstrap{Endpoint: factsEndpoint, CABundle: factsCA, ServiceCIDR: "172.20.0.0/16"}},
		{"unknown facts count as unset", func(s *ProviderSettings) {
			s.ClusterEndpoint, s.ClusterCA, s.ClusterServiceCIDR = unknownSetting, unknownSetting, unknownSetting
		}, nil, launchplan.Bootstrap{}},
		{"invalid facts", func(s *ProviderSettings) {
			s.ClusterEndpoint, s.ClusterCA, s.ClusterServiceCIDR = factSet("http://example.eks.amazonaws.com"), factSet("not-a-bundle"), factSet("fd00::/108")
		}, []string{
			`cluster_endpoint|Invalid cluster endpoint|"http://example.eks.amazonaws.com" is not an https URL such as https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com`,
			"cluster_certificate_authority_data|Invalid cluster CA bundle|expected the base64 of a PEM certificate bundle, as EKS returns certificateAuthority.data",
			`cluster_service_cidr|Invalid service CIDR|"fd00::/108" is not an IPv4 CIDR such as 172.20.0.0/16`,
		}, launchplan.Bootstrap{Endpoint: "http://example.eks.amazonaws.com", CABundle: "not-a-bundle", ServiceCIDR: "fd00::/108"}},
		{"base64 that is no certificate", func(s *ProviderSettings) { s.ClusterCA = factSet(base64.StdEncoding.EncodeToString([]byte("hello"))) },
			[]string{"cluster_certificate_authority_data|Invalid cluster CA bundle|expected the base64 of a PEM certificate bundle, as EKS returns certificateAuthority.data"},
			launchplan.Bootstrap{CABundle: base64.StdEncoding.EncodeToString([]byte("hello"))}},
		{"lookup without a cluster name", func(s *ProviderSettings) {
			s.ClusterName, s.LookupCluster, s.ClusterServiceCIDR = unsetSetting, Setting[bool]{Value: true}, factSet("172.20.0.0/33")
		}, []string{
			`cluster_service_cidr|Invalid service CIDR|"172.20.0.0/33" is not an IPv4 CIDR such as 172.20.0.0/16`,
			"lookup_cluster|Cluster lookup without a cluster name|`lookup_cluster = true` describes the EKS cluster named by `cluster_name`: " +
				"set `cluster_name`, or drop `lookup_cluster` and set the cluster facts yourself.",
		}, launchplan.Bootstrap{ServiceCIDR: "172.20.0.0/33"}},
		{"lookup with a cluster name", func(s *ProviderSettings) { s.LookupCluster = Setting[bool]{Value: true} }, nil, launchplan.Bootstrap{}},
	}
	for _, c := range cases {
		s := unsetSettings()
		c.edit(&s)
		b, errs := CheckSettings(s)
		if got := factText(errs); !slices.Equal(got, c.want) || b != c.wantBS {
			t.Errorf("%s:\n got %q, %+v\nwant %q, %+v", c.name, got, b, c.want, c.wantBS)
		}
	}
}

func TestMergeClusterFacts(t *testing.T) {
	eks := ClusterFacts{Endpoint: factsEndpoint, CertificateAuthorityData: factsCA, ServiceIPv4CIDR: "10.100.0.0/16", KubernetesVersion: "1.33"}

	// Unset facts are filled; the merged settings are known and set.
	m := MergeClusterFacts(unsetSettings(), eks)
	if m.Errors != nil || m.Warnings != nil {
		t.Errorf("filled: %v %v", m.Errors, m.Warnings)
	}
	if want := (launchplan.Bootstrap{Endpoint: factsEndpoint, CABundle: factsCA, ServiceCIDR: "10.100.0.0/16"}); m.Bootstrap != want {
		t.Errorf("bootstrap %+v, want %+v", m.Bootstrap, want)
	}
	if m.Settings.KubernetesVersion != factSet("1.33") || m.Settings.ClusterEndpoint != factSet(factsEndpoint) {
		t.Errorf("settings %+v", m.Settings)
	}

	// A setting wins, with a warning when it differs; an unknown one is kept, without one.
	s := unsetSettings()
	s.ClusterEndpoint, s.KubernetesVersion, s.ClusterServiceCIDR, s.ClusterCA = factSet("https://other.example.com"), factSet("1.32"), factSet("10.100.0.0/16"), unknownSetting
	m = MergeClusterFacts(s, eks)
	want := []string{
		"cluster_endpoint|Setting differs from the EKS cluster|`cluster_endpoint` differs from what eks:DescribeCluster returns for cluster \"prod\"; the setting is used.",
		"kubernetes_version|Setting differs from the EKS cluster|`kubernetes_version` differs from what eks:DescribeCluster returns for cluster \"prod\"; the setting is used.",
	}
	if got := factText(m.Warnings); !slices.Equal(got, want) || m.Errors != nil {
		t.Errorf("warnings\n got %q\nwant %q\nerrors %v", got, want, m.Errors)
	}
	if m.Settings.KubernetesVersion.Value != "1.32" || m.Settings.ClusterCA != unknownSetting ||
		m.Bootstrap != (launchplan.Bootstrap{Endpoint: "https://other.example.com", ServiceCIDR: "10.100.0.0/16"}) {
		t.Errorf("settings %+v, bootstrap %+v", m.Settings, m.Bootstrap)
	}

	// What EKS does not report stays as set.
	m = MergeClusterFacts(unsetSettings(), ClusterFacts{KubernetesVersion: "1.34"})
	if m.Settings.ClusterEndpoint != unsetSetting || m.Settings.KubernetesVersion != factSet("1.34") || m.Bootstrap != (launchplan.Bootstrap{}) || m.Errors != nil {
		t.Errorf("creating cluster: %+v, %+v, %v", m.Settings, m.Bootstrap, m.Errors)
	}

	// Looked-up values are checked as the settings are, and say they were looked up.
	m = MergeClusterFacts(unsetSettings(), ClusterFacts{Endpoint: "http://prod.internal", KubernetesVersion: "1.33.2"})
	want = []string{
		`kubernetes_version|Invalid Kubernetes version|EKS cluster "prod" reports version "1.33.2", which is not major.minor such as 1.33`,
		`cluster_endpoint|Invalid cluster endpoint|"http://prod.internal" is not an https URL such as ` +
			`https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com (looked up with eks:DescribeCluster of cluster "prod")`,
	}
	if got := factText(m.Errors); !slices.Equal(got, want) {
		t.Errorf("errors\n got %q\nwant %q", got, want)
	}
}

func TestKubernetesVersionPattern(t *testing.T) {
	for v, ok := range map[string]bool{"1.33": true, "10.0": true, "1.33.2": false, "v1.33": false, "1": false, "1.": false, "": false} {
		if KubernetesVersionPattern.MatchString(v) != ok {
			t.Errorf("%q: match %v", v, !ok)
		}
	}
}

// Flag is how a decoder fills a setting: the flags, then the value through the pointer.
func TestSettingFlag(t *testing.T) {
	s := Setting[int64]{Value: 3}
	p, ok := s.Flag(false, true).(*int64)
	if !ok || p != &s.Value || !s.Unknown || s.Null {
		t.Fatalf("Flag(false, true): %T, %+v", p, s)
	}
	*p = 0
	if s != (Setting[int64]{Unknown: true}) {
		t.Errorf("setting %+v", s)
	}
	b := Setting[bool]{Unknown: true}
	b.Flag(true, false)
	if !b.Null || b.Unknown {
		t.Errorf("Flag(true, false): %+v", b)
	}
}

// A nested block known only after apply as a whole is an error on the block, in the schema's
// order; a block that is null or known is none, whatever it holds.
func TestUnknownBlocks(t *testing.T) {
	cfg := ProviderConfig{Endpoints: Setting[Endpoints]{Unknown: true}, CatalogCache: Setting[CatalogCacheSettings]{Null: true},
		Kubernetes: Setting[KubernetesAccess]{Unknown: true}}
	want := []string{
		"endpoints|Unknown provider setting|`endpoints` " + unknownMessage,
		"kubernetes|Unknown provider setting|`kubernetes` " + unknownMessage,
	}
	if got := factText(cfg.UnknownBlocks()); !slices.Equal(got, want) {
		t.Errorf("findings\n got %q\nwant %q", got, want)
	}
	cfg = ProviderConfig{ProviderSettings: ProviderSettings{Region: unknownSetting},
		CatalogCache: Setting[CatalogCacheSettings]{Value: CatalogCacheSettings{TTL: unknownSetting}}}
	if errs := cfg.UnknownBlocks(); errs != nil {
		t.Errorf("known blocks: %v", errs)
	}
}

// namedError names the setting at fault, as awsclient.SettingError does.
type namedError struct{ setting string }

func (e *namedError) Error() string {
	return e.setting + ": access_key and secret_key must be set together"
}
func (e *namedError) ProviderSetting() string { return e.setting }

// An error that names a setting, wrapped or not, is a finding on it whose text reads on its
// own; any other error is on the provider as a whole.
func TestErrorFinding(t *testing.T) {
	named := &namedError{setting: "secret_key"}
	for _, err := range []error{named, fmt.Errorf("configuring: %w", named)} {
		f := ErrorFinding(err, "Invalid AWS configuration", "Cannot configure the AWS client")
		if got := factText([]attrpath.Finding{f}); !slices.Equal(got, []string{"secret_key|Invalid AWS configuration|" +
			"secret_key: access_key and secret_key must be set together"}) || !f.Standalone || f.Error() != named.Error() {
			t.Errorf("%v: %+v", err, f)
		}
	}
	f := ErrorFinding(errors.New("boom"), "Invalid AWS configuration", "Cannot configure the AWS client")
	if got := factText([]attrpath.Finding{f}); !slices.Equal(got, []string{"|Cannot configure the AWS client|boom"}) || f.Standalone {
		t.Errorf("other error: %+v", f)
	}
}
