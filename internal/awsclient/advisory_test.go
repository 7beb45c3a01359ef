package awsclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// The interruption queue's reads take the advisory budget: against a service that throttles
// every call they give up after AdvisoryMaxAttempts attempts within seconds (the full budget
// backs off for minutes), and never take more attempts than max_retries allows.
func TestInterruptionReadsTakeTheAdvisoryBudget(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.Header().Set("X-Amzn-Errortype", "ThrottlingException")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"__type":"ThrottlingException","message":"Rate exceeded"}`))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		maxRetries int
		want       int32
	}{{0, AdvisoryMaxAttempts}, {25, AdvisoryMaxAttempts}, {1, 1}} {
		c, err := New(context.Background(), Settings{Region: "eu-west-1", AccessKey: "AKID", SecretKey: "secret", MaxRetries: tc.maxRetries,
			SkipCredentialsValidation: true, SkipRequestingAccountID: true, SQSEndpoint: srv.URL, EventsEndpoint: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		for name, call := range map[string]func() error{
			"sqs:GetQueueUrl": func() error {
				_, err := c.SQS.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("karpenter")})
				return err
			},
			"events:ListRuleNamesByTarget": func() error {
				_, err := c.Events.ListRuleNamesByTarget(context.Background(), &eventbridge.ListRuleNamesByTargetInput{TargetArn: aws.String("arn")})
				return err
			},
		} {
			calls.Store(0)
			start := time.Now()
			if err := call(); err == nil {
				t.Errorf("%s answered a throttle with success", name)
			}
			if got, took := calls.Load(), time.Since(start); got != tc.want || took > 10*time.Second {
				t.Errorf("max_retries %d, %s: %d attempts in %v, want %d within seconds", tc.maxRetries, name, got, took, tc.want)
			}
		}
	}
}
