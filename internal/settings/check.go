package settings

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// KubernetesVersionPattern is the form of the provider's kubernetes_version: major.minor.
var KubernetesVersionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

// CheckSettings checks the provider settings before any AWS call and returns the bootstrap
// facts they make. Each setting the provider reads EC2 with during plan must be known then;
// when one is not, those are the only errors. Otherwise the cluster facts are checked (a value
// only known after apply counts as unset: a static pool then fails its plan, naming it), and
// lookup_cluster needs a cluster_name. Findings are on the provider's attribute paths.
func CheckSettings(s ProviderSettings) (launchplan.Bootstrap, []attrpath.Finding) {
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
		return launchplan.Bootstrap{}, errs
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
func bootstrapOf(s ProviderSettings) (launchplan.Bootstrap, []attrpath.Finding) {
	b := launchplan.Bootstrap{Endpoint: s.ClusterEndpoint.known(), CABundle: s.ClusterCA.known(), ServiceCIDR: s.ClusterServiceCIDR.known()}
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

// NamesSetting is an error that names the provider setting at fault (awsclient.SettingError is
// one); its text names the setting already.
type NamesSetting interface {
	error
	ProviderSetting() string
}

// ErrorFinding is err on the setting a NamesSetting in its chain names, under onSetting, else
// on the provider as a whole, under otherwise.
func ErrorFinding(err error, onSetting, otherwise string) attrpath.Finding {
	var named NamesSetting
	if errors.As(err, &named) {
		return attrpath.Finding{Path: attrpath.Of(named.ProviderSetting()), Summary: onSetting, Message: named.Error(), Standalone: true}
	}
	return attrpath.Finding{Summary: otherwise, Message: err.Error()}
}
