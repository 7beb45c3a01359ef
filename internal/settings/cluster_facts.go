package settings

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// ClusterFacts are what eks:DescribeCluster reports of a cluster, the facts nodes join with
// ("": not reported, such as the service range of a cluster still creating or an IPv6 one).
type ClusterFacts struct {
	Endpoint string
	// CertificateAuthorityData is the base64 PEM bundle, as EKS returns it.
	CertificateAuthorityData string
	ServiceIPv4CIDR          string
	// KubernetesVersion is major.minor, e.g. "1.33" (MergeClusterFacts checks it).
	KubernetesVersion string
	// ARN is the cluster's ARN: its partition and account name the IAM roles of its access
	// entries.
	ARN string
	// AutoMode is the cluster's EKS Auto Mode compute configuration (computeConfig; nil: EKS
	// reported none, as for a cluster created before Auto Mode).
	AutoMode *AutoModeFacts
}

// AutoModeFacts are a cluster's computeConfig, as eks:DescribeCluster reports it
// (https://docs.aws.amazon.com/eks/latest/APIReference/API_ComputeConfigResponse.html).
type AutoModeFacts struct {
	// Enabled: EKS Auto Mode's compute capability is on; EKS launches the nodes of NodePools on
	// its NodeClasses only then.
	Enabled bool
	// NodePools are the built-in NodePools EKS runs ("general-purpose", "system").
	NodePools []string
	// NodeRoleARN is the built-in NodePools' node role.
	NodeRoleARN string
}

// AutoModeEnabled reports whether the cluster's EKS Auto Mode compute is on (f nil: not looked
// up, false).
func (f *ClusterFacts) AutoModeEnabled() bool {
	return f != nil && f.AutoMode != nil && f.AutoMode.Enabled
}

// LookedUp is the outcome of MergeClusterFacts.
type LookedUp struct {
	// Settings are the settings with the unset cluster facts filled from EKS.
	Settings  ProviderSettings
	Bootstrap launchplan.Bootstrap
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
