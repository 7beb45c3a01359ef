// Package acctest is the acceptance-test support: where LocalStack is, a fail-fast check that it
// is up, an SDK EC2 client for fixtures, and isolated networks (VPC, subnets in three zones,
// security groups) under unique random tags so tests can run in parallel.
package acctest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// Defaults for the local emulator; the standard AWS variables override them.
const (
	DefaultEndpoint = "http://127.0.0.1:4566"
	DefaultRegion   = "ap-southeast-1"
)

// SetDefaultEnv fills the AWS variables a LocalStack run needs when they are unset; call it from
// TestMain (before any t.Parallel) so that the provider under test and the fixtures agree.
func SetDefaultEnv() {
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL":      DefaultEndpoint,
		"AWS_REGION":            DefaultRegion,
		"AWS_ACCESS_KEY_ID":     "test",
		"AWS_SECRET_ACCESS_KEY": "test",
	} {
		if os.Getenv(k) == "" {
			_ = os.Setenv(k, v)
		}
	}
	// A user's shared config must not redirect the tests.
	if os.Getenv("AWS_CONFIG_FILE") == "" {
		_ = os.Setenv("AWS_CONFIG_FILE", os.DevNull)
	}
	if os.Getenv("AWS_SHARED_CREDENTIALS_FILE") == "" {
		_ = os.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	}
}

// Endpoint is the EC2 endpoint the tests use.
func Endpoint() string {
	if v := os.Getenv("AWS_ENDPOINT_URL_EC2"); v != "" {
		return v
	}
	if v := os.Getenv("AWS_ENDPOINT_URL"); v != "" {
		return v
	}
	return DefaultEndpoint
}

// Region is the region the tests use.
func Region() string {
	if v := os.Getenv("AWS_REGION"); v != "" {
		return v
	}
	return DefaultRegion
}

var (
	reachOnce sync.Once
	reachErr  error
)

// PreCheck skips the test outside acceptance runs (TF_ACC unset, as terraform-plugin-testing
// does), and fails it at once, naming the fix, when the emulator cannot be reached.
func PreCheck(t testing.TB) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 (make testacc)")
	}
	reachOnce.Do(func() {
		u, err := url.Parse(Endpoint())
		if err != nil {
			reachErr = fmt.Errorf("AWS endpoint %q is not a URL: %w", Endpoint(), err)
			return
		}
		conn, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
		if err != nil {
			reachErr = fmt.Errorf("no EC2 emulator at %s (%v): start LocalStack with `make localstack-up`", Endpoint(), err)
			return
		}
		_ = conn.Close()
	})
	if reachErr != nil {
		t.Fatal(reachErr)
	}
}

var (
	clientOnce sync.Once
	client     *ec2.Client
)

// EC2 returns an SDK client on the test endpoint, for fixtures and out-of-band changes.
func EC2(t testing.TB) *ec2.Client {
	t.Helper()
	PreCheck(t)
	return sdkEC2()
}

// sdkEC2 is the shared client, built once.
func sdkEC2() *ec2.Client {
	clientOnce.Do(func() { client = ec2.NewFromConfig(sdkConfig()) })
	return client
}

// sdkConfig is the SDK configuration of every fixture client (EC2, IAM, SSM): the test
// endpoint and region, the emulator's credentials, a few retries.
func sdkConfig() aws.Config {
	return aws.Config{
		Region:       Region(),
		BaseEndpoint: aws.String(Endpoint()),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer:      func() aws.Retryer { return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxAttempts = 5 }) },
		HTTPClient:   &http.Client{Timeout: 60 * time.Second},
	}
}

// RandomName returns prefix-<8 hex chars>, unique enough to isolate parallel tests.
func RandomName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// Context returns a context bounded for fixture work.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
