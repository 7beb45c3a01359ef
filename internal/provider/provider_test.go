package provider

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest/policyrecord"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubetest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") == "" {
		os.Exit(runWithFreshCatalogCache(m))
	}
	acctest.SetDefaultEnv()
	admissionObserver = observed.record
	code := runWithSharedIAM(m)
	if code == 0 {
		if err := observed.compare(); err != nil {
			fmt.Fprintf(os.Stderr, "--- FAIL: differential check against the API server\n%v\n", err)
			code = 1
		}
		if err := checkPublishedPermissions(); err != nil {
			fmt.Fprintf(os.Stderr, "--- FAIL: the published IAM policy against the calls the suite made\n%v\n", err)
			code = 1
		}
		if err := checkPublishedPolicyDecisions(); err != nil {
			fmt.Fprintf(os.Stderr, "--- FAIL: the filled published IAM policy's decisions on the suite's calls\n%v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// observed holds every manifest the provider validated in this run's plans, each once, with the
// verdict: the differential check sends them to the API server of make k8s-up, whose verdict must
// be the same (Karpenter's admission suites among them, where the plan reached the manifest).
var observed admissions

type admissions struct {
	sync.Mutex
	judged []kubetest.Judged
	seen   map[string]bool
	crdOf  map[string]*manifest.CRD // the CRD each (differential-group) manifest was admitted against
}

func (o *admissions) record(version, doc string, violations []manifest.Violation) {
	// Sent to the version's own copy of the CRDs (cmd/k8s-crds -differential).
	doc = manifest.InDifferentialGroup(doc, version)
	o.Lock()
	defer o.Unlock()
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	if o.seen[doc] {
		return
	}
	o.seen[doc] = true
	j := kubetest.Judged{Doc: doc, Accepted: len(violations) == 0, Fields: []string{}}
	for _, v := range violations {
		j.Objections = append(j.Objections, v.String())
		j.Fields = append(j.Fields, v.Field.String())
	}
	if o.crdOf == nil {
		o.crdOf = map[string]*manifest.CRD{}
	}
	crds, _ := manifest.CRDsFor(version)
	kind := manifest.NodePoolKind
	switch {
	case strings.Contains(doc, "\nkind: EC2NodeClass"):
		kind = manifest.EC2NodeClassKind
	case strings.Contains(doc, "\nkind: "+manifest.AutoModeNodeClassKind+"\n"): // installed as it is, not per version
		crds[manifest.AutoModeNodeClassKind], _ = manifest.AutoModeNodeClassCRD()
		kind = manifest.AutoModeNodeClassKind
	}
	o.crdOf[doc] = crds[kind]
	o.judged = append(o.judged, j)
}

// minProviderDifferential is the fewest manifests an unfiltered acceptance run must compare.
const minProviderDifferential = 250 // 306 measured

// compare runs the differential check over what the run observed. A run that planned no
// manifest (a filtered run of other tests) has nothing to compare.
func (o *admissions) compare() error {
	o.Lock()
	judged := slices.Clone(o.judged)
	o.Unlock()
	// An unfiltered acceptance run must compare a floor of manifests, none included; a filtered
	// run, or one without TF_ACC (the acceptance tests skip), may have nothing to compare.
	unfiltered := flag.Lookup("test.run") == nil || flag.Lookup("test.run").Value.String() == ""
	if unfiltered && os.Getenv("TF_ACC") != "" && len(judged) < minProviderDifferential {
		return fmt.Errorf("the plans validated only %d manifests; an unfiltered run must compare at least %d", len(judged), minProviderDifferential)
	}
	if len(judged) == 0 {
		return nil
	}
	api, err := kubetest.FromEnv()
	if err != nil {
		return err
	}
	// The API server's fields read with the CRD each manifest was admitted against.
	normalize := func(doc, field string) string {
		o.Lock()
		defer o.Unlock()
		if c := o.crdOf[doc]; c != nil {
			return c.ParseFieldPath(field).String()
		}
		return field
	}
	summary, err := kubetest.Compare(api, judged, normalize)
	fmt.Println(summary)
	return err
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
	if cliProviderDir != "" { // the provider binary the CLI tests built, and the calls it recorded
		cliPolicyCalls, cliPolicyErr = policyrecord.ReadDir(cliCallsDir())
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
	if os.Getenv(awsclient.EnvCatalogCacheDir) != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "karpenter-catalog-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv(awsclient.EnvCatalogCacheDir, dir)
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
			return serverOf(func() *karpenterProvider {
				p := &karpenterProvider{version: "test", newClient: suiteCalls.newClient, afterLaunch: crashHook, beforeClaim: claimHook}
				if rec != nil {
					p.newClient = func(ctx context.Context, s awsclient.Settings) (*awsclient.Client, error) {
						c, err := suiteCalls.newClient(ctx, s)
						if c != nil {
							rec.mu.Lock()
							rec.clients = append(rec.clients, c)
							rec.mu.Unlock()
						}
						return c, err
					}
				}
				p.newClient = policyRecorded(p, p.newClient) // the published policy decides its calls
				return p
			})()
		},
	}
}

// suiteCalls keeps every AWS client the providers of the suite built, for the permissions check.
var suiteCalls callRecorder

// checkPublishedPermissions compares the IAM actions of the operations the suite's providers
// called with the published policy (awsclient.Permissions): an operation the policy lacks fails,
// and so does an action the policy grants that no test called (unless a call implies it). Only
// an unfiltered run exercises every capability.
func checkPublishedPermissions() error {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		return nil
	}
	called := map[string]bool{}
	for op := range suiteCalls.Calls("") {
		called[awsclient.ActionOf(op)] = true
	}
	listed := map[string]bool{}
	var problems []string
	for _, p := range awsclient.Permissions {
		listed[p.Action] = true
		if !called[p.Action] && p.Implied == "" {
			problems = append(problems, "the policy grants "+p.Action+" ("+p.Capability+"), which no test called")
		}
	}
	for a := range called {
		if !listed[a] {
			problems = append(problems, "the provider called "+a+", which the published policy lacks (internal/awsclient/permissions.go)")
		}
	}
	slices.Sort(problems)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	fmt.Printf("published IAM policy: the suite called all %d actions it lists (%d more implied), and no other\n", len(called),
		len(awsclient.Permissions)-len(called))
	return nil
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
    sqs = %q
    events = %q
  }%s
}
`, acctest.Region(), ec2Endpoint, acctest.Endpoint(), acctest.Endpoint(), acctest.Endpoint(), acctest.Endpoint(), acctest.Endpoint(), cluster)
}

// The observer records each validated manifest once, with the validator's verdict and objections.
func TestAdmissionsRecord(t *testing.T) {
	var o admissions
	bad := []manifest.Violation{{Message: "must be at most 100"}}
	o.record("1.15", "doc-a", nil)
	o.record("1.15", "doc-b", bad)
	o.record("1.15", "doc-a", nil)
	if len(o.judged) != 2 || !o.judged[0].Accepted || o.judged[1].Accepted || len(o.judged[1].Objections) != 1 ||
		!strings.Contains(o.judged[1].Objections[0], "must be at most 100") {
		t.Errorf("judged = %+v", o.judged)
	}
}
