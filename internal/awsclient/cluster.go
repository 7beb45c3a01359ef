package awsclient

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
)

// ClusterFacts are the facts of an EKS cluster that nodes join with, as DescribeCluster returns
// them; a field EKS leaves empty (a cluster still creating, an IPv6 service range) is "".
type ClusterFacts struct {
	Endpoint string
	// CertificateAuthorityData is the base64 PEM bundle, as EKS returns it.
	CertificateAuthorityData string
	ServiceIPv4CIDR          string
	// KubernetesVersion is major.minor, e.g. "1.33".
	KubernetesVersion string
}

// DescribeClusterFacts reads the facts of one EKS cluster. A missing cluster is a SettingError on
// cluster_name; a denied call or any other failure is one on lookup_cluster, the setting that asked
// for the call.
func (c *Client) DescribeClusterFacts(ctx context.Context, name string) (ClusterFacts, error) {
	if c.EKS == nil {
		return ClusterFacts{}, &SettingError{Setting: "lookup_cluster", Summary: "no EKS client is configured"}
	}
	out, err := c.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		switch {
		case IsNotFound(err):
			return ClusterFacts{}, &SettingError{Setting: "cluster_name",
				Summary: fmt.Sprintf("EKS cluster %q not found in region %s", name, c.Region), Err: err}
		case IsAccessDenied(err):
			return ClusterFacts{}, &SettingError{Setting: "lookup_cluster",
				Summary: fmt.Sprintf("the credentials may not call eks:DescribeCluster on cluster %q; grant that permission or set the cluster facts yourself", name), Err: err}
		}
		return ClusterFacts{}, &SettingError{Setting: "lookup_cluster", Summary: fmt.Sprintf("cannot describe EKS cluster %q", name), Err: err}
	}
	var f ClusterFacts
	if cl := out.Cluster; cl != nil {
		f.Endpoint = aws.ToString(cl.Endpoint)
		f.KubernetesVersion = aws.ToString(cl.Version)
		if cl.CertificateAuthority != nil {
			f.CertificateAuthorityData = aws.ToString(cl.CertificateAuthority.Data)
		}
		if cl.KubernetesNetworkConfig != nil {
			f.ServiceIPv4CIDR = aws.ToString(cl.KubernetesNetworkConfig.ServiceIpv4Cidr)
		}
	}
	return f, nil
}
