//go:build policyrecord

package provider

import (
	"context"
	"os"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest/policyrecord"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

// A test binary (go build -tags policyrecord) records its AWS calls into the directory
// policyrecord.EnvDir names, for the acceptance tests' check of the published IAM policy.
func init() {
	dir := os.Getenv(policyrecord.EnvDir)
	if dir == "" {
		return
	}
	rec := acctest.NewPolicyRecorder()
	rec.Sink = policyrecord.FileSink(dir)
	wrapClients = func(p *karpenterProvider, next awsclient.NewClientFunc) awsclient.NewClientFunc {
		return func(ctx context.Context, s awsclient.Settings) (*awsclient.Client, error) {
			c, err := next(ctx, s)
			if c != nil {
				policyrecord.Wrap(rec, c, func() string {
					if m := p.meta.Load(); m != nil {
						return m.ClusterName
					}
					return ""
				})
			}
			return c, err
		}
	}
}
