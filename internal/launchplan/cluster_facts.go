package launchplan

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// KubernetesVersionPattern is the form of the provider's kubernetes_version: major.minor.
var KubernetesVersionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

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
	// The cluster facts: lookup_cluster fills the unset ones.
	ClusterEndpoint    Setting[string] `tfsdk:"cluster_endpoint"`
	ClusterCA          Setting[string] `tfsdk:"cluster_certificate_authority_data"`
	ClusterServiceCIDR Setting[string] `tfsdk:"cluster_service_cidr"`
	KubernetesVersion  Setting[string] `tfsdk:"kubernetes_version"`
}

// ClusterFacts are what eks:DescribeCluster reports of a cluster ("": not reported, such as the
// service range of a cluster still creating or an IPv6 one).
type ClusterFacts struct {
	Endpoint                 string
	CertificateAuthorityData string
	ServiceIPv4CIDR          string
	KubernetesVersion        string
}

// CheckSettings checks the provider settings before any AWS call and returns the bootstrap
// facts they make. Each setting the provider reads EC2 with during plan must be known then;
// when one is not, those are the only errors. Otherwise the cluster facts are checked (a value
// only known after apply counts as unset: a static pool then fails its plan, naming it), and
// lookup_cluster needs a cluster_name. Findings are on the provider's attribute paths.
func CheckSettings(s ProviderSettings) (Bootstrap, []attrpath.Finding) {
	var errs []attrpath.Finding
	for _, f := range []struct {
		name    string
		unknown bool
	}{
		{"region", s.Region.Unknown}, {"profile", s.Profile.Unknown}, {"access_key", s.AccessKey.Unknown},
		{"secret_key", s.SecretKey.Unknown}, {"max_retries", s.MaxRetries.Unknown}, {"cluster_name", s.ClusterName.Unknown},
		{"lookup_cluster", s.LookupCluster.Unknown}, {"karpenter_version", s.KarpenterVersion.Unknown},
	} {
		if f.unknown {
			errs = append(errs, UnknownSetting(f.name))
		}
	}
	if len(errs) > 0 {
		return Bootstrap{}, errs
	}
	b, errs := bootstrapOf(s)
	if s.LookupCluster.Value && s.ClusterName.Value == "" {
		errs = append(errs, attrpath.Finding{Path: attrpath.Of("lookup_cluster"), Summary: "Cluster lookup without a cluster name",
			Message: "`lookup_cluster = true` describes the EKS cluster named by `cluster_name`: set `cluster_name`, or drop " +
				"`lookup_cluster` and set the cluster facts yourself."})
	}
	return b, errs
}

// UnknownSetting is the error on a provider setting (or block) whose value is known only after
// apply: the provider reads EC2 during plan, so it cannot be set up from it.
func UnknownSetting(name string) attrpath.Finding {
	return attrpath.Finding{Path: attrpath.Of(name), Summary: "Unknown provider setting",
		Message: fmt.Sprintf("`%s` depends on a value known only after apply. The provider reads EC2 during plan, so its "+
			"configuration must be known then: use a literal, a variable, or a value from an already-applied resource.", name)}
}

// bootstrapOf checks the cluster facts nodes join with, each on its attribute.
func bootstrapOf(s ProviderSettings) (Bootstrap, []attrpath.Finding) {
	b := Bootstrap{Endpoint: s.ClusterEndpoint.known(), CABundle: s.ClusterCA.known(), ServiceCIDR: s.ClusterServiceCIDR.known()}
	var errs []attrpath.Finding
	add := func(name, summary, msg string) {
		errs = append(errs, attrpath.Finding{Path: attrpath.Of(name), Summary: summary, Message: msg})
	}
	if u, err := url.Parse(b.Endpoint); b.Endpoint != "" && (err != nil || u.Scheme != "https" || u.Host == "") {
		add("cluster_endpoint", "Invalid cluster endpoint",
			fmt.Sprintf("%q is not an https URL such as https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com", b.Endpoint))
	}
	if b.CABundle != "" {
		if pem, err := base64.StdEncoding.DecodeString(b.CABundle); err != nil || !strings.Contains(string(pem), "-----BEGIN CERTIFICATE-----") {
			add("cluster_certificate_authority_data", "Invalid cluster CA bundle",
				"expected the base64 of a PEM certificate bundle, as EKS returns certificateAuthority.data")
		}
	}
	if _, n, err := net.ParseCIDR(b.ServiceCIDR); b.ServiceCIDR != "" && (err != nil || n.IP.To4() == nil) {
		add("cluster_service_cidr", "Invalid service CIDR", fmt.Sprintf("%q is not an IPv4 CIDR such as 172.20.0.0/16", b.ServiceCIDR))
	}
	return b, errs
}

// LookedUp is the outcome of MergeClusterFacts.
type LookedUp struct {
	// Settings are the settings with the unset cluster facts filled from EKS.
	Settings  ProviderSettings
	Bootstrap Bootstrap
	// Errors are about looked-up values (the settings were checked before); Warnings name the
	// settings that differ from the cluster's.
	Errors, Warnings []attrpath.Finding
}

// MergeClusterFacts fills the cluster facts s leaves null with those EKS reported for the
// cluster s.ClusterName names (a value known only after apply is a setting too, and kept),
// warns where a setting differs from EKS, and checks the merged facts as CheckSettings checks
// the settings, each error saying the value was looked up.
func MergeClusterFacts(s ProviderSettings, eks ClusterFacts) LookedUp {
	out := LookedUp{Settings: s}
	cluster := s.ClusterName.Value
	for _, f := range []struct {
		name    string
		setting *Setting[string]
		eks     string
	}{
		{"cluster_endpoint", &out.Settings.ClusterEndpoint, eks.Endpoint},
		{"cluster_certificate_authority_data", &out.Settings.ClusterCA, eks.CertificateAuthorityData},
		{"cluster_service_cidr", &out.Settings.ClusterServiceCIDR, eks.ServiceIPv4CIDR},
		{"kubernetes_version", &out.Settings.KubernetesVersion, eks.KubernetesVersion},
	} {
		switch {
		case f.eks == "": // not there yet (cluster creating) or not IPv4: left as set
		case f.setting.Null:
			*f.setting = Setting[string]{Value: f.eks}
			if f.name == "kubernetes_version" && !KubernetesVersionPattern.MatchString(f.eks) {
				out.Errors = append(out.Errors, attrpath.Finding{Path: attrpath.Of(f.name), Summary: "Invalid Kubernetes version",
					Message: fmt.Sprintf("EKS cluster %q reports version %q, which is not major.minor such as 1.33", cluster, f.eks)})
			}
		case !f.setting.Unknown && f.setting.Value != f.eks:
			out.Warnings = append(out.Warnings, attrpath.Finding{Path: attrpath.Of(f.name), Summary: "Setting differs from the EKS cluster",
				Message: fmt.Sprintf("`%s` differs from what eks:DescribeCluster returns for cluster %q; the setting is used.", f.name, cluster)})
		}
	}
	b, errs := bootstrapOf(out.Settings)
	for _, e := range errs {
		e.Message += fmt.Sprintf(" (looked up with eks:DescribeCluster of cluster %q)", cluster)
		out.Errors = append(out.Errors, e)
	}
	out.Bootstrap = b
	return out
}
