package provider

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// closeOnce closes a channel that may be closed already.
func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

// importedPool finds the imported node pool among the states an import step reports.
func importedPool(s []*terraform.InstanceState) map[string]string {
	for _, is := range s {
		if is.Ephemeral.Type == "karpenter_node_pool" {
			return is.Attributes
		}
	}
	return nil
}

// instanceIDsByTags lists the live instances carrying every tag, sorted, straight from EC2.
func instanceIDsByTags(t *testing.T, tags map[string]string) []string {
	t.Helper()
	var ids []string
	for _, i := range liveInstances(t, tags) {
		ids = append(ids, aws.ToString(i.InstanceId))
	}
	sort.Strings(ids)
	return ids
}

// Why 1 of issue 15: a configuration without cluster_name beside a clustered one, both with a
// static pool of the same name. Each keeps to its own nodes: the clustered pool's instances
// survive the other pool's drift replacement and destroy untouched.
func TestAccOwnership_clusterlessBesideClustered(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("xpool")
	n := discoveryNetwork(t, cluster)
	clusterless := func(userData string) string {
		return fmt.Sprintf(`
provider "karpenter" {
  region = %q
  endpoints = {
    ec2 = %q
    sts = %q
  }
}

resource "karpenter_node_class" "nocluster" {
  name                          = "nocluster"
  role                          = "KarpenterNodeRole"
  instance_profile_for_static_pools = true
  ami_family                    = "Custom" # bootstraps itself: no cluster facts needed without cluster_name
  ami_selector_terms            = [{ id = %q }]
  subnet_selector_terms         = [{ id = %q }]
  security_group_selector_terms = [{ id = %q }]
  user_data                     = %q
}

resource "karpenter_node_pool" "nocluster" {
  name       = %q
  node_class = karpenter_node_class.nocluster.resolved
  replicas   = 2
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }
  timeouts = { create = "5m", update = "5m", delete = "5m" }
}
`, acctest.Region(), acctest.Endpoint(), acctest.Endpoint(), testAMI(), n.Subnets[1].ID, n.SecurityGroups[0].ID, userData, pool)
	}
	clustered := map[string]string{"karpenter.sh/nodepool": pool, "karpenter.k8s.aws/cluster": cluster}
	unchanged := func(want *[]string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if got := instanceIDsByTags(t, clustered); !slices.Equal(got, *want) {
				return fmt.Errorf("the clustered pool's instances changed: %v, want %v", got, *want)
			}
			return nil
		}
	}
	ready, done := make(chan struct{}), make(chan struct{})
	var ownIDs []string
	// Two configurations, two states (as two teams would run them).
	t.Run("clustered", func(t *testing.T) {
		t.Parallel()
		defer closeOnce(ready)
		resource.Test(t, resource.TestCase{
			PreCheck:                 func() { acctest.PreCheck(t) },
			ProtoV6ProviderFactories: factories(nil),
			CheckDestroy:             checkClusterClean(t, cluster),
			Steps: []resource.TestStep{
				{
					Config: staticConfig(cluster, pool, 2),
					Check: func(*terraform.State) error {
						ownIDs = instanceIDsByTags(t, clustered)
						closeOnce(ready)
						if len(ownIDs) != 2 {
							return fmt.Errorf("clustered pool has %v", ownIDs)
						}
						return nil
					},
				},
				{
					// After the cluster-less configuration applied, replaced its nodes and was
					// destroyed: the same nodes here, and nothing to do.
					PreConfig: func() { <-done },
					Config:    staticConfig(cluster, pool, 2),
					PlanOnly:  true,
					Check:     unchanged(&ownIDs),
				},
			},
		})
	})
	t.Run("clusterless", func(t *testing.T) {
		t.Parallel()
		defer close(done)
		select {
		case <-ready:
		case <-t.Context().Done():
			return
		}
		resource.Test(t, resource.TestCase{
			PreCheck:                 func() { acctest.PreCheck(t) },
			ProtoV6ProviderFactories: factories(nil),
			CheckDestroy: func(*terraform.State) error {
				if all := instanceIDsByTags(t, map[string]string{"karpenter.sh/nodepool": pool}); !slices.Equal(all, ownIDs) {
					return fmt.Errorf("after the cluster-less destroy %v are live, want only the clustered %v", all, ownIDs)
				}
				return nil
			},
			Steps: []resource.TestStep{
				{
					// Its own two nodes, none of the clustered pool's.
					Config: clusterless("#!/bin/bash\necho v1\n"),
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("karpenter_node_pool.nocluster", "nodes.#", "2"), unchanged(&ownIDs),
						func(*terraform.State) error {
							if all := instanceIDsByTags(t, map[string]string{"karpenter.sh/nodepool": pool}); len(all) != 4 {
								return fmt.Errorf("%d instances of pool %s, want 4", len(all), pool)
							}
							return nil
						}),
				},
				{
					// Its nodes drift and are replaced; the clustered pool's are not "drifted".
					Config: clusterless("#!/bin/bash\necho v2\n"),
					Check:  unchanged(&ownIDs),
				},
			},
		})
	})
}

// Why 2 of issue 15: a second state plans a pool name the first holds in the same cluster. The
// plan fails and names the other owner's objects; the first pool's nodes and templates are
// untouched, and the second state's destroy deletes nothing of them.
func TestAccOwnership_secondStateSamePoolName(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("shared")
	discoveryNetwork(t, cluster)
	tags := map[string]string{"karpenter.sh/nodepool": pool, "karpenter.k8s.aws/cluster": cluster}
	aReady, bDone := make(chan struct{}), make(chan struct{})
	var aIDs []string

	t.Run("first", func(t *testing.T) {
		t.Parallel()
		defer closeOnce(aReady)
		resource.Test(t, resource.TestCase{
			PreCheck:                 func() { acctest.PreCheck(t) },
			ProtoV6ProviderFactories: factories(nil),
			CheckDestroy:             checkClusterClean(t, cluster),
			Steps: []resource.TestStep{
				{
					Config: staticConfig(cluster, pool, 2),
					Check: func(*terraform.State) error {
						aIDs = instanceIDsByTags(t, tags)
						closeOnce(aReady)
						return nil
					},
				},
				{
					// After the second state tried and gave up: the same nodes, an empty plan.
					PreConfig: func() { <-bDone },
					Config:    staticConfig(cluster, pool, 2),
					PlanOnly:  true,
					Check: func(*terraform.State) error {
						if got := instanceIDsByTags(t, tags); !slices.Equal(got, aIDs) {
							return fmt.Errorf("first state's instances changed: %v, want %v", got, aIDs)
						}
						return nil
					},
				},
			},
		})
	})
	t.Run("second", func(t *testing.T) {
		t.Parallel()
		defer close(bDone)
		select {
		case <-aReady:
		case <-t.Context().Done():
			return
		}
		// A node class of its own: the first state's class name would fail the plan earlier, on
		// the class's instance profile (TestAccNodeClass_iamPlanErrors).
		second := strings.Replace(staticConfig(cluster, pool, 2), `name               = "static"`, `name               = "static-b"`, 1)
		resource.Test(t, resource.TestCase{
			PreCheck:                 func() { acctest.PreCheck(t) },
			ProtoV6ProviderFactories: factories(nil),
			Steps: []resource.TestStep{{
				Config:      second,
				ExpectError: regexp.MustCompile(`(?s)Node pool name already taken.*launch templates`),
			}},
		})
		if got := instanceIDsByTags(t, tags); !slices.Equal(got, aIDs) {
			t.Errorf("the second state changed the first state's instances: %v, want %v", got, aIDs)
		}
	})
}

// Why 4 of issue 15: import adopts a static pool's live nodes (no replacement, the same
// instances after the next apply); importing a pool nobody holds fails. The pool is created by
// one state and imported by another, as after a lost state file.
func TestAccOwnership_importStaticPool(t *testing.T) { testImportPool(t, true) }

// The same for a dynamic pool, which holds no EC2 objects: a plain name with nothing in EC2 is
// imported as a dynamic pool with a new owner id, and the next apply settles it.
func TestAccOwnership_importDynamicPool(t *testing.T) { testImportPool(t, false) }

func testImportPool(t *testing.T, static bool) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("imported")
	discoveryNetwork(t, cluster)
	config, class := staticConfig(cluster, pool, 2), "static"
	if !static {
		pool, class = "general", "default"
		config = poolConfig(cluster, "", generalPool)
	}
	tags := map[string]string{"karpenter.sh/nodepool": pool, "karpenter.k8s.aws/cluster": cluster}
	ready, done := make(chan struct{}), make(chan struct{})
	var before []string
	var lostOwner string
	t.Run("lost", func(t *testing.T) {
		t.Parallel()
		defer closeOnce(ready) // also when the first apply failed: the importer must not wait forever
		resource.Test(t, resource.TestCase{
			PreCheck:                 func() { acctest.PreCheck(t) },
			ProtoV6ProviderFactories: factories(nil),
			Steps: []resource.TestStep{
				{
					Config: config,
					Check: func(s *terraform.State) error {
						before = instanceIDsByTags(t, tags)
						lostOwner = s.RootModule().Resources[nodePoolRes].Primary.Attributes["owner_id"]
						closeOnce(ready)
						return nil
					},
				},
				{
					// The importing state took over and destroyed the pool and the class (whose
					// instance profile for static pools it had adopted): this state's plan would
					// create a static pool's nodes and the class's profile again, and its destroy
					// finds nothing of its owners left. (A dynamic pool and its class, which has no
					// profile of the provider's, had nothing in AWS to lose: the plan is empty.)
					PreConfig:          func() { <-done },
					Config:             config,
					PlanOnly:           true,
					ExpectNonEmptyPlan: static,
				},
			},
		})
	})
	t.Run("importer", func(t *testing.T) {
		t.Parallel()
		defer close(done)
		select {
		case <-ready:
		case <-t.Context().Done():
			return
		}
		resource.Test(t, resource.TestCase{
			PreCheck:                 func() { acctest.PreCheck(t) },
			ProtoV6ProviderFactories: factories(nil),
			CheckDestroy:             checkClusterClean(t, cluster),
			Steps: []resource.TestStep{
				{
					Config:        config,
					ResourceName:  nodePoolRes,
					ImportState:   true,
					ImportStateId: acctest.RandomName("nosuchpool") + "/0123456789abcdef",
					ExpectError:   regexp.MustCompile(`Node pool not found`),
				},
				{
					// The class too: the static pool's class adopts the instance profile of the lost
					// state's class (a new class would find the profile name taken); the dynamic
					// pool's has no profile of the provider's, so there is no owner id to adopt.
					Config:             config,
					ResourceName:       nodeClassRes,
					ImportState:        true,
					ImportStateId:      class,
					ImportStatePersist: true,
					ImportStateCheck: func(s []*terraform.InstanceState) error {
						want := 0
						if static {
							want = 16
						}
						if len(s) != 1 || len(s[0].Attributes["owner_id"]) != want {
							return fmt.Errorf("imported class: %v", s)
						}
						return nil
					},
				},
				{
					Config:             config,
					ResourceName:       nodePoolRes,
					ImportState:        true,
					ImportStateId:      pool,
					ImportStatePersist: true,
					ImportStateCheck: func(s []*terraform.InstanceState) error {
						a := importedPool(s)
						switch {
						case a == nil || len(a["owner_id"]) != 16:
							return fmt.Errorf("imported pool: %v", a)
						case static && (a["replicas"] != "2" || a["nodes.#"] != "2" || a["launch_templates.#"] == "" || a["launch_templates.#"] == "0"):
							return fmt.Errorf("static pool imported with replicas=%s nodes=%s templates=%s", a["replicas"], a["nodes.#"], a["launch_templates.#"])
						case static && a["owner_id"] != lostOwner:
							return fmt.Errorf("static pool imported with owner %s, want the lost state's %s", a["owner_id"], lostOwner)
						case !static && (a["replicas"] != "" || (a["launch_templates.#"] != "" && a["launch_templates.#"] != "0") || a["owner_id"] == lostOwner):
							// Nothing in EC2 names the lost owner: a new one, and no templates.
							return fmt.Errorf("dynamic pool imported with replicas=%q templates=%s owner %s (lost state's %s)",
								a["replicas"], a["launch_templates.#"], a["owner_id"], lostOwner)
						}
						return nil
					},
				},
				{
					// The plan after import records the configuration (an update), never a
					// replacement, and the apply keeps the very same nodes.
					Config: config,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
					}},
					Check: func(*terraform.State) error {
						if got := instanceIDsByTags(t, tags); !slices.Equal(got, before) {
							return fmt.Errorf("instances after import and apply: %v, want %v", got, before)
						}
						return nil
					},
				},
				{Config: config, PlanOnly: true},
			},
		})
	})
}

var (
	claimMu    sync.Mutex
	claimHooks = map[string]func(){}
)

// claimHook dispatches the providers' before-claim hook to the test that set one for the pool.
func claimHook(pool string) {
	claimMu.Lock()
	h := claimHooks[pool]
	claimMu.Unlock()
	if h != nil {
		h()
	}
}

// errStopStep ends a resource.Test run by a recordingT's Fatal.
var errStopStep = errors.New("stop")

// recordingT is a testing.T for resource.Test whose failures are recorded instead of failing
// the test: the concurrent-apply test knows one of two applies must fail, not which.
type recordingT struct {
	*testing.T
	mu     sync.Mutex
	failed []string
}

func (r *recordingT) record(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, msg)
}
func (r *recordingT) Error(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *recordingT) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *recordingT) Fail()                             { r.record("failed") }
func (r *recordingT) FailNow()                          { r.record("failed"); panic(errStopStep) }
func (r *recordingT) Fatal(args ...any)                 { r.record(fmt.Sprint(args...)); panic(errStopStep) }
func (r *recordingT) Fatalf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
	panic(errStopStep)
}
func (r *recordingT) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.failed) > 0
}

// run runs one resource.Test and returns what it would have failed with.
func (r *recordingT) run(tc resource.TestCase) (failures []string) {
	defer func() {
		if p := recover(); p != nil && p != errStopStep { //nolint:errorlint // the sentinel itself
			panic(p)
		}
		failures = r.failed
	}()
	resource.Test(r, tc)
	return nil
}

// Why 2 of issue 15, applied concurrently: two states create the same pool name at once, both
// past the plan and the apply-time check before either writes (a barrier holds them). The
// template name is the claim EC2 keeps unique: exactly one apply wins; the other fails naming
// the owner and leaves nothing of its own behind. Nothing of the winner is touched.
func TestAccOwnership_concurrentApplies(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("race")
	discoveryNetwork(t, cluster)
	tags := map[string]string{"karpenter.sh/nodepool": pool, "karpenter.k8s.aws/cluster": cluster}

	arrived := make(chan struct{}, 2)
	release := make(chan struct{})
	claimMu.Lock()
	claimHooks[pool] = func() {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-time.After(2 * time.Minute):
		}
	}
	claimMu.Unlock()
	t.Cleanup(func() { claimMu.Lock(); delete(claimHooks, pool); claimMu.Unlock() })
	go func() { // release both applies once both are at the barrier
		<-arrived
		<-arrived
		close(release)
	}()

	var wg sync.WaitGroup
	results := make([][]string, 2)
	live := make([][]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt := &recordingT{T: t}
			results[i] = rt.run(resource.TestCase{
				ProtoV6ProviderFactories: factories(nil),
				Steps: []resource.TestStep{{
					Config: staticConfig(cluster, pool, 2),
					Check: func(*terraform.State) error {
						live[i] = instanceIDsByTags(t, tags)
						return nil
					},
				}},
			})
		}()
	}
	wg.Wait()
	var winners, losers []int
	for i, r := range results {
		if len(r) == 0 {
			winners = append(winners, i)
		} else {
			losers = append(losers, i)
		}
	}
	if len(winners) != 1 || len(losers) != 1 {
		t.Fatalf("want exactly one apply to win; failures: %q", results)
	}
	lost := strings.Join(results[losers[0]], "\n")
	if !regexp.MustCompile(`(?s)belongs\s+to\s+owner|Node\s+pool\s+name\s+already\s+taken`).MatchString(lost) {
		t.Errorf("the losing apply failed for another reason:\n%s", lost)
	}
	if got := live[winners[0]]; len(got) != 2 {
		t.Errorf("the winning apply left %v, want 2 instances", got)
	}
	// Each run destroyed what it owned: nothing of the pool is left, and the loser's rollback
	// did not take the winner's nodes down before the winner's own destroy (checked above).
	if ids := instanceIDsByTags(t, tags); len(ids) != 0 {
		t.Errorf("instances left: %v", ids)
	}
	if err := expectNoPoolTemplates(t, cluster, pool); err != nil {
		t.Error(err)
	}
}
