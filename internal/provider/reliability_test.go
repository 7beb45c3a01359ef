package provider

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// quickstartConfig is examples/quickstart without the module indirection: three node classes
// (discovery tag, EFA on the purpose = hpc subnet, prefix delegation), a pool on each, and the
// pod-capacity data sources, on the acceptance fixture network of the cluster. Those pools are
// dynamic and write nothing to EC2, so a static pool of 0 replicas on a fourth class (an AMI id)
// writes and deletes launch templates through the faults.
func quickstartConfig(cluster, ec2Endpoint, stsEndpoint string) string {
	return fmt.Sprintf(`
provider "karpenter" {
  region                             = %[2]q
  cluster_name                       = %[1]q
  cluster_endpoint                   = %[5]q
  cluster_certificate_authority_data = %[6]q
  cluster_service_cidr               = %[7]q
  endpoints = {
    ec2 = %[3]q
    sts = %[4]q
  }
}

resource "karpenter_node_class" "static" {
  name               = "static"
  role               = "KarpenterNodeRole"
  instance_profile_for_static_pools = true
  ami_family         = "AL2023"
  ami_selector_terms = [{ id = %[8]q }]
}

resource "karpenter_node_pool" "static" {
  name       = "static-templates"
  node_class = karpenter_node_class.static.resolved
  replicas   = 0
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge", "c5.large"] },
    ]
  }
}

resource "karpenter_node_class" "default" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  networking         = { prefix_delegation = false }
}

resource "karpenter_node_pool" "general" {
  name       = "default-general"
  node_class = karpenter_node_class.default.resolved
  template = {
    requirements = [
      { key = "topology.kubernetes.io/zone", operator = "In", values = ["%[2]sa", "%[2]sb"] },
      { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = ["5"] },
      { key = "karpenter.k8s.aws/instance-size", operator = "In", values = ["large", "xlarge", "2xlarge"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
    ]
  }
  limits = { cpu = "1000", memory = "1000Gi" }
}

resource "karpenter_node_class" "efa" {
  name                  = "efa"
  role                  = "KarpenterNodeRole"
  ami_selector_terms    = [{ alias = "al2023@latest" }]
  subnet_selector_terms = [{ tags = { "karpenter.sh/discovery" = %[1]q, purpose = "hpc" } }]
  efa                   = true
  networking            = { prefix_delegation = false }
}

resource "karpenter_node_pool" "training" {
  name       = "efa-training"
  node_class = karpenter_node_class.efa.resolved
  details    = true
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["c5n.18xlarge", "c6in.32xlarge", "p4de.24xlarge"] },
    ]
  }
  limits = { nodes = "4" }
}

resource "karpenter_node_class" "prefix" {
  name               = "prefix"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  networking         = { prefix_delegation = true }
}

resource "karpenter_node_pool" "dense" {
  name       = "prefix-dense"
  node_class = karpenter_node_class.prefix.resolved
  details    = true
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge", "c5.18xlarge"] },
    ]
  }
  limits = { nodes = "60" }
}

locals {
  capacity_types = ["t3.micro", "m5.large", "m5.xlarge", "c5.18xlarge", "p5.48xlarge"]
}

data "karpenter_pod_capacity" "secondary" {
  count         = length(local.capacity_types)
  instance_type = local.capacity_types[count.index]
}

data "karpenter_pod_capacity" "prefix" {
  count             = length(local.capacity_types)
  instance_type     = local.capacity_types[count.index]
  prefix_delegation = true
}

data "karpenter_pod_capacity" "custom_networking" {
  count             = length(local.capacity_types)
  instance_type     = local.capacity_types[count.index]
  custom_networking = true
  reserved_enis     = 1
}
`, cluster, acctest.Region(), ec2Endpoint, stsEndpoint, testClusterEndpoint, testClusterCA, testServiceCIDR, testAMI())
}

var quickstartPools = []string{"karpenter_node_pool.general", "karpenter_node_pool.training", "karpenter_node_pool.dense", "karpenter_node_pool.static"}

// clusterTemplates lists, straight from LocalStack (not through the proxy), every launch
// template tagged for the cluster: name -> ids.
func clusterTemplates(ctx context.Context, t *testing.T, cluster string) (map[string][]string, error) {
	p := ec2.NewDescribeLaunchTemplatesPaginator(acctest.EC2(t), &ec2.DescribeLaunchTemplatesInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:" + launchplan.TagCluster), Values: []string{cluster}}},
	})
	out := map[string][]string{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, lt := range page.LaunchTemplates {
			out[aws.ToString(lt.LaunchTemplateName)] = append(out[aws.ToString(lt.LaunchTemplateName)], aws.ToString(lt.LaunchTemplateId))
		}
	}
	return out, nil
}

// clusterInstances counts live instances tagged for the cluster, straight from LocalStack.
func clusterInstances(ctx context.Context, t *testing.T, cluster string) (int, error) {
	out, err := acctest.EC2(t).DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag:" + launchplan.TagCluster), Values: []string{cluster}},
		{Name: aws.String("instance-state-name"), Values: []string{"pending", "running", "stopping", "stopped"}},
	}})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range out.Reservations {
		n += len(r.Instances)
	}
	return n, nil
}

// expectExactlyPlannedTemplates checks that EC2 holds exactly one template per planned name of
// the static pool, with the id state recorded, none of the dynamic pools' (listed without ids
// with `details`, not listed without), nothing else for the cluster, and no instance.
func expectExactlyPlannedTemplates(t *testing.T, cluster string, planned *int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		want := map[string]string{}
		for _, res := range quickstartPools {
			rs, ok := s.RootModule().Resources[res]
			if !ok {
				return fmt.Errorf("%s not in state", res)
			}
			a := rs.Primary.Attributes
			planned := a["summary.launch_templates"]
			if planned == "" || planned == "0" {
				return fmt.Errorf("%s planned no launch templates", res)
			}
			static := a["replicas"] != ""
			switch n, listed := a["launch_templates.#"]; {
			case (static || a["details"] == "true") && n != planned:
				return fmt.Errorf("%s lists %q launch templates, summary says %s", res, n, planned)
			case !static && a["details"] != "true" && listed:
				return fmt.Errorf("%s: dynamic pool without details lists %s launch templates", res, n)
			}
			for i := 0; a[fmt.Sprintf("launch_templates.%d.name", i)] != ""; i++ {
				id, ok := a[fmt.Sprintf("launch_templates.%d.id", i)]
				switch {
				case static && id == "":
					return fmt.Errorf("%s: static pool template %d has no id", res, i)
				case !static && ok:
					return fmt.Errorf("%s: dynamic pool template %d has id %q", res, i, id)
				case static:
					want[a[fmt.Sprintf("launch_templates.%d.name", i)]] = id
				}
			}
		}
		if len(want) == 0 {
			return fmt.Errorf("the static pool planned no launch templates")
		}
		*planned = len(want)
		got, err := clusterTemplates(context.Background(), t, cluster)
		if err != nil {
			return err
		}
		var problems []string
		for name, id := range want {
			switch ids := got[name]; {
			case len(ids) == 0:
				problems = append(problems, fmt.Sprintf("planned template %s is missing", name))
			case len(ids) > 1:
				problems = append(problems, fmt.Sprintf("template %s exists %d times: %v", name, len(ids), ids))
			case ids[0] != id:
				problems = append(problems, fmt.Sprintf("template %s is %s in EC2 but %s in state", name, ids[0], id))
			}
		}
		for name, ids := range got {
			if _, ok := want[name]; !ok {
				problems = append(problems, fmt.Sprintf("unplanned template %s %v", name, ids))
			}
		}
		if n, err := clusterInstances(context.Background(), t, cluster); err != nil {
			return err
		} else if n > 0 {
			problems = append(problems, fmt.Sprintf("%d instances tagged for the cluster; the quickstart launches none", n))
		}
		sort.Strings(problems)
		if len(problems) > 0 {
			return fmt.Errorf("EC2 does not hold exactly the planned launch templates:\n  %s", strings.Join(problems, "\n  "))
		}
		return nil
	}
}

// TestAccReliability_quickstartThroughFaults applies the quickstart-sized configuration with a
// fifth of the EC2 calls failing (throttling, 500, 503) plus a few connection resets, some of
// them after LocalStack already carried the call out. The apply must converge, the next plan
// must be empty (the framework checks), EC2 must hold exactly the planned templates, and
// destroy must leave nothing.
func TestAccReliability_quickstartThroughFaults(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)

	// 20% throttling and 5xx, 2% resets, 5% of calls 20ms slower. The request order varies
	// with Terraform's parallelism, so the seed varies too; it is logged.
	ec2Rates := acctest.FaultRates{Throttle: 0.10, InternalError: 0.05, Unavailable: 0.05, Reset: 0.01, ResetAfterForward: 0.01, Latency: 0.05}
	seed := uint64(time.Now().UnixNano())
	proxy := acctest.NewFaultProxy(t, acctest.FaultConfig{
		Seed:     seed,
		Services: []string{"ec2"},
		Default:  ec2Rates,
		Latency:  20 * time.Millisecond,
		// Deterministic coverage of the paths a short random run may miss: a create and a
		// delete that took effect but whose answer was lost, and a plain reset on a read.
		Script: map[string][]acctest.Fault{
			"CreateLaunchTemplate":    {acctest.FaultResetAfterForward, acctest.FaultNone, acctest.FaultThrottle, acctest.FaultResetAfterForward},
			"DeleteLaunchTemplate":    {acctest.FaultResetAfterForward, acctest.FaultUnavailable},
			"DescribeLaunchTemplates": {acctest.FaultReset},
		},
	})
	cfg := quickstartConfig(cluster, proxy.URL(), proxy.URL())
	rec := &callRecorder{}

	planned, leaked := 0, -1
	start := time.Now()
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		CheckDestroy: func(s *terraform.State) error {
			got, err := clusterTemplates(context.Background(), t, cluster)
			if err != nil {
				return err
			}
			leaked = 0
			for _, ids := range got {
				leaked += len(ids)
			}
			n, err := clusterInstances(context.Background(), t, cluster)
			if err != nil {
				return err
			}
			leaked += n
			if leaked > 0 {
				return fmt.Errorf("%d objects of the cluster left after destroy: templates %v, %d instances", leaked, got, n)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					expectExactlyPlannedTemplates(t, cluster, &planned),
					resource.TestCheckResourceAttr("data.karpenter_pod_capacity.secondary.1", "max_pods", "29"),
					resource.TestCheckResourceAttr("data.karpenter_pod_capacity.prefix.1", "max_pods", "110"),
				),
			},
			{
				// A refresh and plan of the converged state, still through the faults: no change.
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})

	st := proxy.Stats()
	ec2Total, stsTotal := st.Total("ec2"), st.Total("sts")
	retried := providerRetries(rec)
	t.Logf("fault proxy (seed %d), per action:\n%s", seed, st)
	t.Logf("figures: %d EC2 requests (%d STS), %d injected faults (%.1f%%: throttle %d, 500 %d, 503 %d, reset %d, reset after forward %d), "+
		"%d retries (the provider counted %d), %d delayed; %d launch templates planned; %d objects leaked; %s",
		ec2Total.Requests, stsTotal.Requests, ec2Total.Injected(), 100*float64(ec2Total.Injected())/float64(max(1, ec2Total.Requests)),
		ec2Total.Faults[acctest.FaultThrottle], ec2Total.Faults[acctest.FaultInternalError], ec2Total.Faults[acctest.FaultUnavailable],
		ec2Total.Faults[acctest.FaultReset], ec2Total.Faults[acctest.FaultResetAfterForward],
		ec2Total.Retries+stsTotal.Retries, retried, ec2Total.Delayed, planned, leaked, time.Since(start).Round(time.Second))
	if t.Failed() {
		return
	}
	if ec2Total.Injected() == 0 || ec2Total.Retries < ec2Total.Injected() || retried < ec2Total.Injected() {
		t.Errorf("every injected fault should have been retried: %d faults, %d retries seen by the proxy, %d counted by the provider",
			ec2Total.Injected(), ec2Total.Retries, retried)
	}
	if c := st.Actions["CreateLaunchTemplate"]; c.Faults[acctest.FaultResetAfterForward] == 0 {
		t.Errorf("no CreateLaunchTemplate answer was lost after it took effect: %+v", c)
	}
	if d := st.Actions["DeleteLaunchTemplate"]; d.Faults[acctest.FaultResetAfterForward] == 0 {
		t.Errorf("no DeleteLaunchTemplate answer was lost after it took effect: %+v", d)
	}
}

// providerRetries sums the retried attempts every client of the provider counted.
func providerRetries(rec *callRecorder) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, c := range rec.clients {
		if c.Retries == nil {
			continue
		}
		for _, v := range c.Retries.Snapshot() {
			n += v
		}
	}
	return n
}

// ec2ErrorServer answers every EC2 call with the error code listed for its action (while the
// action's budget of failures lasts), else with an empty success; it counts requests by action.
func ec2ErrorServer(t *testing.T, fail map[string]string, failures map[string]int) (*httptest.Server, func(string) int) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		v, _ := url.ParseQuery(string(b))
		action := v.Get("Action")
		mu.Lock()
		seen[action]++
		n := seen[action]
		mu.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		if code, ok := fail[action]; ok && (failures[action] == 0 || n <= failures[action]) {
			status := http.StatusBadRequest
			if code == "InternalError" {
				status = http.StatusInternalServerError
			}
			w.WriteHeader(status)
			fmt.Fprintf(w, `<Response><Errors><Error><Code>%s</Code><Message>m</Message></Error></Errors><RequestID>r</RequestID></Response>`, code)
			return
		}
		fmt.Fprintf(w, `<%sResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId></%sResponse>`, action, action)
	}))
	t.Cleanup(srv.Close)
	return srv, func(a string) int { mu.Lock(); defer mu.Unlock(); return seen[a] }
}

// The provider's retry policy (awsclient.New): an eventual-consistency NotFound is retried a few
// times, except on a delete, where it means the object is gone (what the retry of a delete
// whose answer was lost meets); transient errors are retried and counted.
func TestRetryPolicy_notFoundAndTransientErrors(t *testing.T) {
	isolateAWSEnv(t)
	srv, seen := ec2ErrorServer(t, map[string]string{
		"DeleteLaunchTemplate":        "InvalidLaunchTemplateId.NotFound",
		"CreateLaunchTemplateVersion": "InvalidLaunchTemplateId.NotFound",
		"DescribeSubnets":             "InternalError",
		"DescribeLaunchTemplates":     "InvalidLaunchTemplateName.NotFoundException",
	}, map[string]int{"DescribeSubnets": 2})
	c, err := awsclient.New(context.Background(), awsclient.Settings{
		Region: "ap-southeast-1", AccessKey: "AKIDTEST", SecretKey: "test", EC2Endpoint: srv.URL,
		SkipCredentialsValidation: true, SkipRequestingAccountID: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lts := awsclient.LaunchTemplates{EC2: c.EC2}

	if err := lts.Delete(ctx, "lt-0123456789abcdef0"); err != nil {
		t.Fatalf("deleting a missing template: %v", err)
	}
	if n := seen("DeleteLaunchTemplate"); n != 1 {
		t.Errorf("DeleteLaunchTemplate NotFound was sent %d times, want 1 (not retried)", n)
	}

	start := time.Now()
	_, err = c.EC2.CreateLaunchTemplateVersion(ctx, &ec2.CreateLaunchTemplateVersionInput{
		LaunchTemplateId: aws.String("lt-0123456789abcdef0"), LaunchTemplateData: &ec2types.RequestLaunchTemplateData{}})
	if awsclient.ErrCode(err) != "InvalidLaunchTemplateId.NotFound" {
		t.Fatalf("want the NotFound code through the wrapping, got %v", err)
	}
	if n := seen("CreateLaunchTemplateVersion"); n != 8 {
		t.Errorf("CreateLaunchTemplateVersion NotFound was sent %d times, want 8 (a bounded consistency wait)", n)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the consistency retries took %s", d)
	}

	if _, err := c.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{}); err != nil {
		t.Fatalf("two 500s then success: %v", err)
	}
	if _, err := lts.FindByName(ctx, "missing"); err == nil {
		t.Fatal("FindByName of a missing template succeeded")
	}
	if n := seen("DescribeLaunchTemplates"); n != 1 {
		t.Errorf("a missing name was looked up %d times, want 1", n)
	}
	want := map[string]int{"EC2.CreateLaunchTemplateVersion": 7, "EC2.DescribeSubnets": 2}
	if got := c.Retries.Snapshot(); !reflect.DeepEqual(got, want) {
		t.Errorf("retries counted %v, want %v", got, want)
	}
}
