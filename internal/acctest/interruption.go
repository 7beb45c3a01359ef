package acctest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	eventbridgetypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// NewQueue creates an SQS queue with an access policy ("" for none) on the test endpoint, deleted
// when the test ends, and returns its ARN.
func NewQueue(t testing.TB, name, policy string) string {
	t.Helper()
	PreCheck(t)
	ctx, c := Context(t), sqs.NewFromConfig(sdkConfig())
	in := &sqs.CreateQueueInput{QueueName: aws.String(name)}
	if policy != "" {
		in.Attributes = map[string]string{string(sqstypes.QueueAttributeNamePolicy): policy}
	}
	out, err := c.CreateQueue(ctx, in)
	if err != nil {
		t.Fatalf("creating queue %s: %v", name, err)
	}
	t.Cleanup(func() { _, _ = c.DeleteQueue(Context(t), &sqs.DeleteQueueInput{QueueUrl: out.QueueUrl}) })
	attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	return attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
}

// NewRule creates an EventBridge rule with an event pattern that targets the queue arn, deleted
// when the test ends.
func NewRule(t testing.TB, name, pattern, arn string) {
	t.Helper()
	ctx, c := Context(t), eventbridge.NewFromConfig(sdkConfig())
	if _, err := c.PutRule(ctx, &eventbridge.PutRuleInput{Name: aws.String(name), EventPattern: aws.String(pattern)}); err != nil {
		t.Fatalf("creating rule %s: %v", name, err)
	}
	if _, err := c.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: aws.String(name),
		Targets: []eventbridgetypes.Target{{Id: aws.String("queue"), Arn: aws.String(arn)}}}); err != nil {
		t.Fatalf("targeting rule %s: %v", name, err)
	}
	t.Cleanup(func() {
		_, _ = c.RemoveTargets(Context(t), &eventbridge.RemoveTargetsInput{Rule: aws.String(name), Ids: []string{"queue"}})
		_, _ = c.DeleteRule(Context(t), &eventbridge.DeleteRuleInput{Name: aws.String(name)})
	})
}
