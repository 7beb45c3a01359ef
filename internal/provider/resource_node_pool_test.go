package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

const nodePoolRes = "karpenter_node_pool.test"

// poolConfig is a discovery-tag node class (plus extra class settings) and a pool on it.
func poolConfig(cluster, classBody, poolBody string) string {
	return providerConfig(cluster) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
%s
}

resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_node_class.test.resolved
%s
}
`, classBody, poolBody)
}

// staticPoolConfig is poolConfig with what a static pool's node class needs: an AMI id (and its
// family) instead of the alias, and the provider's instance profile for the role.
func staticPoolConfig(cluster, classBody, poolBody string) string {
	return strings.Replace(poolConfig(cluster, "  ami_family = \"AL2023\"\n  instance_profile_for_static_pools = true\n"+classBody, poolBody),
		`[{ alias = "al2023@latest" }]`, fmt.Sprintf(`[{ id = %q }]`, testAMI()), 1)
}

// m5Static is a static pool body of m5.large nodes; replicas = 0 writes its launch templates and
// launches nothing.
func m5Static(replicas int) string {
	return fmt.Sprintf(`
  replicas = %d
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }`, replicas)
}

// withDetails sets `details = true` on the config's karpenter_node_pool.test: the per-type
// attributes and the templates' content are filled.
func withDetails(cfg string) string {
	const line = "  node_class = karpenter_node_class.test.resolved\n"
	if !strings.Contains(cfg, line) {
		panic("withDetails: no karpenter_node_pool.test node_class line in the config")
	}
	return strings.Replace(cfg, line, line+"  details    = true\n", 1)
}

// poolAttrs is the flatmap state of a resource.
func poolAttrs(s *terraform.State, res string) (map[string]string, error) {
	rs, ok := s.RootModule().Resources[res]
	if !ok {
		return nil, fmt.Errorf("%s not in state", res)
	}
	return rs.Primary.Attributes, nil
}

// noTemplatesCreated checks that a dynamic pool plans launch template groups (summary) without
// any of them existing in EC2: without `details` the pool lists none; with it, each listed group
// has its content but no id or default version. EC2 must hold no template tagged for the
// cluster.
func noTemplatesCreated(t *testing.T, res, cluster string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := poolAttrs(s, res)
		if err != nil {
			return err
		}
		planned, _ := strconv.Atoi(a["summary.launch_templates"])
		if planned == 0 {
			return fmt.Errorf("%s plans no launch template groups (summary.launch_templates = %q)", res, a["summary.launch_templates"])
		}
		n, listed := a["launch_templates.#"]
		switch {
		case a["details"] != "true" && listed:
			return fmt.Errorf("%s lists %s launch templates without details; want null", res, n)
		case a["details"] == "true" && n != strconv.Itoa(planned):
			return fmt.Errorf("%s lists %q launch templates with details, summary says %d", res, n, planned)
		}
		for i := range planned {
			if !listed {
				break
			}
			pre := fmt.Sprintf("launch_templates.%d.", i)
			if a[pre+"fingerprint"] == "" || a[pre+"user_data"] == "" {
				return fmt.Errorf("%s: %s has no fingerprint or user data", res, pre)
			}
			for _, k := range []string{"id", "default_version"} {
				if v, ok := a[pre+k]; ok {
					return fmt.Errorf("%s: %s%s = %q, want null for a dynamic pool", res, pre, k, v)
				}
			}
		}
		if got := templatesTagged(t, map[string]string{"karpenter.k8s.aws/cluster": cluster}); len(got) > 0 {
			return fmt.Errorf("%d launch templates of cluster %s exist in EC2; a dynamic pool creates none", len(got), cluster)
		}
		return nil
	}
}

// zonesOf reads `zones` from flatmap state: zone -> subnet id.
func zonesOf(a map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		if zone, ok := strings.CutSuffix(strings.TrimPrefix(k, "zones."), ".subnet_id"); ok && strings.HasPrefix(k, "zones.") {
			out[zone] = v
		}
	}
	return out
}

// checkZones checks that `zones` holds exactly the given zone -> subnet entries, and that
// summary.nodes_by_ips is the sum of the zones' nodes_by_ips.
func checkZones(res string, want map[string]string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := poolAttrs(s, res)
		if err != nil {
			return err
		}
		if got := zonesOf(a); a["zones.%"] != strconv.Itoa(len(want)) || !maps.Equal(got, want) {
			return fmt.Errorf("%s zones = %v (zones.%% = %s), want %v", res, got, a["zones.%"], want)
		}
		sum := 0
		for zone := range want {
			n, err := strconv.Atoi(a["zones."+zone+".nodes_by_ips"])
			if err != nil {
				return fmt.Errorf("%s zones.%s.nodes_by_ips: %v", res, zone, err)
			}
			sum += n
		}
		if a["summary.nodes_by_ips"] != strconv.Itoa(sum) {
			return fmt.Errorf("%s summary.nodes_by_ips = %q, the zones sum to %d", res, a["summary.nodes_by_ips"], sum)
		}
		return nil
	}
}

// checkSummaryMatchesDetails checks, for a pool with `details`, that `summary` condenses the
// per-type attributes: its counts are their lengths, max_pods_min and max_pods_max the extremes
// of max_pods, first_instance_types the head of instance_types, karpenter_disagrees the size of
// karpenter_assumed_pods, and the templates' instance_type_count their instance types, which
// together cover every eligible type once.
func checkSummaryMatchesDetails(res string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := poolAttrs(s, res)
		if err != nil {
			return err
		}
		n, _ := strconv.Atoi(a["instance_types.#"])
		if n == 0 {
			return fmt.Errorf("%s lists no instance types (details = %q)", res, a["details"])
		}
		if a["summary.instance_types"] != strconv.Itoa(n) || a["max_pods.%"] != strconv.Itoa(n) {
			return fmt.Errorf("%s: summary.instance_types = %s, max_pods.%% = %s, %d instance types", res, a["summary.instance_types"], a["max_pods.%"], n)
		}
		names := make([]string, n)
		lo, hi := -1, -1
		for i := range n {
			names[i] = a[fmt.Sprintf("instance_types.%d", i)]
			p, err := strconv.Atoi(a["max_pods."+names[i]])
			if err != nil {
				return fmt.Errorf("%s max_pods.%s: %v", res, names[i], err)
			}
			if lo < 0 || p < lo {
				lo = p
			}
			hi = max(hi, p)
		}
		if a["summary.max_pods_min"] != strconv.Itoa(lo) || a["summary.max_pods_max"] != strconv.Itoa(hi) {
			return fmt.Errorf("%s: summary max pods %s..%s, max_pods spans %d..%d", res, a["summary.max_pods_min"], a["summary.max_pods_max"], lo, hi)
		}
		// first_instance_types: the head of instance_types that the launch plan launches (exotic
		// types leave the launch), each with its price from `prices`.
		launched := map[string]bool{}
		groups, _ := strconv.Atoi(a["launch_plan.#"])
		for g := range groups {
			m, _ := strconv.Atoi(a[fmt.Sprintf("launch_plan.%d.instance_types.#", g)])
			for j := range m {
				launched[a[fmt.Sprintf("launch_plan.%d.instance_types.%d", g, j)]] = true
			}
		}
		var head []string
		for _, name := range names {
			if launched[name] && len(head) < 5 {
				v, _ := strconv.ParseFloat(a["prices."+name], 64)
				head = append(head, name+" "+launchplan.FormatPrice(v)+" ")
			}
		}
		parts := strings.Split(strings.TrimSuffix(a["summary.first_instance_types"], " (USD/h)"), ", ")
		if len(parts) != len(head) {
			return fmt.Errorf("%s: summary.first_instance_types = %q, want the types %q", res, a["summary.first_instance_types"], head)
		}
		for i := range head {
			if !strings.HasPrefix(parts[i], head[i]) {
				return fmt.Errorf("%s: summary.first_instance_types = %q, want %q at %d", res, a["summary.first_instance_types"], head[i], i)
			}
		}
		if more := len(launched) - len(head); more > 0 && !strings.Contains(a["summary.first_instance_types"], fmt.Sprintf(" and %d more", more)) {
			return fmt.Errorf("%s: summary.first_instance_types = %q, want %d more", res, a["summary.first_instance_types"], more)
		}
		if a["summary.karpenter_disagrees"] != a["karpenter_assumed_pods.%"] {
			return fmt.Errorf("%s: summary.karpenter_disagrees = %s, karpenter_assumed_pods has %s", res, a["summary.karpenter_disagrees"], a["karpenter_assumed_pods.%"])
		}
		lts, _ := strconv.Atoi(a["launch_templates.#"])
		if lts == 0 || a["summary.launch_templates"] != strconv.Itoa(lts) {
			return fmt.Errorf("%s: summary.launch_templates = %s, %d listed", res, a["summary.launch_templates"], lts)
		}
		covered := map[string]int{}
		for i := range lts {
			pre := fmt.Sprintf("launch_templates.%d.", i)
			if a[pre+"instance_type_count"] != a[pre+"instance_types.#"] {
				return fmt.Errorf("%s: %sinstance_type_count = %s, %s instance types listed", res, pre, a[pre+"instance_type_count"], a[pre+"instance_types.#"])
			}
			m, _ := strconv.Atoi(a[pre+"instance_types.#"])
			for j := range m {
				covered[a[fmt.Sprintf("%sinstance_types.%d", pre, j)]]++
			}
		}
		for _, name := range names {
			if covered[name] != 1 {
				return fmt.Errorf("%s: instance type %s is in %d launch templates, want 1", res, name, covered[name])
			}
		}
		if len(covered) != n {
			return fmt.Errorf("%s: the launch templates hold %d types, %d are eligible", res, len(covered), n)
		}
		return nil
	}
}

// int64Above is a known-value check for an integer greater than n.
func int64Above(n int64) knownvalue.Check {
	return knownvalue.Int64Func(func(v int64) error {
		if v <= n {
			return fmt.Errorf("%d, want more than %d", v, n)
		}
		return nil
	})
}

// templatesTagged lists the launch templates carrying every tag, straight from EC2: id -> name.
func templatesTagged(t *testing.T, tags map[string]string) map[string]string {
	t.Helper()
	var filters []ec2types.Filter
	for k, v := range tags {
		filters = append(filters, ec2types.Filter{Name: aws.String("tag:" + k), Values: []string{v}})
	}
	out := map[string]string{}
	p := ec2.NewDescribeLaunchTemplatesPaginator(acctest.EC2(t), &ec2.DescribeLaunchTemplatesInput{Filters: filters})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("describing launch templates: %v", err)
		}
		for _, lt := range page.LaunchTemplates {
			out[aws.ToString(lt.LaunchTemplateId)] = aws.ToString(lt.LaunchTemplateName)
		}
	}
	return out
}

const generalPool = `
  template = {
    requirements = [
      { key = "topology.kubernetes.io/zone", operator = "In", values = ["ap-southeast-1a", "ap-southeast-1b"] },
      { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = ["2"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
      { key = "karpenter.k8s.aws/instance-size", operator = "In", values = ["large", "xlarge"] },
    ]
  }
  limits = { cpu = "1000", memory = "1000Gi" }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "30s"
  }`

// anyWarning checks that one of the resource's `warnings` matches re.
func anyWarning(res string, re *regexp.Regexp) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[res]
		if !ok {
			return fmt.Errorf("%s not in state", res)
		}
		n, _ := strconv.Atoi(rs.Primary.Attributes["warnings.#"])
		var all []string
		for i := range n {
			w := rs.Primary.Attributes[fmt.Sprintf("warnings.%d", i)]
			if re.MatchString(w) {
				return nil
			}
			all = append(all, w)
		}
		return fmt.Errorf("%s: no warning matches %s among %q", res, re, all)
	}
}

// everyAttr checks that attribute `field` of every element of list `list` is in allowed.
func everyAttr(res, list, field string, allowed ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[res]
		if !ok {
			return fmt.Errorf("%s not in state", res)
		}
		n := rs.Primary.Attributes[list+".#"]
		if n == "" || n == "0" {
			return fmt.Errorf("%s.%s is empty", res, list)
		}
		ok2 := map[string]bool{}
		for _, a := range allowed {
			ok2[a] = true
		}
		for k, v := range rs.Primary.Attributes {
			if strings.HasPrefix(k, list+".") && strings.HasSuffix(k, "."+field) && !ok2[v] {
				return fmt.Errorf("%s %s = %q, want one of %v", res, k, v, allowed)
			}
		}
		return nil
	}
}

func TestAccNodePool_general(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	a, b := n.Subnets[0], n.Subnets[1]
	zones := map[string]string{a.Zone: a.ID, b.Zone: b.ID}
	large := strings.Replace(generalPool, `"large", "xlarge"`, `"large"`, 1)
	var largeTypes string // summary.instance_types of the large-only pool

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				// The default shape: a summary and the zones, no per-type attributes. The pool has
				// no capacity-type requirement: Karpenter launches spot first (the emulator's one
				// spot price), and the pool says so.
				Config: poolConfig(cluster, "", generalPool),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionCreate),
					// The class resolves during plan, so even on create the pool's plan is known.
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"instance_types": int64Above(5),
						"first_instance_types": knownvalue.StringRegexp(regexp.MustCompile(
							`^[a-z0-9-]+\.x?large [0-9.]+ spot(, [a-z0-9-]+\.x?large [0-9.]+ spot){4} and [0-9]+ more \(USD/h\)$`)),
						// The emulator has no Pricing API: Karpenter's table, and a cost at the limits.
						"cost":   knownvalue.StringRegexp(regexp.MustCompile(`^(cpu|memory) [0-9A-Za-z]+ → at most [0-9]+ × [a-z0-9-]+\.x?large, [0-9.]+ USD/h spot$`)),
						"prices": knownvalue.StringRegexp(regexp.MustCompile(`^Karpenter v[0-9.]+'s on-demand table of `)),
						"max_pods_min": knownvalue.Int64Func(func(v int64) error { // m5.large: 29
							if v < 1 || v > 29 {
								return fmt.Errorf("%d, want 1..29", v)
							}
							return nil
						}),
						"max_pods_max":        int64Above(29), // the xlarge types
						"karpenter_disagrees": knownvalue.Int64Exact(0),
						"launch_templates":    int64Above(0),
						"nodes_by_ips":        int64Above(0),
						"nodes_by_limits":     int64Above(0),              // cpu and memory limits bound the nodes
						"node_overlays":       knownvalue.StringExact(""), // no node_overlays
						"reservations":        knownvalue.Null(),          // the class selects none
					})),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones"), knownvalue.MapSizeExact(2)),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones").AtMapKey(a.Zone).AtMapKey("subnet_id"), knownvalue.StringExact(a.ID)),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones").AtMapKey(b.Zone).AtMapKey("subnet_id"), knownvalue.StringExact(b.ID)),
					// Per-type detail is null, final at plan: no (known after apply) in the plan.
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("instance_types"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("max_pods"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("karpenter_assumed_pods"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_plan"), knownvalue.Null()),
					// A dynamic pool's templates are Karpenter's: none listed without details.
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_templates"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("manifest"), knownvalue.NotNull()),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkZones(nodePoolRes, zones),
					anyWarning(nodePoolRes, regexp.MustCompile(`^template\.requirements: no karpenter\.sh/capacity-type requirement: Karpenter then allows spot and on-demand .*AWSServiceRoleForEC2Spot.*values = \["on-demand"\]`)),
					resource.TestCheckNoResourceAttr(nodePoolRes, "instance_types.#"),
					resource.TestCheckNoResourceAttr(nodePoolRes, "launch_templates.#"),
					noTemplatesCreated(t, nodePoolRes, cluster),
					checkManifestValid(nodePoolRes), checkManifestValid(nodeClassRes),
					// Short lists of scalars are written on one line.
					resource.TestMatchResourceAttr(nodePoolRes, "manifest", regexp.MustCompile(`(?m)^ +values: \[c, m, r\]$`)),
					resource.TestMatchResourceAttr(nodePoolRes, "manifest", regexp.MustCompile(`(?m)^ +values: \[ap-southeast-1a, ap-southeast-1b\]$`)),
				),
			},
			{
				// With the class applied, a changed pool is planned in full at plan time; `details`
				// adds the per-type attributes, which the summary condenses.
				Config: withDetails(poolConfig(cluster, "", large)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones"), knownvalue.MapSizeExact(2)),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("max_pods").AtMapKey("m5.large"), knownvalue.Int64Exact(29)),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_plan"), knownvalue.ListSizeExact(2)),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_templates").AtSliceIndex(0).AtMapKey("id"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_templates").AtSliceIndex(0).AtMapKey("default_version"), knownvalue.Null()),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					noTemplatesCreated(t, nodePoolRes, cluster),
					checkSummaryMatchesDetails(nodePoolRes),
					checkZones(nodePoolRes, zones),
					everyAttr(nodePoolRes, "launch_plan", "zone", a.Zone, b.Zone),
					everyAttr(nodePoolRes, "launch_plan", "subnet_id", a.ID, b.ID),
					func(s *terraform.State) error { // one override group per zone (spot: Karpenter launches one capacity type), each within CreateFleet's 60 types
						at := s.RootModule().Resources[nodePoolRes].Primary.Attributes
						if at["launch_plan.#"] != "2" {
							return fmt.Errorf("launch_plan has %s groups, want 2 (one per zone)", at["launch_plan.#"])
						}
						for i := range 2 {
							n, _ := strconv.Atoi(at[fmt.Sprintf("launch_plan.%d.instance_types.#", i)])
							if ct := at[fmt.Sprintf("launch_plan.%d.capacity_type", i)]; ct != "spot" || n == 0 || n > 60 {
								return fmt.Errorf("launch_plan.%d: capacity type %q with %d instance types", i, ct, n)
							}
							first := at[fmt.Sprintf("launch_plan.%d.instance_types.0", i)]
							if at["max_pods."+first] == "" {
								return fmt.Errorf("launch_plan.%d starts with %q, which has no max_pods entry", i, first)
							}
							if zone := at[fmt.Sprintf("launch_plan.%d.zone", i)]; at[fmt.Sprintf("launch_plan.%d.subnet_id", i)] != zones[zone] {
								return fmt.Errorf("launch_plan.%d launches into %s in %s; zones plans %s", i, at[fmt.Sprintf("launch_plan.%d.subnet_id", i)], zone, zones[zone])
							}
						}
						return nil
					},
					func(s *terraform.State) error { // only large types are left, in instance_types and max_pods alike
						a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
						n, _ := strconv.Atoi(a["instance_types.#"])
						if n == 0 || a["max_pods.%"] != a["instance_types.#"] {
							return fmt.Errorf("%s instance types, %s max_pods entries", a["instance_types.#"], a["max_pods.%"])
						}
						for i := range n {
							if name := a[fmt.Sprintf("instance_types.%d", i)]; !strings.HasSuffix(name, ".large") || a["max_pods."+name] == "" {
								return fmt.Errorf("instance_types.%d = %q (max_pods %q) after narrowing to large", i, name, a["max_pods."+name])
							}
						}
						largeTypes = a["summary.instance_types"]
						return nil
					},
				),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("instance_types"), knownvalue.ListPartial(map[int]knownvalue.Check{0: knownvalue.NotNull()})),
					statecheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("max_pods").AtMapKey("m5.large"), knownvalue.Int64Exact(29)),
					statecheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("karpenter_assumed_pods"), knownvalue.MapSizeExact(0)),
				},
			},
			{
				// A content change (the class's user data) shows in the planned groups; still
				// nothing in EC2.
				Config: withDetails(poolConfig(cluster, `  user_data = "#!/bin/bash\necho hello"`, large)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					noTemplatesCreated(t, nodePoolRes, cluster),
					resource.TestMatchResourceAttr(nodePoolRes, "launch_templates.0.user_data", regexp.MustCompile(`echo hello`)),
				),
			},
			{
				// Without details again: the per-type attributes go back to null, the summary stays.
				Config: poolConfig(cluster, `  user_data = "#!/bin/bash\necho hello"`, large),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("instance_types"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_templates"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_plan"), knownvalue.Null()),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					noTemplatesCreated(t, nodePoolRes, cluster),
					checkZones(nodePoolRes, zones),
					func(s *terraform.State) error {
						a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
						if a["summary.instance_types"] != largeTypes || largeTypes == "" {
							return fmt.Errorf("summary.instance_types = %q without details, %q with", a["summary.instance_types"], largeTypes)
						}
						return nil
					},
				),
			},
		},
	})
}

// checkTemplatesRoundTrip reads each planned template back from EC2 and compares the user data
// and interface layout with what state says (the pool sets `details`, which shows them).
func checkTemplatesRoundTrip(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs := s.RootModule().Resources[nodePoolRes]
		attrs := rs.Primary.Attributes
		n := attrs["launch_templates.#"]
		if n == "" || n == "0" {
			return fmt.Errorf("no launch templates in state")
		}
		for i := 0; attrs[fmt.Sprintf("launch_templates.%d.name", i)] != ""; i++ {
			pre := fmt.Sprintf("launch_templates.%d.", i)
			out, err := acctest.EC2(t).DescribeLaunchTemplateVersions(context.Background(), &ec2.DescribeLaunchTemplateVersionsInput{
				LaunchTemplateId: aws.String(attrs[pre+"id"]), Versions: []string{"$Default"},
			})
			if err != nil {
				return fmt.Errorf("reading %s back: %w", attrs[pre+"name"], err)
			}
			data := out.LaunchTemplateVersions[0].LaunchTemplateData
			ud, _ := base64.StdEncoding.DecodeString(aws.ToString(data.UserData))
			if _, ok := attrs[pre+"user_data"]; !ok {
				return fmt.Errorf("%s has no user data in state: the pool needs details = true", attrs[pre+"name"])
			}
			if string(ud) != attrs[pre+"user_data"] {
				return fmt.Errorf("%s user data in EC2 differs from state", attrs[pre+"name"])
			}
			if want := attrs[pre+"max_pods"]; !strings.Contains(string(ud), "maxPods: "+want) {
				return fmt.Errorf("%s user data does not set maxPods %s:\n%s", attrs[pre+"name"], want, ud)
			}
			if got, want := fmt.Sprint(len(data.NetworkInterfaces)), attrs[pre+"network_interfaces.#"]; got != want {
				return fmt.Errorf("%s has %s interfaces in EC2, %s in state", attrs[pre+"name"], got, want)
			}
			for j, ni := range data.NetworkInterfaces {
				if got, want := aws.ToString(ni.InterfaceType), attrs[fmt.Sprintf("%snetwork_interfaces.%d.interface_type", pre, j)]; got != want {
					return fmt.Errorf("interface %d type %q in EC2, %q in state", j, got, want)
				}
			}
			if data.MetadataOptions == nil || data.MetadataOptions.HttpTokens != "required" || aws.ToInt32(data.MetadataOptions.HttpPutResponseHopLimit) != 1 {
				return fmt.Errorf("%s metadata options are not IMDSv2 with hop limit 1: %+v", attrs[pre+"name"], data.MetadataOptions)
			}
		}
		return nil
	}
}

// A static pool's template deleted outside Terraform is restored by the next apply (replicas = 0:
// templates, no instances).
func TestAccNodePool_templateDrift(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	cfg := withDetails(staticPoolConfig(cluster, "", m5Static(0)))
	var deleted string

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: func(s *terraform.State) error {
			return expectNoPoolTemplates(t, cluster, "general")
		},
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(checkTemplatesRoundTrip(t), func(s *terraform.State) error {
					deleted = s.RootModule().Resources[nodePoolRes].Primary.Attributes["launch_templates.0.id"]
					if deleted == "" {
						return fmt.Errorf("the static pool recorded no template id")
					}
					return nil
				}),
			},
			{
				// Someone deletes a template: the plan restores it.
				PreConfig: func() {
					if _, err := acctest.EC2(t).DeleteLaunchTemplate(context.Background(), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(deleted)}); err != nil {
						t.Fatalf("deleting %s: %v", deleted, err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
				}},
				Check: func(s *terraform.State) error {
					id := s.RootModule().Resources[nodePoolRes].Primary.Attributes["launch_templates.0.id"]
					if id == "" || id == deleted {
						return fmt.Errorf("template not recreated: id %q (deleted %q)", id, deleted)
					}
					return nil
				},
			},
			{
				ResourceName:      nodePoolRes,
				ImportState:       true,
				ImportStateId:     "general",
				ImportStateVerify: false,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 || states[0].Attributes["launch_templates.#"] == "0" || states[0].Attributes["launch_templates.#"] == "" {
						return fmt.Errorf("import found no launch templates: %v", states)
					}
					return nil
				},
			},
		},
	})
}

// A dynamic pool's apply writes nothing to EC2: Karpenter builds its own launch templates from
// the EC2NodeClass. Counted twice: the provider's launch-template calls, and EC2's templates.
func TestAccNodePool_dynamicCreatesNoLaunchTemplates(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	cfg := poolConfig(cluster, "", generalPool)
	rec := &callRecorder{}
	noWrites := func(*terraform.State) error {
		calls := rec.Calls("EC2.")
		if calls["EC2.DescribeLaunchTemplates"] == 0 {
			return fmt.Errorf("the recorder saw no launch-template listing (the claim check lists them): %v", calls)
		}
		for _, op := range []string{"EC2.CreateLaunchTemplate", "EC2.CreateLaunchTemplateVersion", "EC2.ModifyLaunchTemplate", "EC2.DeleteLaunchTemplate", "EC2.CreateFleet"} {
			if calls[op] > 0 {
				return fmt.Errorf("%s called %d times for a dynamic pool", op, calls[op])
			}
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkClusterClean(t, cluster), func(s *terraform.State) error {
			if n := rec.Calls("EC2.")["EC2.DeleteLaunchTemplate"]; n > 0 {
				return fmt.Errorf("destroying a dynamic pool deleted %d launch templates", n)
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(noTemplatesCreated(t, nodePoolRes, cluster), noWrites,
					resource.TestCheckResourceAttrSet(nodePoolRes, "owner_id")),
			},
			// Refresh finds no template and reports no drift: the plan is empty.
			{Config: cfg, PlanOnly: true, Check: noWrites},
		},
	})
}

// Migration: templates a dynamic pool's owner created with an earlier provider version (here
// written with the SDK, with the ownership tags such a version wrote) are deleted by the next
// apply, also when the state already records none; another owner's template of the same pool
// name stays untouched.
func TestAccNodePool_dynamicDeletesOwnedTemplates(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	cfg := poolConfig(cluster, "", generalPool)
	owner := planner.NewOwnerID()
	ownerTags := func(o string) map[string]string {
		return map[string]string{launchplan.TagNodePool: "general", launchplan.TagCluster: cluster, launchplan.TagNodeClass: "default",
			launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagOwner: o}
	}
	otherTags := ownerTags(planner.NewOwnerID())
	var foreign string
	var legacy []string
	ownedLeft := func(*terraform.State) error {
		if got := templatesTagged(t, ownerTags(owner)); len(got) > 0 {
			return fmt.Errorf("the pool's own templates are left: %v", got)
		}
		return templateKept(t, foreign)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: func(*terraform.State) error {
			if err := templateKept(t, foreign); err != nil {
				return err
			}
			got := templatesTagged(t, map[string]string{launchplan.TagCluster: cluster})
			if len(got) != 1 || got[foreign] == "" {
				return fmt.Errorf("after destroy, want only the other owner's template %s of the cluster, got %v", foreign, got)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// What an earlier version left: two templates of the owner, and another owner's.
				PreConfig: func() {
					foreign = createLookAlike(t, cluster+"/general/other00001", otherTags)
					legacy = []string{createLookAlike(t, cluster+"/general/legacy0001", ownerTags(owner)),
						createLookAlike(t, cluster+"/general/legacy0002", ownerTags(owner))}
				},
				Config:             cfg,
				ResourceName:       nodePoolRes,
				ImportState:        true,
				ImportStateId:      "general/" + owner,
				ImportStatePersist: true,
				ImportStateCheck: func(s []*terraform.InstanceState) error {
					a := importedPool(s)
					if a == nil || a["owner_id"] != owner || a["launch_templates.#"] != "2" {
						return fmt.Errorf("import of the owner's pool: %v", a)
					}
					for i := range 2 {
						if id := a[fmt.Sprintf("launch_templates.%d.id", i)]; !slices.Contains(legacy, id) {
							return fmt.Errorf("imported template id %q is not one of the owner's %v", id, legacy)
						}
					}
					return nil
				},
			},
			{
				// The plan drops the ids; the apply deletes the owner's templates only.
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(ownedLeft, resource.TestCheckResourceAttr(nodePoolRes, "owner_id", owner),
					// Without details a dynamic pool lists no templates: the adopted ones are gone.
					resource.TestCheckNoResourceAttr(nodePoolRes, "launch_templates.#"),
					func(s *terraform.State) error {
						a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
						for i := 0; a[fmt.Sprintf("launch_templates.%d.name", i)] != ""; i++ {
							if id, ok := a[fmt.Sprintf("launch_templates.%d.id", i)]; ok {
								return fmt.Errorf("launch_templates.%d.id = %q after the migration", i, id)
							}
						}
						return nil
					}),
			},
			{Config: cfg, PlanOnly: true},
			{
				// One more left behind (say, a delete that failed): refresh finds it, apply deletes it.
				PreConfig: func() { createLookAlike(t, cluster+"/general/legacy0003", ownerTags(owner)) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
				}},
				Check: ownedLeft,
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// templateKept fails unless the template exists, never written to since it was created.
func templateKept(t *testing.T, id string) error {
	out, err := acctest.EC2(t).DescribeLaunchTemplates(context.Background(), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{id}})
	if err != nil || len(out.LaunchTemplates) != 1 {
		return fmt.Errorf("another owner's template %s is gone: %v", id, err)
	}
	if v := aws.ToInt64(out.LaunchTemplates[0].LatestVersionNumber); v != 1 {
		return fmt.Errorf("another owner's template %s was written to: latest version %d", id, v)
	}
	return nil
}

// expectNoPoolTemplates fails when templates tagged for the pool are left behind.
func expectNoPoolTemplates(t *testing.T, cluster, pool string) error {
	out, err := acctest.EC2(t).DescribeLaunchTemplates(context.Background(), &ec2.DescribeLaunchTemplatesInput{
		Filters: []ec2types.Filter{
			{Name: aws.String("tag:karpenter.sh/nodepool"), Values: []string{pool}},
			{Name: aws.String("tag:karpenter.k8s.aws/cluster"), Values: []string{cluster}},
		},
	})
	if err != nil {
		return err
	}
	if len(out.LaunchTemplates) > 0 {
		return fmt.Errorf("%d launch templates of pool %s left after destroy", len(out.LaunchTemplates), pool)
	}
	return nil
}

func TestAccNodePool_zoneWithoutSubnet(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	class := fmt.Sprintf(`  subnet_selector_terms = [{ id = %q }, { id = %q }]`, n.Subnets[0].ID, n.Subnets[1].ID)
	pool := `
  template = {
    requirements = [{ key = "topology.kubernetes.io/zone", operator = "In", values = ["ap-southeast-1c"] }]
  }`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{{
			Config:      poolConfig(cluster, class, pool),
			ExpectError: regexp.MustCompile(`(?s)template.requirements\[0\].values.*ap-southeast-1c`),
		}},
	})
}

func TestAccNodePool_efaClass(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	class := fmt.Sprintf(`
  subnet_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q, purpose = "hpc" } }]
  efa                   = true`, cluster)
	pool := `
  details = true
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["p4de.24xlarge", "c5n.18xlarge", "m5.large"] },
    ]
  }`
	efaGroups := resource.ComposeAggregateTestCheckFunc(
		checkSummaryMatchesDetails(nodePoolRes),
		// m5.large has no EFA: filtered out.
		resource.TestCheckResourceAttr(nodePoolRes, "instance_types.#", "2"),
		resource.TestCheckTypeSetElemAttr(nodePoolRes, "instance_types.*", "p4de.24xlarge"),
		resource.TestCheckTypeSetElemAttr(nodePoolRes, "instance_types.*", "c5n.18xlarge"),
		resource.TestCheckResourceAttr(nodePoolRes, "max_pods.%", "2"),
		// p4de: one efa interface per card, device 0 on card 0, 1 elsewhere.
		resource.TestCheckTypeSetElemNestedAttrs(nodePoolRes, "launch_templates.*", map[string]string{
			"network_interfaces.#":                "4",
			"network_interfaces.0.interface_type": "efa", "network_interfaces.0.network_card_index": "0", "network_interfaces.0.device_index": "0",
			"network_interfaces.3.interface_type": "efa", "network_interfaces.3.network_card_index": "3", "network_interfaces.3.device_index": "1",
		}),
		resource.TestCheckTypeSetElemNestedAttrs(nodePoolRes, "launch_templates.*", map[string]string{
			"network_interfaces.#": "1", "network_interfaces.0.interface_type": "efa",
		}),
	)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				// Dynamic: the groups are planned, nothing is written.
				Config: poolConfig(cluster, class, pool),
				Check: resource.ComposeAggregateTestCheckFunc(efaGroups, noTemplatesCreated(t, nodePoolRes, cluster),
					checkManifestValid(nodePoolRes), checkManifestValid(nodeClassRes)),
			},
			{
				// Static (replicas = 0, a replacement): the same groups as templates in EC2, interfaces
				// as planned.
				Config: staticPoolConfig(cluster, class, pool+"\n  replicas = 0"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(efaGroups, checkTemplatesRoundTrip(t)),
			},
		},
	})
}

func TestAccNodePool_prefixDelegationAndIPWarning(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	c := n.Subnets[2] // the /26: 59 free IPs
	pool := `
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }
  limits = { nodes = "1" }`
	secondary := fmt.Sprintf(`  subnet_selector_terms = [{ id = %q }]`, c.ID)
	pd := secondary + "\n  networking = { prefix_delegation = true }"

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				// Secondary IPs, default shape: the summary says one type, 29 pods, and Karpenter agrees.
				Config: poolConfig(cluster, secondary, pool),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(nodePoolRes, "summary.instance_types", "1"),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.first_instance_types", "m5.large 0.096 on-demand (USD/h)"),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.max_pods_min", "29"),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.max_pods_max", "29"),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.karpenter_disagrees", "0"),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.nodes_by_limits", "1"),
					checkZones(nodePoolRes, map[string]string{c.Zone: c.ID}),
					func(s *terraform.State) error {
						// The emulator has no Pricing API: the embedded table's warning is the only one.
						a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
						if a["warnings.#"] != "1" || !strings.Contains(a["warnings.0"], "on-demand table") {
							return fmt.Errorf("unexpected warnings: %q", a["warnings.0"])
						}
						return nil
					},
				),
			},
			{
				// Prefix delegation: 110 pods per m5.large take 129 IPs: even one node no longer fits the /26.
				Config: withDetails(poolConfig(cluster, pd, pool)),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkManifestValid(nodePoolRes), checkManifestValid(nodeClassRes),
					checkSummaryMatchesDetails(nodePoolRes),
					resource.TestCheckResourceAttr(nodePoolRes, "instance_types.0", "m5.large"),
					resource.TestCheckResourceAttr(nodePoolRes, "max_pods.m5.large", "110"),
					resource.TestCheckResourceAttr(nodePoolRes, "karpenter_assumed_pods.%", "1"),
					resource.TestCheckResourceAttr(nodePoolRes, "karpenter_assumed_pods.m5.large", "29"),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.karpenter_disagrees", "1"),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.nodes_by_limits", "1"),
					resource.TestCheckResourceAttr(nodePoolRes, "zones."+c.Zone+".nodes_by_ips", "0"),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.nodes_by_ips", "0"),
					checkZones(nodePoolRes, map[string]string{c.Zone: c.ID}),
					resource.TestMatchResourceAttr(nodePoolRes, "warnings.0", regexp.MustCompile(`59`)),
				),
			},
		},
	})
}

func TestAccNodePool_subnetTagsChangeThePlan(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	key := acctest.RandomName("pool-subnets")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{
		ExtraSubnetTags:        map[int]map[string]string{0: {key: "yes"}, 1: {key: "yes"}},
		ExtraSecurityGroupTags: map[int]map[string]string{0: {"karpenter.sh/discovery": cluster}},
	})
	class := fmt.Sprintf(`  subnet_selector_terms = [{ tags = { %q = "yes" } }]`, key)
	pool := `
  details = true
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }`
	cfg := poolConfig(cluster, class, pool)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{Config: cfg, Check: checkZones(nodePoolRes, map[string]string{n.Subnets[0].Zone: n.Subnets[0].ID, n.Subnets[1].Zone: n.Subnets[1].ID})},
			{
				PreConfig: func() { acctest.TagSubnet(t, n.Subnets[2].ID, map[string]string{key: "yes"}) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkZones(nodePoolRes, map[string]string{n.Subnets[0].Zone: n.Subnets[0].ID, n.Subnets[1].Zone: n.Subnets[1].ID,
						n.Subnets[2].Zone: n.Subnets[2].ID}),
					resource.TestCheckTypeSetElemNestedAttrs(nodePoolRes, "launch_plan.*", map[string]string{"zone": n.Subnets[2].Zone, "subnet_id": n.Subnets[2].ID}),
				),
			},
		},
	})
}

// A refresh reads every pool; with cluster_name set, the pools of one plan share one
// DescribeLaunchTemplates listing (filtered per pool in memory) instead of one call each.
func TestAccNodePool_refreshSharesOneListing(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	const pools = 4
	cfg := providerConfig(cluster) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "test" {
  count      = %d
  name       = "pool-${count.index}"
  node_class = karpenter_node_class.test.resolved
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge", "c5.large"] }]
  }
}
`, pools)
	rec := &callRecorder{}
	var from int
	mark := func() {
		rec.mu.Lock()
		from = len(rec.clients)
		rec.mu.Unlock()
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.TestCheckResourceAttr("karpenter_node_pool.test.0", "summary.launch_templates", "2")},
			{PreConfig: mark, Config: cfg, PlanOnly: true},
			{
				PreConfig: func() {
					rec.mu.Lock()
					defer rec.mu.Unlock()
					reading := 0
					for i, c := range rec.clients[from:] {
						calls := c.Calls.Snapshot()
						if n := calls["EC2.DescribeLaunchTemplates"]; n > 1 {
							t.Errorf("client %d (one walk) made %d DescribeLaunchTemplates calls reading %d pools; want one shared listing", i, n, pools)
						} else if n == 1 {
							reading++
						}
						if n := calls["EC2.DescribeLaunchTemplateVersions"]; n != 0 {
							t.Errorf("client %d read %d template versions although no default version changed", i, n)
						}
					}
					if reading == 0 {
						t.Errorf("no walk of the plan-only step listed launch templates (%d clients)", len(rec.clients)-from)
					}
				},
				Config: cfg, PlanOnly: true,
			},
		},
	})
}

// checkClusterClean is the CheckDestroy of tests whose pools all carry the test's cluster: no
// launch template and no live instance of that cluster is left.
func checkClusterClean(t *testing.T, cluster string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		filter := []ec2types.Filter{{Name: aws.String("tag:karpenter.k8s.aws/cluster"), Values: []string{cluster}}}
		lts, err := acctest.EC2(t).DescribeLaunchTemplates(context.Background(), &ec2.DescribeLaunchTemplatesInput{Filters: filter})
		if err != nil {
			return err
		}
		if len(lts.LaunchTemplates) > 0 {
			return fmt.Errorf("%d launch templates of cluster %s left after destroy", len(lts.LaunchTemplates), cluster)
		}
		if ids := instanceIDsByTags(t, map[string]string{"karpenter.k8s.aws/cluster": cluster}); len(ids) > 0 {
			return fmt.Errorf("instances of cluster %s left after destroy: %v", cluster, ids)
		}
		if names := classProfiles(t, cluster); len(names) > 0 {
			return fmt.Errorf("instance profiles of cluster %s left after destroy: %v", cluster, names)
		}
		return nil
	}
}

// classProfiles lists the instance profiles the provider's node classes of the cluster hold
// (nodeplane-<cluster>-… under /nodeplane/), straight from IAM.
func classProfiles(t *testing.T, cluster string) []string {
	t.Helper()
	var names []string
	pages := iam.NewListInstanceProfilesPaginator(acctest.IAM(t), &iam.ListInstanceProfilesInput{PathPrefix: aws.String(nodeclass.InstanceProfilePath)})
	for pages.HasMorePages() {
		out, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("ListInstanceProfiles: %v", err)
		}
		for _, p := range out.InstanceProfiles {
			if name := aws.ToString(p.InstanceProfileName); strings.HasPrefix(name, "nodeplane-"+cluster+"-") {
				names = append(names, name)
			}
		}
	}
	return names
}
