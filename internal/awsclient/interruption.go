package awsclient

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
)

// SQSAPI is the part of SQS the provider reads: the interruption queue the controller names.
type SQSAPI interface {
	GetQueueUrl(ctx context.Context, in *sqs.GetQueueUrlInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// EventsAPI is the part of EventBridge the provider reads: the rules that target the queue.
type EventsAPI interface {
	ListRuleNamesByTarget(ctx context.Context, in *eventbridge.ListRuleNamesByTargetInput, optFns ...func(*eventbridge.Options)) (*eventbridge.ListRuleNamesByTargetOutput, error)
	DescribeRule(ctx context.Context, in *eventbridge.DescribeRuleInput, optFns ...func(*eventbridge.Options)) (*eventbridge.DescribeRuleOutput, error)
}

// InterruptionQueue reads the queue name names (sqs:GetQueueUrl, sqs:GetQueueAttributes) and the
// EventBridge rules that target it (events:ListRuleNamesByTarget, events:DescribeRule). A queue
// that does not exist is Found false, not an error.
func (c *Client) InterruptionQueue(ctx context.Context, name string) (installation.Queue, error) {
	q := installation.Queue{Name: name}
	if c.SQS == nil || c.Events == nil {
		return q, errors.New("no SQS or EventBridge client")
	}
	u, err := c.SQS.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
	var missing *sqstypes.QueueDoesNotExist
	if errors.As(err, &missing) {
		return q, nil
	}
	if err != nil {
		return q, err
	}
	attrs, err := c.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: u.QueueUrl,
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn, sqstypes.QueueAttributeNamePolicy}})
	if err != nil {
		return q, err
	}
	q.Found, q.ARN, q.Policy = true, attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)], attrs.Attributes[string(sqstypes.QueueAttributeNamePolicy)]
	var next *string
	for {
		page, err := c.Events.ListRuleNamesByTarget(ctx, &eventbridge.ListRuleNamesByTargetInput{TargetArn: aws.String(q.ARN), NextToken: next})
		if err != nil {
			return q, err
		}
		for _, name := range page.RuleNames {
			r, err := c.Events.DescribeRule(ctx, &eventbridge.DescribeRuleInput{Name: aws.String(name)})
			if err != nil {
				return q, err
			}
			q.Rules = append(q.Rules, installation.Rule{Name: name, State: string(r.State), EventPattern: aws.ToString(r.EventPattern)})
		}
		if next = page.NextToken; next == nil {
			return q, nil
		}
	}
}
