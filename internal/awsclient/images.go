package awsclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/memo"
)

// FindImages paginates DescribeImages for one query: available images, deprecated ones
// included, as Karpenter asks.
func (d Discovery) FindImages(ctx context.Context, q discovery.ImageQuery) ([]discovery.Image, error) {
	if d.Cache != nil {
		images, err := memo.Do(ctx, &d.Cache.m, "images|"+q.Key(), func() ([]discovery.Image, error) { return d.findImages(ctx, q) })
		return append([]discovery.Image(nil), images...), err
	}
	return d.findImages(ctx, q)
}

func (d Discovery) findImages(ctx context.Context, q discovery.ImageQuery) ([]discovery.Image, error) {
	filters := append(toEC2Filters(q.Filters), ec2types.Filter{Name: aws.String("state"), Values: []string{string(ec2types.ImageStateAvailable)}})
	if len(q.IDs) > 0 {
		filters = append(filters, ec2types.Filter{Name: aws.String("image-id"), Values: append([]string(nil), q.IDs...)})
	}
	in := &ec2.DescribeImagesInput{Filters: filters, IncludeDeprecated: aws.Bool(true), MaxResults: aws.Int32(1000)}
	if len(q.Owners) > 0 {
		in.Owners = append([]string(nil), q.Owners...)
	}
	var out []discovery.Image
	p := ec2.NewDescribeImagesPaginator(d.EC2, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing images (%s): %w", q.Key(), err)
		}
		for _, i := range page.Images {
			out = append(out, discovery.Image{
				ID: aws.ToString(i.ImageId), Name: aws.ToString(i.Name), OwnerID: aws.ToString(i.OwnerId),
				Architecture: string(i.Architecture), CreationDate: aws.ToString(i.CreationDate), DeprecationTime: aws.ToString(i.DeprecationTime),
			})
		}
	}
	return out, nil
}

// GetParameter reads one SSM parameter (public /aws/service/... parameters included).
func (d Discovery) GetParameter(ctx context.Context, name string) (string, error) {
	if d.SSM == nil {
		return "", errors.New("no SSM client")
	}
	if d.Cache != nil {
		return memo.Do(ctx, &d.Cache.m, "ssm|"+name, func() (string, error) { return d.getParameter(ctx, name) })
	}
	return d.getParameter(ctx, name)
}

func (d Discovery) getParameter(ctx context.Context, name string) (string, error) {
	out, err := d.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)})
	var nf *ssmtypes.ParameterNotFound
	if errors.As(err, &nf) {
		return "", fmt.Errorf("%s: %w", name, discovery.ErrParameterNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("reading SSM parameter %s: %w", name, err)
	}
	if out.Parameter == nil {
		return "", fmt.Errorf("%s: %w", name, discovery.ErrParameterNotFound)
	}
	return aws.ToString(out.Parameter.Value), nil
}
