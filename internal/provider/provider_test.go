package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") == "" {
		os.Exit(runWithFreshCatalogCache(m))
	}
	acctest.SetDefaultEnv()
	os.Exit(runWithSharedIAM(m))
}

// Shared IAM fixtures: the node role the test configurations name (the provider checks at plan
// that a class's role exists), the role of the upstream Karpenter suite fixtures, and the
// instance profile their `instance_profile` cases name.
var (
	sharedRoles    = []string{"KarpenterNodeRole", "role-1"}
	sharedProfiles = []string{"test-instance-profile"}
)

// runWithSharedIAM creates the shared IAM fixtures that are missing for the run and deletes
// those it created afterwards.
func runWithSharedIAM(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cleanup, err := acctest.SharedIAM(ctx, sharedRoles, sharedProfiles)
	cancel()
	if err != nil {
		// The tests' PreCheck names an unreachable emulator; other failures show here.
		fmt.Fprintf(os.Stderr, "shared IAM fixtures: %v\n", err)
	}
	code := runWithFreshCatalogCache(m)
	if cliProviderDir != "" { // the provider binary the CLI tests built
		_ = os.RemoveAll(cliProviderDir)
	}
	if err := cleanup(); err != nil {
		fmt.Fprintf(os.Stderr, "shared IAM fixtures cleanup: %v\n", err)
	}
	return code
}

// runWithFreshCatalogCache gives the run its own catalog cache directory (unless one is set),
// so that tests counting catalog calls never see a file of an earlier run.
func runWithFreshCatalogCache(m *testing.M) int {
	if os.Getenv(envCatalogCacheDir) != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "karpenter-catalog-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv(envCatalogCacheDir, dir)
	return m.Run()
}

// callRecorder builds real clients and remembers them, so a test can sum the AWS calls that
// every provider process of a test case made.
type callRecorder struct {
	mu      sync.Mutex
	clients []*awsclient.Client
}

func (r *callRecorder) newClient(ctx context.Context, s awsclient.Settings) (*awsclient.Client, error) {
	c, err := awsclient.New(ctx, s)
	if c != nil {
		r.mu.Lock()
		r.clients = append(r.clients, c)
		r.mu.Unlock()
	}
	return c, err
}

// Calls sums the calls of one service prefix ("EC2.") over every client built.
func (r *callRecorder) Calls(prefix string) map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for _, c := range r.clients {
		for op, n := range c.Calls.Snapshot() {
			if strings.HasPrefix(op, prefix) {
				out[op] += n
			}
		}
	}
	return out
}

// factories serves the provider under test; with a recorder, every client it builds is kept.
func factories(rec *callRecorder) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"karpenter": func() (tfprotov6.ProviderServer, error) {
			p := &karpenterProvider{version: "test", newClient: awsclient.New, afterLaunch: crashHook, beforeClaim: claimHook}
			if rec != nil {
				p.newClient = rec.newClient
			}
			return providerserver.NewProtocol6WithError(p)()
		},
	}
}

// Cluster facts of the test provider blocks (nothing connects to them).
const (
	testClusterEndpoint = "https://ABCDEF0123456789.gr7.ap-southeast-1.eks.amazonaws.com"
	testClusterCA       = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=" // a PEM stub
	testServiceCIDR     = "172.20.0.0/16"
)

// providerConfig is the provider block of acceptance tests: explicit endpoints, credentials
// from the environment (acctest.SetDefaultEnv).
func providerConfig(clusterName string) string {
	return providerConfigEC2(clusterName, acctest.Endpoint())
}

// providerConfigEC2 is providerConfig with EC2 behind another endpoint (e.g. acctest's
// capacity stub).
func providerConfigEC2(clusterName, ec2Endpoint string) string {
	cluster := ""
	if clusterName != "" { // with the facts a node joins with, as terraform-aws-eks outputs them
		cluster = fmt.Sprintf("\n  cluster_name = %q\n  cluster_endpoint = %q\n  cluster_certificate_authority_data = %q\n  cluster_service_cidr = %q",
			clusterName, testClusterEndpoint, testClusterCA, testServiceCIDR)
	}
	return fmt.Sprintf(`
provider "karpenter" {
  region = %q
  endpoints = {
    ec2 = %q
    sts = %q
    ssm = %q
    iam = %q
  }%s
}
`, acctest.Region(), ec2Endpoint, acctest.Endpoint(), acctest.Endpoint(), acctest.Endpoint(), cluster)
}
