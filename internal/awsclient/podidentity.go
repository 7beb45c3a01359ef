package awsclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
)

// PodIdentityRole is the IAM role an EKS Pod Identity association gives a service account
// (eks:ListPodIdentityAssociations, eks:DescribePodIdentityAssociation) and the association's
// id; "", "" when none names it. EKS allows one association per service account.
func (c *Client) PodIdentityRole(ctx context.Context, cluster, namespace, serviceAccount string) (role, association string, err error) {
	if c.EKS == nil {
		return "", "", errors.New("no EKS client")
	}
	pages := eks.NewListPodIdentityAssociationsPaginator(c.EKS, &eks.ListPodIdentityAssociationsInput{ClusterName: aws.String(cluster),
		Namespace: aws.String(namespace), ServiceAccount: aws.String(serviceAccount)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return "", "", fmt.Errorf("ListPodIdentityAssociations %s %s/%s: %w", cluster, namespace, serviceAccount, err)
		}
		for _, a := range page.Associations {
			out, err := c.EKS.DescribePodIdentityAssociation(ctx, &eks.DescribePodIdentityAssociationInput{ClusterName: aws.String(cluster),
				AssociationId: a.AssociationId})
			if err != nil {
				return "", "", fmt.Errorf("DescribePodIdentityAssociation %s: %w", aws.ToString(a.AssociationId), err)
			}
			return aws.ToString(out.Association.RoleArn), aws.ToString(a.AssociationId), nil
		}
	}
	return "", "", nil
}
