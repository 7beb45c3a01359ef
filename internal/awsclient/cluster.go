package awsclient

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// DescribeClusterFacts reads the facts of one EKS cluster. A missing cluster is a SettingError on
// cluster_name; a denied call or any other failure is one on lookup_cluster, the setting that asked
// for the call.
func (c *Client) DescribeClusterFacts(ctx context.Context, name string) (settings.ClusterFacts, error) {
	if c.EKS == nil {
		return settings.ClusterFacts{}, &SettingError{Setting: "lookup_cluster", Summary: "no EKS client is configured"}
	}
	out, err := c.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		switch {
		case IsNotFound(err):
			return settings.ClusterFacts{}, &SettingError{Setting: "cluster_name",
				Summary: fmt.Sprintf("EKS cluster %q not found in region %s", name, c.Region), Err: err}
		case IsAccessDenied(err):
			return settings.ClusterFacts{}, &SettingError{Setting: "lookup_cluster",
				Summary: fmt.Sprintf("the credentials may not call eks:DescribeCluster on cluster %q; grant that permission or set the cluster facts yourself", name), Err: err}
		}
		return settings.ClusterFacts{}, &SettingError{Setting: "lookup_cluster", Summary: fmt.Sprintf("cannot describe EKS cluster %q", name), Err: err}
	}
	return clusterFacts(out.Cluster), nil
}

// clusterFacts are the facts of a DescribeCluster answer (none of a nil cluster), its
// computeConfig among them
// (https://docs.aws.amazon.com/eks/latest/APIReference/API_ComputeConfigResponse.html).
func clusterFacts(cl *ekstypes.Cluster) settings.ClusterFacts {
	var f settings.ClusterFacts
	if cl == nil {
		return f
	}
	f.Endpoint, f.KubernetesVersion, f.ARN = aws.ToString(cl.Endpoint), aws.ToString(cl.Version), aws.ToString(cl.Arn)
	if cl.CertificateAuthority != nil {
		f.CertificateAuthorityData = aws.ToString(cl.CertificateAuthority.Data)
	}
	if cl.KubernetesNetworkConfig != nil {
		f.ServiceIPv4CIDR = aws.ToString(cl.KubernetesNetworkConfig.ServiceIpv4Cidr)
	}
	if cc := cl.ComputeConfig; cc != nil {
		f.AutoMode = &settings.AutoModeFacts{Enabled: aws.ToBool(cc.Enabled), NodePools: cc.NodePools, NodeRoleARN: aws.ToString(cc.NodeRoleArn)}
	}
	return f
}
