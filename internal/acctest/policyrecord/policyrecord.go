// Package policyrecord records the AWS calls of a provider's clients as the IAM requests they
// need (acctest.PolicyRecorder), in the acceptance tests' own process and in the provider binary
// the CLI tests run (built with the policyrecord tag: each process appends its calls to a file of
// its own, which the tests read back). It is test machinery: the release binary never links it.
package policyrecord

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

// EnvDir names the directory a provider binary built with the policyrecord tag writes its
// calls to (one calls-<pid>.jsonl per process); unset, it records nothing.
const EnvDir = "KARPENTER_POLICY_RECORD_DIR"

// Wrap rebuilds the client's SDK clients with the recorder's middleware (the same options
// otherwise, so they stay the SDK's types) and records the STS call awsclient.New made. cluster
// is asked after each call: the provider's cluster_name once it is configured.
func Wrap(r *acctest.PolicyRecorder, c *awsclient.Client, cluster func() string) {
	scope := func() acctest.CallScope {
		return acctest.CallScope{Partition: c.Partition, Region: c.Region, Account: c.AccountID, Cluster: cluster()}
	}
	mw := r.Middleware(scope)
	if x, ok := c.EC2.(*ec2.Client); ok {
		c.EC2 = ec2.New(x.Options(), func(o *ec2.Options) { o.APIOptions = append(o.APIOptions, mw) })
	}
	if x, ok := c.SSM.(*ssm.Client); ok {
		c.SSM = ssm.New(x.Options(), func(o *ssm.Options) { o.APIOptions = append(o.APIOptions, mw) })
	}
	if x, ok := c.IAM.(*iam.Client); ok {
		c.IAM = iam.New(x.Options(), func(o *iam.Options) { o.APIOptions = append(o.APIOptions, mw) })
	}
	if x, ok := c.EKS.(*eks.Client); ok {
		c.EKS = eks.New(x.Options(), func(o *eks.Options) { o.APIOptions = append(o.APIOptions, mw) })
	}
	if x, ok := c.SQS.(*sqs.Client); ok {
		c.SQS = sqs.New(x.Options(), func(o *sqs.Options) { o.APIOptions = append(o.APIOptions, mw) })
	}
	if x, ok := c.Events.(*eventbridge.Client); ok {
		c.Events = eventbridge.New(x.Options(), func(o *eventbridge.Options) { o.APIOptions = append(o.APIOptions, mw) })
	}
	if x, ok := c.Pricing.(*awspricing.Client); ok {
		c.Pricing = awspricing.New(x.Options(), func(o *awspricing.Options) { o.APIOptions = append(o.APIOptions, mw) })
	}
	if c.Calls != nil && c.Calls.Snapshot()["STS.GetCallerIdentity"] > 0 {
		r.Record("STS.GetCallerIdentity", scope(), nil, nil, nil)
	}
}

// FileSink appends each call, one JSON line, to dir/calls-<pid>.jsonl; a call that cannot be
// written is dropped (the process is a provider plugin: it has no one to tell).
func FileSink(dir string) func(acctest.PolicyCall) {
	var mu sync.Mutex
	path := filepath.Join(dir, fmt.Sprintf("calls-%d.jsonl", os.Getpid()))
	return func(call acctest.PolicyCall) {
		line, err := json.Marshal(call)
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return
		}
		_, _ = f.Write(append(line, '\n'))
		_ = f.Close()
	}
}

// ReadDir reads back the calls every process wrote to dir (none when it does not exist).
func ReadDir(dir string) ([]acctest.PolicyCall, error) {
	files, err := filepath.Glob(filepath.Join(dir, "calls-*.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []acctest.PolicyCall
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
		var bad error // a line that does not parse: only the last may, cut short by a killed process
		for sc.Scan() {
			if bad != nil {
				_ = f.Close()
				return nil, bad
			}
			var call acctest.PolicyCall
			if err := json.Unmarshal(sc.Bytes(), &call); err != nil {
				bad = fmt.Errorf("%s: %w", name, err)
				continue
			}
			out = append(out, call)
		}
		err = sc.Err()
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}
