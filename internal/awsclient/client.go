// Package awsclient is the provider's only door to AWS: it builds one aws-sdk-go-v2 config from
// the provider settings (Connect turns the provider block into the client), holds the small EC2
// interface the rest of the code depends on, counts API calls, and implements the finders that
// discovery and the catalog use.
package awsclient

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithymiddleware "github.com/aws/smithy-go/middleware"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/nodeplane/terraform-provider-karpenter/internal/memo"
)

// DefaultMaxRetries is the attempt budget of the adaptive retryer when max_retries is unset.
const DefaultMaxRetries = 25

// Settings are the provider block's AWS settings. Empty strings mean "not set": the SDK's
// standard sources (environment, shared config, default credential chain) apply.
type Settings struct {
	Region                    string
	Profile                   string
	AccessKey                 string
	SecretKey                 string
	Token                     string
	EC2Endpoint               string
	STSEndpoint               string
	SSMEndpoint               string
	IAMEndpoint               string
	EKSEndpoint               string
	SQSEndpoint               string // the interruption queue's checks
	EventsEndpoint            string // EventBridge: the interruption rules' checks
	PricingEndpoint           string // default: the Pricing API region Karpenter uses (PricingAPIRegion)
	MaxRetries                int    // 0: DefaultMaxRetries
	SkipCredentialsValidation bool
	SkipRequestingAccountID   bool
	UserAgent                 string
	// CatalogCache keeps the instance-type catalog on disk between provider processes; nil or a
	// zero TTL reads EC2 once per process.
	CatalogCache *CatalogDisk
}

// SettingError names the provider setting at fault, so the Terraform shell can attach the
// diagnostic to that attribute.
type SettingError struct {
	Setting string
	Summary string
	Err     error
}

func (e *SettingError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("%s: %s", e.Setting, e.Summary)
	}
	return fmt.Sprintf("%s: %s: %v", e.Setting, e.Summary, e.Err)
}

func (e *SettingError) Unwrap() error { return e.Err }

// ProviderSetting is the setting at fault: a SettingError is a settings.NamesSetting, so the
// core reports it on that setting.
func (e *SettingError) ProviderSetting() string { return e.Setting }

// Client carries the SDK clients and what New learned.
type Client struct {
	EC2       EC2API
	SSM       SSMAPI
	IAM       IAMAPI
	EKS       EKSAPI
	Pricing   PricingAPI // on-demand prices (see Prices); nil: Karpenter's embedded table
	SQS       SQSAPI     // the controller's interruption queue (InterruptionQueue)
	Events    EventsAPI  // EventBridge rules that feed it
	Region    string
	AccountID string
	// Partition is the AWS partition (aws, aws-cn, aws-us-gov) of the caller identity's ARN, or
	// of the region when STS was not asked: every ARN the provider builds uses it.
	Partition string
	Calls     *CallCounter
	// Retries counts retried attempts by service operation (EC2.CreateLaunchTemplate, ...).
	Retries *CallCounter
	// CatalogDisk is Settings.CatalogCache; tests may set it on a client built by hand.
	CatalogDisk *CatalogDisk

	discoveryCache *DiscoveryCache

	listings memo.Memo // shared resource-read listings, see listing.go
}

// New loads the SDK config, builds the EC2, SSM, IAM, EKS, Pricing and STS clients, and (unless skipped) proves
// the credentials work with STS GetCallerIdentity. AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE>
// are honoured by the SDK itself; explicit endpoints in Settings take precedence over them.
func New(ctx context.Context, s Settings) (*Client, error) {
	maxAttempts := s.MaxRetries
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxRetries
	}
	cfg, err := loadConfig(ctx, s, maxAttempts)
	if err != nil {
		return nil, err
	}
	// Every client, STS included, counts its calls and its retries.
	counter, retries := NewCallCounter(), NewCallCounter()
	cfg.APIOptions = append(cfg.APIOptions, counter.Middleware, retryPolicy(retries))
	c := serviceClients(cfg, s, maxAttempts)
	c.Calls, c.Retries = counter, retries
	if s.SkipCredentialsValidation && s.SkipRequestingAccountID {
		return c, nil
	}
	return withCallerIdentity(ctx, cfg, s, c)
}

// loadConfig is the SDK config of the settings: the adaptive retryer with maxAttempts, the
// region, profile, static credentials and user agent where set, else the SDK's standard
// sources. An error is a SettingError on the setting at fault; no region anywhere is one too.
func loadConfig(ctx context.Context, s Settings, maxAttempts int) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer { return newRetryer(maxAttempts) }),
	}
	if s.Region != "" {
		opts = append(opts, config.WithRegion(s.Region))
	}
	if s.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(s.Profile))
	}
	if s.AccessKey != "" || s.SecretKey != "" {
		if s.AccessKey == "" || s.SecretKey == "" {
			setting := "access_key"
			if s.SecretKey == "" {
				setting = "secret_key"
			}
			return aws.Config{}, &SettingError{Setting: setting, Summary: "access_key and secret_key must be set together"}
		}
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, s.Token)))
	}
	if s.UserAgent != "" {
		opts = append(opts, config.WithAppID(s.UserAgent))
	}

	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		if s.Profile != "" {
			return aws.Config{}, &SettingError{Setting: "profile", Summary: fmt.Sprintf("cannot load AWS profile %q", s.Profile), Err: err}
		}
		return aws.Config{}, &SettingError{Setting: "region", Summary: "cannot load the AWS configuration", Err: err}
	}
	if cfg.Region == "" {
		return aws.Config{}, &SettingError{Setting: "region", Summary: "no AWS region: set `region` in the provider block, or AWS_REGION, or a region in the shared config profile"}
	}
	return cfg, nil
}

// serviceClients are the EC2, SSM, IAM, EKS, Pricing, SQS and EventBridge clients of cfg, each on its endpoint
// from the settings where one is set, and the settings' catalog cache; the call counters and
// the account id are New's to fill in.
func serviceClients(cfg aws.Config, s Settings, maxAttempts int) *Client {
	return &Client{
		EC2:     ec2.NewFromConfig(cfg, func(o *ec2.Options) { overrideEndpoint(&o.BaseEndpoint, s.EC2Endpoint) }),
		SSM:     ssm.NewFromConfig(cfg, func(o *ssm.Options) { overrideEndpoint(&o.BaseEndpoint, s.SSMEndpoint) }),
		IAM:     iam.NewFromConfig(cfg, func(o *iam.Options) { overrideEndpoint(&o.BaseEndpoint, s.IAMEndpoint) }),
		EKS:     eks.NewFromConfig(cfg, func(o *eks.Options) { overrideEndpoint(&o.BaseEndpoint, s.EKSEndpoint) }),
		Pricing: newPricingClient(cfg, s.PricingEndpoint, maxAttempts),
		SQS: sqs.NewFromConfig(cfg, func(o *sqs.Options) {
			overrideEndpoint(&o.BaseEndpoint, s.SQSEndpoint)
			o.RetryMaxAttempts, o.Retryer = 0, advisoryRetryer(maxAttempts)
		}),
		Events: eventbridge.NewFromConfig(cfg, func(o *eventbridge.Options) {
			overrideEndpoint(&o.BaseEndpoint, s.EventsEndpoint)
			o.RetryMaxAttempts, o.Retryer = 0, advisoryRetryer(maxAttempts)
		}),
		Region:         cfg.Region,
		Partition:      PartitionOfRegion(cfg.Region),
		discoveryCache: NewDiscoveryCache(),
		CatalogDisk:    s.CatalogCache,
	}
}

// overrideEndpoint sets a client's base endpoint to the setting's, when one is set: otherwise the
// endpoint the SDK resolved (AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL, the shared config)
// stays.
func overrideEndpoint(base **string, setting string) {
	if setting != "" {
		*base = aws.String(setting)
	}
}

// withCallerIdentity asks STS GetCallerIdentity who the credentials are and records the
// account id in c. When it fails, the credentials are an error, unless only the account id was
// wanted (skip_credentials_validation): then c goes on without it.
func withCallerIdentity(ctx context.Context, cfg aws.Config, s Settings, c *Client) (*Client, error) {
	stsClient := sts.NewFromConfig(cfg, func(o *sts.Options) { overrideEndpoint(&o.BaseEndpoint, s.STSEndpoint) })
	out, err := stsClient.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		if s.SkipCredentialsValidation {
			// Only the account id was wanted; carry on without it.
			return c, nil
		}
		return nil, credentialsError(s, err)
	}
	c.AccountID = aws.ToString(out.Account)
	c.Partition = Partition(aws.ToString(out.Arn), c.Region)
	return c, nil
}

func credentialsError(s Settings, err error) error {
	setting, summary := "access_key", "AWS credentials could not be validated with STS GetCallerIdentity (set skip_credentials_validation to skip the check)"
	if s.Profile != "" {
		setting = "profile"
	}
	if msg := err.Error(); strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host") {
		setting, summary = "endpoints", "the STS endpoint cannot be reached"
		if s.STSEndpoint != "" {
			summary += " (endpoints.sts = " + s.STSEndpoint + ")"
		}
	}
	return &SettingError{Setting: setting, Summary: summary, Err: err}
}

// newRetryer is adaptive (client-side rate limiting on throttles) with the provider's attempt
// budget and the EC2 codes that are worth retrying on top of the SDK's defaults.
func newRetryer(maxAttempts int) aws.Retryer {
	return retry.NewAdaptiveMode(func(o *retry.AdaptiveModeOptions) {
		o.StandardOptions = append(o.StandardOptions, func(so *retry.StandardOptions) {
			so.MaxAttempts = maxAttempts
			so.Retryables = append(so.Retryables, retry.RetryableErrorCode{Codes: retryableCodes})
		})
	})
}

// The budget of the reads only the installation check makes (the interruption queue in SQS and
// EventBridge): a plan goes on without them, so a throttled or failing service costs seconds,
// not the minutes the full attempt budget backs off for.
const (
	AdvisoryMaxAttempts = 3
	advisoryMaxBackoff  = 2 * time.Second
)

// advisoryRetryer is the standard retryer (no client-side rate limiting) with the advisory
// budget, or maxAttempts when that is lower.
func advisoryRetryer(maxAttempts int) aws.Retryer {
	return retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = min(max(maxAttempts, 1), AdvisoryMaxAttempts)
		so.MaxBackoff = advisoryMaxBackoff
	})
}

// maxConsistencyAttempts bounds the attempts on an eventual-consistency NotFound: EC2 makes a new
// object visible within seconds (7 retries back off about 3s on average, 6.4s at most), while the
// whole attempt budget would wait minutes for an object that is really gone.
const maxConsistencyAttempts = 8

type attemptsKey struct{}

// finalError stops the SDK's retries for an error that its code alone would make retryable.
type finalError struct{ err error }

func (e *finalError) Error() string        { return e.err.Error() }
func (e *finalError) Unwrap() error        { return e.err }
func (e *finalError) RetryableError() bool { return false }

// consistencyRetryable reports whether an eventual-consistency NotFound (retryableCodes) of the
// given attempt of op should be retried. Deleting an object that is not found is done: that is
// what the retry of a delete meets when the first attempt's answer was lost (the callers treat
// it as success). Elsewhere NotFound is retried while the object may still become visible.
func consistencyRetryable(op string, attempt int) bool {
	if strings.HasPrefix(op, "Delete") && op != "DeleteTags" {
		return false
	}
	return attempt < maxConsistencyAttempts
}

// retryPolicy counts retried attempts (debug-logged, and in Client.Retries) and scopes the
// eventual-consistency codes of retryableCodes with consistencyRetryable.
func retryPolicy(retries *CallCounter) func(*smithymiddleware.Stack) error {
	return func(stack *smithymiddleware.Stack) error {
		if err := stack.Initialize.Add(smithymiddleware.InitializeMiddlewareFunc("KarpenterAttempts",
			func(ctx context.Context, in smithymiddleware.InitializeInput, next smithymiddleware.InitializeHandler) (smithymiddleware.InitializeOutput, smithymiddleware.Metadata, error) {
				return next.HandleInitialize(context.WithValue(ctx, attemptsKey{}, new(int)), in)
			}), smithymiddleware.Before); err != nil {
			return err
		}
		mw := smithymiddleware.FinalizeMiddlewareFunc("KarpenterRetryPolicy",
			func(ctx context.Context, in smithymiddleware.FinalizeInput, next smithymiddleware.FinalizeHandler) (smithymiddleware.FinalizeOutput, smithymiddleware.Metadata, error) {
				op := middleware.GetOperationName(ctx)
				attempt := 1
				if n, ok := ctx.Value(attemptsKey{}).(*int); ok { // attempts of one call run one after another
					*n++
					attempt = *n
				}
				if attempt > 1 {
					name := middleware.GetServiceID(ctx) + "." + op
					retries.add(name)
					tflog.Debug(ctx, "aws api retry", map[string]any{"aws_operation": name, "attempt": attempt})
				}
				out, md, err := next.HandleFinalize(ctx, in)
				if code := ErrCode(err); strings.HasSuffix(code, ".NotFound") && isRetryableCode(code) && !consistencyRetryable(op, attempt) {
					err = &finalError{err}
				}
				return out, md, err
			})
		if _, ok := stack.Finalize.Get("Retry"); ok { // inside the retry loop: once per attempt
			return stack.Finalize.Insert(mw, "Retry", smithymiddleware.After)
		}
		return stack.Finalize.Add(mw, smithymiddleware.After)
	}
}

func isRetryableCode(code string) bool {
	_, ok := retryableCodes[code]
	return ok
}
