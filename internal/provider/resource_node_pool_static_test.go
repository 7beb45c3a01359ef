package provider

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"gopkg.in/yaml.v3"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// testAMI is an x86_64 image of the emulator's own catalog: static pools' id terms must
// resolve at plan (DescribeImages) and their nodes launch from it.
func testAMI() string {
	id, err := acctest.LookupBuiltinImage("x86_64")
	if err != nil {
		panic(err) // acceptance tests only, after PreCheck
	}
	return id
}

func staticConfig(cluster, pool string, replicas int) string {
	return staticConfigClass(cluster, pool, replicas, "")
}

// awsLikeEC2 is the EC2 endpoint of the static-pool tests: LocalStack behind the test proxy,
// which gives CreateFleet AWS's client-token semantics (LocalStack ignores tokens): a repeated
// token returns the first answer, a repeated token with other parameters fails with
// IdempotentParameterMismatch. One proxy serves the package's tests.
var awsLikeEC2 = sync.OnceValue(func() *acctest.FaultProxy {
	p, err := acctest.StartFaultProxy(acctest.FaultConfig{ClientTokens: true})
	if err != nil {
		panic(err) // only for a non-loopback LocalStack endpoint, which acctest refuses anyway
	}
	return p
})

// staticConfigClass is staticConfig with extra node-class lines.
func staticConfigClass(cluster, pool string, replicas int, classLines string) string {
	return providerConfigEC2(cluster, awsLikeEC2().URL()) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "static"
  role               = "KarpenterNodeRole"
  ami_family         = "AL2023"
  # The provider launches the pool's nodes: they need its instance profile for the role.
  instance_profile_for_static_pools = true
  ami_selector_terms = [{ id = %q }]
%s
}

resource "karpenter_node_pool" "test" {
  name       = %q
  node_class = karpenter_node_class.test.resolved
  replicas   = %d
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge"] }]
  }
  limits = { nodes = "5" }
  timeouts = { create = "5m", update = "5m", delete = "5m" }
}
`, testAMI(), classLines, pool, replicas)
}

// poolInstances lists the live instances tagged for the pool, straight from EC2.
func poolInstances(t *testing.T, cluster, pool string) []ec2types.Instance {
	t.Helper()
	return liveInstances(t, map[string]string{"karpenter.sh/nodepool": pool, "karpenter.k8s.aws/cluster": cluster})
}

// liveInstances lists the pending and running instances carrying every tag, straight from EC2.
func liveInstances(t *testing.T, tags map[string]string) []ec2types.Instance {
	t.Helper()
	filters := []ec2types.Filter{{Name: aws.String("instance-state-name"), Values: []string{"pending", "running"}}}
	for k, v := range tags {
		filters = append(filters, ec2types.Filter{Name: aws.String("tag:" + k), Values: []string{v}})
	}
	out, err := acctest.EC2(t).DescribeInstances(context.Background(), &ec2.DescribeInstancesInput{Filters: filters})
	if err != nil {
		t.Fatalf("describing instances: %v", err)
	}
	var res []ec2types.Instance
	for _, r := range out.Reservations {
		res = append(res, r.Instances...)
	}
	return res
}

// runTagged launches one m5.large with the tags into the subnet, straight through EC2 (as a
// person or another tool would), and returns its id.
func runTagged(t *testing.T, subnetID string, tags map[string]string) string {
	t.Helper()
	var list []ec2types.Tag
	for k, v := range tags {
		list = append(list, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := acctest.EC2(t).RunInstances(context.Background(), &ec2.RunInstancesInput{
		ImageId: aws.String(testAMI()), InstanceType: ec2types.InstanceTypeM5Large, MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
		SubnetId:          aws.String(subnetID),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance, Tags: list}},
	})
	if err != nil {
		t.Fatalf("RunInstances: %v", err)
	}
	return aws.ToString(out.Instances[0].InstanceId)
}

// outOfKarpenterGC checks the pool's live instances against the filter of Karpenter's instance
// garbage collector (tag keys karpenter.sh/nodepool and karpenter.k8s.aws/ec2nodeclass, and
// eks:eks-cluster-name = <cluster>; what it lists without a NodeClaim it terminates): they carry
// the first two, so only the missing eks:eks-cluster-name keeps them out of it.
func outOfKarpenterGC(t *testing.T, cluster, pool string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		live := poolInstances(t, cluster, pool)
		if len(live) == 0 {
			return fmt.Errorf("no live instance of pool %s to check", pool)
		}
		for _, i := range live {
			tags := map[string]string{}
			for _, tag := range i.Tags {
				tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
			}
			if _, ok := tags["eks:eks-cluster-name"]; ok {
				return fmt.Errorf("instance %s carries eks:eks-cluster-name: Karpenter's garbage collector would terminate it", aws.ToString(i.InstanceId))
			}
			if tags["karpenter.sh/nodepool"] != pool || tags["karpenter.k8s.aws/ec2nodeclass"] == "" {
				return fmt.Errorf("instance %s tags %v: want karpenter.sh/nodepool and karpenter.k8s.aws/ec2nodeclass as Karpenter's own nodes", aws.ToString(i.InstanceId), tags)
			}
		}
		return nil
	}
}

func expectInstances(t *testing.T, cluster, pool string, n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := len(poolInstances(t, cluster, pool)); got != n {
			return fmt.Errorf("%d live instances tagged for %s, want %d", got, pool, n)
		}
		return nil
	}
}

// instancesRunImage checks that the pool's live instances run the image its class resolved.
func instancesRunImage(t *testing.T, cluster, pool, image string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, i := range poolInstances(t, cluster, pool) {
			if got := aws.ToString(i.ImageId); got != image {
				return fmt.Errorf("instance %s runs %s, want the resolved image %s", aws.ToString(i.InstanceId), got, image)
			}
		}
		return nil
	}
}

// nodesInPlannedSubnets checks each node sits in the subnet the plan chose for its zone, and
// that the nodes are spread over distinct zones when there are at most as many as zones.
func nodesInPlannedSubnets(n int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
		if a["nodes.#"] != fmt.Sprint(n) {
			return fmt.Errorf("nodes.# = %s, want %d", a["nodes.#"], n)
		}
		planned := zonesOf(a)
		if len(planned) == 0 {
			return fmt.Errorf("the pool plans no zones")
		}
		zones := map[string]bool{}
		for i := 0; i < n; i++ {
			p := fmt.Sprintf("nodes.%d.", i)
			if a[p+"subnet_id"] != planned[a[p+"zone"]] {
				return fmt.Errorf("node %s in %s, planned subnet %s", a[p+"instance_id"], a[p+"subnet_id"], planned[a[p+"zone"]])
			}
			if a[p+"in_planned_subnet"] != "true" || a[p+"state"] != "running" {
				return fmt.Errorf("node %s: in_planned_subnet=%s state=%s", a[p+"instance_id"], a[p+"in_planned_subnet"], a[p+"state"])
			}
			zones[a[p+"zone"]] = true
		}
		if n <= len(planned) && len(zones) != n {
			return fmt.Errorf("%d nodes over %d zones: not spread", n, len(zones))
		}
		return nil
	}
}

// staticDefaultShape checks a static pool without `details`: its templates are listed with what
// identifies them (id, version, image, max pods, type count, fingerprint) but not their content,
// exactly the pool's templates in EC2, and the summary counts them; the per-type attributes are
// null. The pool allows m5.large and m5.xlarge, with a limit of 5 nodes.
func staticDefaultShape(t *testing.T, cluster, pool string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := poolAttrs(s, nodePoolRes)
		if err != nil {
			return err
		}
		for _, k := range []string{"instance_types.#", "max_pods.%", "karpenter_assumed_pods.%", "launch_plan.#"} {
			if v, ok := a[k]; ok {
				return fmt.Errorf("%s = %s without details, want null", k, v)
			}
		}
		for k, want := range map[string]string{"summary.instance_types": "2", "summary.nodes_by_limits": "5", "summary.karpenter_disagrees": "0"} {
			if a[k] != want {
				return fmt.Errorf("%s = %q, want %s", k, a[k], want)
			}
		}
		n, _ := strconv.Atoi(a["launch_templates.#"])
		if n == 0 || a["summary.launch_templates"] != strconv.Itoa(n) {
			return fmt.Errorf("%d launch templates listed, summary.launch_templates = %s", n, a["summary.launch_templates"])
		}
		inEC2, err := poolTemplateDefaults(t, cluster, pool)
		if err != nil {
			return err
		}
		types := 0
		for i := range n {
			pre := fmt.Sprintf("launch_templates.%d.", i)
			for _, k := range []string{"id", "default_version", "image_id", "max_pods", "instance_type_count", "fingerprint"} {
				if a[pre+k] == "" {
					return fmt.Errorf("%s%s is empty", pre, k)
				}
			}
			for _, k := range []string{"user_data", "instance_types.#", "network_interfaces.#"} {
				if v, ok := a[pre+k]; ok {
					return fmt.Errorf("%s%s = %q without details, want null", pre, k, v)
				}
			}
			data, ok := inEC2[a[pre+"name"]]
			if !ok {
				return fmt.Errorf("%s (%s) is not in EC2", a[pre+"name"], a[pre+"id"])
			}
			if aws.ToString(data.ImageId) != a[pre+"image_id"] {
				return fmt.Errorf("%s runs image %s in EC2, %s in state", a[pre+"name"], aws.ToString(data.ImageId), a[pre+"image_id"])
			}
			c, _ := strconv.Atoi(a[pre+"instance_type_count"])
			types += c
		}
		if len(inEC2) != n || a["summary.instance_types"] != strconv.Itoa(types) {
			return fmt.Errorf("%d templates in EC2, %d listed, holding %d types; summary says %s types", len(inEC2), n, types, a["summary.instance_types"])
		}
		return nil
	}
}

func TestAccNodePool_static(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("static")
	discoveryNetwork(t, cluster)
	var victim string

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: staticConfig(cluster, pool, 3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// The provider launches these nodes: no NodePool for Karpenter, known at plan.
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("manifest"), knownvalue.Null()),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					nodesInPlannedSubnets(3), expectInstances(t, cluster, pool, 3), templatesJoin(t, cluster, pool),
					instancesRunImage(t, cluster, pool, testAMI()),
					resource.TestCheckResourceAttr(nodePoolRes, "launch_templates.0.image_id", testAMI()),
					staticDefaultShape(t, cluster, pool),
					resource.TestCheckNoResourceAttr(nodePoolRes, "manifest"), checkManifestValid(nodeClassRes),
					outOfKarpenterGC(t, cluster, pool),
					func(s *terraform.State) error {
						victim = s.RootModule().Resources[nodePoolRes].Primary.Attributes["nodes.1.instance_id"]
						return nil
					},
				),
			},
			{
				// An instance dies outside Terraform: the plan shows the pool to update, apply refills.
				PreConfig: func() {
					if _, err := acctest.EC2(t).TerminateInstances(context.Background(), &ec2.TerminateInstancesInput{InstanceIds: []string{victim}}); err != nil {
						t.Fatalf("terminating %s: %v", victim, err)
					}
				},
				Config: staticConfig(cluster, pool, 3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(3), expectInstances(t, cluster, pool, 3)),
			},
			{Config: staticConfig(cluster, pool, 1), Check: resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(1), expectInstances(t, cluster, pool, 1))},
			{Config: staticConfig(cluster, pool, 2), Check: resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(2), expectInstances(t, cluster, pool, 2))},
			// 3 -> 0 -> 3: the refill must not reuse a client token of the first fill.
			{Config: staticConfig(cluster, pool, 0), Check: resource.ComposeAggregateTestCheckFunc(resource.TestCheckResourceAttr(nodePoolRes, "nodes.#", "0"), expectInstances(t, cluster, pool, 0))},
			{Config: staticConfig(cluster, pool, 3), Check: resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(3), expectInstances(t, cluster, pool, 3), noTokenMismatch)},
			{Config: staticConfig(cluster, pool, 3), PlanOnly: true}, // the plan after apply is empty
		},
	})
}

// noTokenMismatch fails when any CreateFleet through the proxy reused a client token with
// other parameters (on AWS: IdempotentParameterMismatch, or worse, an old answer).
func noTokenMismatch(*terraform.State) error {
	if st := awsLikeEC2().Stats().Total(); st.TokenMismatches > 0 || st.TokenReplays > 0 {
		return fmt.Errorf("client tokens reused: %d mismatches, %d replays of an earlier answer", st.TokenMismatches, st.TokenReplays)
	}
	return nil
}

// Apply, destroy, apply: the re-created pool launches new nodes (no token of the first pool's
// fleets comes back).
func TestAccNodePool_staticRecreate(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("recreate")
	discoveryNetwork(t, cluster)
	var first []string
	ids := func(s *terraform.State) []string {
		a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
		return []string{a["nodes.0.instance_id"], a["nodes.1.instance_id"]}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{Config: staticConfig(cluster, pool, 2), Check: func(s *terraform.State) error { first = ids(s); return nil }},
			{Config: staticConfig(cluster, pool, 2), Destroy: true},
			{
				Config: staticConfig(cluster, pool, 2),
				Check: resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(2), expectInstances(t, cluster, pool, 2), noTokenMismatch,
					func(s *terraform.State) error {
						if now := ids(s); slices.ContainsFunc(now, func(id string) bool { return slices.Contains(first, id) }) {
							return fmt.Errorf("re-created pool reports the destroyed nodes %v", now)
						}
						return nil
					}),
			},
		},
	})
}

// An instance with the pool's name and cluster tags but another (here: no) owner id is not
// this pool's: it is neither counted, adopted nor terminated, also not by destroy.
func TestAccNodePool_staticLeavesAnotherOwnersInstance(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("foreign")
	n := discoveryNetwork(t, cluster)
	var foreign string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: func(*terraform.State) error {
			live := poolInstances(t, cluster, pool)
			if len(live) != 1 || aws.ToString(live[0].InstanceId) != foreign {
				return fmt.Errorf("after destroy %d instances tagged for the pool are live, want only the foreign %s", len(live), foreign)
			}
			_, err := acctest.EC2(t).TerminateInstances(context.Background(), &ec2.TerminateInstancesInput{InstanceIds: []string{foreign}})
			return err
		},
		Steps: []resource.TestStep{{
			PreConfig: func() {
				foreign = runTagged(t, n.Subnets[0].ID, map[string]string{"karpenter.sh/nodepool": pool, "karpenter.k8s.aws/cluster": cluster,
					"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter"})
			},
			Config: staticConfig(cluster, pool, 3),
			Check: resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(3), expectInstances(t, cluster, pool, 4),
				func(s *terraform.State) error {
					for i := range 3 {
						if s.RootModule().Resources[nodePoolRes].Primary.Attributes[fmt.Sprintf("nodes.%d.instance_id", i)] == foreign {
							return fmt.Errorf("the foreign instance %s was adopted", foreign)
						}
					}
					return nil
				}),
		}},
	})
}

// ownerOfPool reads the owner id tag of the pool's launch templates straight from EC2 (one owner
// expected).
func ownerOfPool(t *testing.T, cluster, pool string) string {
	t.Helper()
	out, err := acctest.EC2(t).DescribeLaunchTemplates(context.Background(), &ec2.DescribeLaunchTemplatesInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag:karpenter.sh/nodepool"), Values: []string{pool}},
		{Name: aws.String("tag:karpenter.k8s.aws/cluster"), Values: []string{cluster}},
	}})
	if err != nil {
		t.Fatalf("describing launch templates: %v", err)
	}
	owners := map[string]bool{}
	for _, lt := range out.LaunchTemplates {
		for _, tag := range lt.Tags {
			if aws.ToString(tag.Key) == "karpenter.nodeplane.io/owner" {
				owners[aws.ToString(tag.Value)] = true
			}
		}
	}
	if len(owners) != 1 {
		t.Fatalf("pool %s has template owners %v, want one", pool, owners)
	}
	for o := range owners {
		return o
	}
	return ""
}

func TestAccNodePool_staticCrashBetweenLaunchAndState(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("crash")
	discoveryNetwork(t, cluster)

	var mu sync.Mutex
	crashes := 0
	setCrashHook(pool, func() error {
		mu.Lock()
		defer mu.Unlock()
		if crashes == 0 {
			crashes++
			return errors.New("simulated crash after CreateFleet, before state was saved")
		}
		return nil
	})
	t.Cleanup(func() { setCrashHook(pool, nil) })

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config:      staticConfig(cluster, pool, 3),
				ExpectError: regexp.MustCompile(`simulated crash`),
			},
			{
				// The crashed apply's objects carry an owner id no state holds: the next plan cannot
				// tell them from another state's pool, so it stops and names the import.
				Config:      staticConfig(cluster, pool, 3),
				ExpectError: regexp.MustCompile(`(?s)Node pool name already taken.*terraform import`),
			},
			{
				// Importing them adopts the owner id; no launch, no replacement.
				Config:       staticConfig(cluster, pool, 3),
				ResourceName: nodePoolRes,
				ImportState:  true,
				ImportStateIdFunc: func(*terraform.State) (string, error) {
					return pool + "/" + ownerOfPool(t, cluster, pool), nil
				},
				ImportStatePersist: true,
				ImportStateCheck: func(s []*terraform.InstanceState) error {
					a := importedPool(s)
					if a == nil || a["replicas"] == "" || a["replicas"] == "0" {
						return fmt.Errorf("import did not record the launched nodes as replicas: %v", a)
					}
					return nil
				},
			},
			{
				// The apply tops the adopted nodes up: exactly 3.
				Config: staticConfig(cluster, pool, 3),
				Check:  resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(3), expectInstances(t, cluster, pool, 3)),
			},
		},
	})
	if crashes != 1 {
		t.Fatalf("the crash hook fired %d times, want 1", crashes)
	}
}

var (
	crashMu    sync.Mutex
	crashHooks = map[string]func() error{}
)

// setCrashHook installs a per-pool hook behind crashHook, which every test provider gets as its
// after-launch hook, so parallel tests do not see each other's crashes.
func setCrashHook(pool string, fn func() error) {
	crashMu.Lock()
	defer crashMu.Unlock()
	if fn == nil {
		delete(crashHooks, pool)
	} else {
		crashHooks[pool] = fn
	}
}

// crashHook dispatches to the hook set for the pool, if any.
func crashHook(pool string) error {
	crashMu.Lock()
	h := crashHooks[pool]
	crashMu.Unlock()
	if h != nil {
		return h()
	}
	return nil
}

// A node of the pool in a subnet the class does not select is reported by the plan and replaced
// by the apply; the plan after that is empty.
func TestAccNodePool_staticReplacesNodeOutsideTheClass(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("outside")
	discoveryNetwork(t, cluster)
	elsewhere := acctest.NewNetwork(t, acctest.NetworkSpec{}) // not selected by the class
	var owner, stray string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: staticConfig(cluster, pool, 2),
				Check: resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(2), func(s *terraform.State) error {
					owner = s.RootModule().Resources[nodePoolRes].Primary.Attributes["owner_id"]
					if len(owner) != 16 {
						return fmt.Errorf("owner_id = %q", owner)
					}
					return nil
				}),
			},
			{
				// A node of this owner appears in a subnet outside the class (say, one a colleague
				// launched by hand with the pool's tags): replaced, not kept forever.
				PreConfig: func() {
					stray = runTagged(t, elsewhere.Subnets[0].ID, map[string]string{"karpenter.sh/nodepool": pool, "karpenter.k8s.aws/cluster": cluster,
						"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter", "karpenter.nodeplane.io/owner": owner})
				},
				Config: staticConfig(cluster, pool, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(nodesInPlannedSubnets(2), expectInstances(t, cluster, pool, 2),
					func(*terraform.State) error {
						for _, i := range poolInstances(t, cluster, pool) {
							if aws.ToString(i.InstanceId) == stray {
								return fmt.Errorf("the node outside the class, %s, is still live", stray)
							}
						}
						return nil
					}),
			},
			{Config: staticConfig(cluster, pool, 2), PlanOnly: true}, // settled: the next plan is empty
		},
	})
}

// nodesStamped checks that every node names one of the pool's launch templates and carries
// that template's current fingerprint, and that none of the nodes is in old.
func nodesStamped(n int, old *[]string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
		if a["nodes.#"] != fmt.Sprint(n) {
			return fmt.Errorf("nodes.# = %s, want %d", a["nodes.#"], n)
		}
		fingerprint := map[string]string{}
		for i := 0; a[fmt.Sprintf("launch_templates.%d.name", i)] != ""; i++ {
			fingerprint[a[fmt.Sprintf("launch_templates.%d.name", i)]] = a[fmt.Sprintf("launch_templates.%d.fingerprint", i)]
		}
		for i := range n {
			p := fmt.Sprintf("nodes.%d.", i)
			id, lt, fp := a[p+"instance_id"], a[p+"launch_template"], a[p+"template_fingerprint"]
			if want, ok := fingerprint[lt]; !ok || fp != want || fp == "" {
				return fmt.Errorf("node %s: launch_template %q, template_fingerprint %q; the pool's templates: %v", id, lt, fp, fingerprint)
			}
			if old != nil && slices.Contains(*old, id) {
				return fmt.Errorf("node %s survived the template change", id)
			}
		}
		return nil
	}
}

// A template change (here the class's user data) drifts the static nodes: the plan warns, and
// apply launches replacements with the new template and terminates the old nodes.
func TestAccNodePool_staticDriftReplaced(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("drift")
	discoveryNetwork(t, cluster)
	var before []string
	var templateID string
	record := func(s *terraform.State) error {
		a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
		before = []string{a["nodes.0.instance_id"], a["nodes.1.instance_id"]}
		templateID = a["launch_templates.0.id"]
		return nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: func(*terraform.State) error {
			if n := len(poolInstances(t, cluster, pool)); n != 0 {
				return fmt.Errorf("%d instances left after destroy", n)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: withDetails(staticConfigClass(cluster, pool, 2, `  user_data = "echo v1"`)),
				Check: resource.ComposeAggregateTestCheckFunc(nodesStamped(2, nil), expectInstances(t, cluster, pool, 2), record,
					checkTemplatesRoundTrip(t), resource.TestCheckResourceAttr(nodePoolRes, "launch_templates.0.default_version", "1")),
			},
			{
				Config: withDetails(staticConfigClass(cluster, pool, 2, `  user_data = "echo v2"`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(nodePoolRes, tfjsonpath.New("nodes")),
				}},
				// After apply, the framework's follow-up plan must be empty: the new nodes match.
				// The content change wrote a new default version of the same template (same name and id).
				Check: resource.ComposeAggregateTestCheckFunc(nodesStamped(2, &before), expectInstances(t, cluster, pool, 2),
					checkTemplatesRoundTrip(t), resource.TestCheckResourceAttr(nodePoolRes, "launch_templates.0.default_version", "2"),
					resource.TestMatchResourceAttr(nodePoolRes, "launch_templates.0.user_data", regexp.MustCompile(`echo v2`)),
					func(s *terraform.State) error {
						if id := s.RootModule().Resources[nodePoolRes].Primary.Attributes["launch_templates.0.id"]; id == "" || id != templateID {
							return fmt.Errorf("template id %q after the content change, %q before: a change writes a version, not a new template", id, templateID)
						}
						return nil
					},
					func(*terraform.State) error {
						for _, i := range poolInstances(t, cluster, pool) {
							if slices.Contains(before, aws.ToString(i.InstanceId)) {
								return fmt.Errorf("drifted instance %s still live", aws.ToString(i.InstanceId))
							}
						}
						return nil
					}),
			},
		},
	})
}

// A crash after the first replacement launched, before state was saved: the re-apply counts
// that replacement as healthy, launches the rest and only then terminates the drifted nodes.
func TestAccNodePool_staticDriftCrash(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("driftcrash")
	discoveryNetwork(t, cluster)

	var mu sync.Mutex
	armed, crashes := false, 0
	setCrashHook(pool, func() error {
		mu.Lock()
		defer mu.Unlock()
		if armed && crashes == 0 {
			crashes++
			return errors.New("simulated crash after launching a replacement")
		}
		return nil
	})
	t.Cleanup(func() { setCrashHook(pool, nil) })

	var before []string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: staticConfigClass(cluster, pool, 2, `  user_data = "echo v1"`),
				Check: resource.ComposeAggregateTestCheckFunc(nodesStamped(2, nil), func(s *terraform.State) error {
					a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
					before = []string{a["nodes.0.instance_id"], a["nodes.1.instance_id"]}
					mu.Lock()
					armed = true
					mu.Unlock()
					return nil
				}),
			},
			{
				Config:      staticConfigClass(cluster, pool, 2, `  user_data = "echo v2"`),
				ExpectError: regexp.MustCompile(`simulated crash`),
			},
			{
				// The drifted nodes survived the crash (no capacity was dropped) and go now.
				PreConfig: func() {
					if n := len(poolInstances(t, cluster, pool)); n != 3 {
						t.Errorf("after the crash: %d live instances, want 3 (2 drifted + 1 replacement)", n)
					}
				},
				Config: staticConfigClass(cluster, pool, 2, `  user_data = "echo v2"`),
				Check:  resource.ComposeAggregateTestCheckFunc(nodesStamped(2, &before), expectInstances(t, cluster, pool, 2)),
			},
		},
	})
	if crashes != 1 {
		t.Fatalf("the crash hook fired %d times, want 1", crashes)
	}
}

// poolTemplateDefaults reads the default version of each of the pool's launch templates from
// EC2, by template name; it fails when the pool has none.
func poolTemplateDefaults(t *testing.T, cluster, pool string) (map[string]*ec2types.ResponseLaunchTemplateData, error) {
	ctx := context.Background()
	c := acctest.EC2(t)
	lts, err := c.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag:karpenter.sh/nodepool"), Values: []string{pool}},
		{Name: aws.String("tag:karpenter.k8s.aws/cluster"), Values: []string{cluster}},
	}})
	if err != nil || len(lts.LaunchTemplates) == 0 {
		return nil, fmt.Errorf("pool templates: %v (%d)", err, len(lts.LaunchTemplates))
	}
	out := map[string]*ec2types.ResponseLaunchTemplateData{}
	for _, lt := range lts.LaunchTemplates {
		v, err := c.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{
			LaunchTemplateId: lt.LaunchTemplateId, Versions: []string{"$Default"}})
		if err != nil || len(v.LaunchTemplateVersions) != 1 {
			return nil, fmt.Errorf("template %s: %v", aws.ToString(lt.LaunchTemplateName), err)
		}
		out[aws.ToString(lt.LaunchTemplateName)] = v.LaunchTemplateVersions[0].LaunchTemplateData
	}
	return out, nil
}

// templatesJoin checks that the user data of each of the pool's launch templates parses as a
// MIME document whose nodeadm NodeConfig names the cluster with the provider's endpoint, CA
// bundle and service CIDR: what a node needs to join.
func templatesJoin(t *testing.T, cluster, pool string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		templates, err := poolTemplateDefaults(t, cluster, pool)
		if err != nil {
			return err
		}
		for name, data := range templates {
			raw, err := base64.StdEncoding.DecodeString(aws.ToString(data.UserData))
			if err != nil {
				return err
			}
			nc, err := nodeConfigOf(string(raw))
			if err != nil {
				return fmt.Errorf("template %s: %w\n%s", name, err, raw)
			}
			want := map[string]string{"name": cluster, "apiServerEndpoint": testClusterEndpoint, "certificateAuthority": testClusterCA, "cidr": testServiceCIDR}
			for k, w := range want {
				if nc[k] != w {
					return fmt.Errorf("template %s: NodeConfig spec.cluster.%s = %q, want %q", name, k, nc[k], w)
				}
			}
		}
		return nil
	}
}

// nodeConfigOf parses an AL2023 user-data MIME document and returns spec.cluster of its nodeadm
// NodeConfig.
func nodeConfigOf(doc string) (map[string]string, error) {
	msg, err := mail.ReadMessage(strings.NewReader(doc))
	if err != nil {
		return nil, err
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := r.NextPart()
		if err != nil {
			return nil, fmt.Errorf("no NodeConfig part: %w", err)
		}
		if ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct != "application/node.eks.aws" {
			continue
		}
		var nc struct {
			Kind string `yaml:"kind"`
			Spec struct {
				Cluster map[string]string `yaml:"cluster"`
			} `yaml:"spec"`
		}
		body, _ := io.ReadAll(p)
		if err := yaml.Unmarshal(body, &nc); err != nil {
			return nil, err
		}
		if nc.Kind == "NodeConfig" && nc.Spec.Cluster != nil {
			return nc.Spec.Cluster, nil
		}
	}
}
