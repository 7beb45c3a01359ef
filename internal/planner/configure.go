package planner

import (
	"cmp"
	"context"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// ClusterLookup is the port Configure describes the EKS cluster through: the AWS client. An
// error that names a setting (settings.NamesSetting) is reported on that setting.
type ClusterLookup interface {
	DescribeClusterFacts(ctx context.Context, name string) (settings.ClusterFacts, error)
}

// Configured is what a configured provider hands its resources and data sources; C is the AWS
// client Configure's connect built.
type Configured[C any] struct {
	Client      C
	ClusterName string
	Bootstrap   launchplan.Bootstrap
	// KubernetesVersion is the cluster's major.minor ("" when neither set nor looked up).
	KubernetesVersion string
	// KarpenterVersion is karpenter_version, or manifest.DefaultVersion when it is unset.
	KarpenterVersion string
	// Kube is the read-only cluster access (nil without the kubernetes block).
	Kube *kubeclient.Client
	// Cluster is what eks:DescribeCluster reported of the cluster (nil without lookup_cluster):
	// its ARN and EKS Auto Mode compute, which the Auto Mode NodeClasses and pools are checked
	// against.
	Cluster *settings.ClusterFacts
}

// Configure sets the provider up from its block, step by step, and stops at the first step
// with errors: it checks that no nested block is unknown as a whole (UnknownBlocks) and the
// settings (settings.CheckSettings), builds the AWS client with connect (which reports its own
// findings, on the setting at fault), fills the cluster facts left unset from
// eks:DescribeCluster when lookup_cluster asks (settings.MergeClusterFacts), and opens the
// Kubernetes access. Every finding is on the setting it is about; warnings say which settings
// differ from the cluster's. admittedBefore tells that earlier processes of this build recorded
// the manifests they admitted (admitted.Store.Recorded).
func Configure[C ClusterLookup](ctx context.Context, cfg settings.ProviderConfig,
	connect func(context.Context) (C, []attrpath.Finding), admittedBefore bool) (_ Configured[C], errs, warnings []attrpath.Finding) {
	// A configured process plans or applies, and every plan admits a manifest: compile the
	// EC2NodeClass and NodePool CRDs (tens of ms) while the AWS clients are set up and STS
	// answers, not after. When earlier processes of this build recorded their admissions
	// (admittedBefore), a plan of unchanged manifests judges none: the first manifest not
	// recorded compiles its CRD then.
	karpenter := cmp.Or(cfg.KarpenterVersion.Value, manifest.DefaultVersion)
	if !admittedBefore {
		manifest.Warm(karpenter)
	}
	if errs := cfg.UnknownBlocks(); len(errs) > 0 {
		return Configured[C]{}, errs, nil
	}
	s := cfg.ProviderSettings
	bootstrap, errs := settings.CheckSettings(s)
	if len(errs) > 0 {
		return Configured[C]{}, errs, nil
	}
	client, errs := connect(ctx)
	if len(errs) > 0 {
		return Configured[C]{}, errs, nil
	}
	var looked *settings.ClusterFacts
	if s.LookupCluster.Value {
		facts, err := client.DescribeClusterFacts(ctx, s.ClusterName.Value)
		if err != nil {
			return Configured[C]{}, []attrpath.Finding{settings.ErrorFinding(err, "Cannot look up the EKS cluster", "Cannot look up the EKS cluster")}, nil
		}
		merged := settings.MergeClusterFacts(s, facts)
		if len(merged.Errors) > 0 {
			return Configured[C]{}, merged.Errors, merged.Warnings
		}
		s, bootstrap, warnings, looked = merged.Settings, merged.Bootstrap, merged.Warnings, &facts
	}
	kube, err := openKube(cfg.Kubernetes.Value)
	if err != nil {
		return Configured[C]{}, []attrpath.Finding{{Path: attrpath.Of("kubernetes"), Summary: "Invalid Kubernetes access",
			Message: err.Error(), Standalone: true}}, warnings
	}
	return Configured[C]{Client: client, ClusterName: s.ClusterName.Value, Bootstrap: bootstrap, KubernetesVersion: s.KubernetesVersion.Value,
		KarpenterVersion: karpenter, Kube: kube, Cluster: looked}, nil, warnings
}

// openKube is the client of the kubernetes block: nil without the block (a null host) or while
// its host is not known.
func openKube(k settings.KubernetesAccess) (*kubeclient.Client, error) {
	if k.Host == nil {
		return nil, nil
	}
	return kubeclient.New(kubeclient.Config{Host: *k.Host, CACertificatePEM: k.ClusterCACertificate, Token: k.Token})
}
