package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// amiClassConfig is a node class on the discovery network with the given AMI terms, and a
// dynamic pool on it with the given requirements (none: no pool), with `details` to show its
// planned templates and their images.
func amiClassConfig(cluster, terms, requirements string) string {
	cfg := providerConfig(cluster) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "images"
  instance_profile   = "test-instance-profile"
  ami_family         = "AL2023"
  ami_selector_terms = %s
}
`, terms)
	if requirements != "" {
		cfg += fmt.Sprintf(`
resource "karpenter_node_pool" "test" {
  name       = "images"
  node_class = karpenter_node_class.test.resolved
  details    = true
  template   = { requirements = %s }
}
`, requirements)
	}
	return cfg
}

// TestAccNodeClass_amisResolveAtPlan: ssm_parameter and name terms resolve to the seeded
// images during plan, shown in `amis` and handed to pools, whose templates use them; a pool
// that allows only arm64 types on a class with an x86_64 image fails its plan naming arm64.
func TestAccNodeClass_amisResolveAtPlan(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	prefix := "team-" + cluster
	amd := acctest.CopyImage(t, "x86_64", prefix+"-amd64", map[string]string{"team": cluster})
	arm := acctest.CopyImage(t, "arm64", prefix+"-arm64", map[string]string{"team": cluster})
	acctest.CopyImage(t, "x86_64", "other-"+cluster, nil) // matches neither term
	param := "/" + cluster + "/node-ami"
	acctest.PutParameter(t, param, amd)

	ssmTerms := fmt.Sprintf(`[{ ssm_parameter = %q }]`, param)
	calls := &callRecorder{}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(calls),
		Steps: []resource.TestStep{
			{
				Config: amiClassConfig(cluster, ssmTerms, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("amis"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"id": knownvalue.StringExact(amd), "name": knownvalue.StringExact(prefix + "-amd64"),
							"architecture": knownvalue.StringExact("amd64"), "variant": knownvalue.Null(),
							"creation_date": knownvalue.NotNull(), "deprecated": knownvalue.Bool(false),
							"requirements": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("kubernetes.io/arch In [amd64]")}),
						}),
					})),
					// A pool reads an image's id, architecture and variant; names and dates are the class's.
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved"), resolutionOf("the image's id, architecture and variant",
						func(v launchplan.ClassValue) error {
							if len(v.AMIs) != 1 || v.AMIs[0].ID != amd || v.AMIs[0].Architecture != "amd64" || v.AMIs[0].Variant != nil {
								return fmt.Errorf("amis %+v", v.AMIs)
							}
							return nil
						})),
				}},
			},
			{
				// name with a wildcard: one image per architecture.
				Config: amiClassConfig(cluster, fmt.Sprintf(`[{ name = %q }]`, prefix+"-*"), ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("amis"), knownvalue.ListSizeExact(2)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckTypeSetElemNestedAttrs(nodeClassRes, "amis.*", map[string]string{"id": amd, "architecture": "amd64"}),
					resource.TestCheckTypeSetElemNestedAttrs(nodeClassRes, "amis.*", map[string]string{"id": arm, "architecture": "arm64"}),
				),
			},
			{
				// Tags select the same two, in the same order: only the manifest's terms change.
				Config: amiClassConfig(cluster, fmt.Sprintf(`[{ tags = { team = %q } }]`, cluster), ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(nodeClassRes, "amis.#", "2"),
					resource.TestCheckTypeSetElemNestedAttrs(nodeClassRes, "amis.*", map[string]string{"id": amd, "architecture": "amd64"}),
					resource.TestCheckTypeSetElemNestedAttrs(nodeClassRes, "amis.*", map[string]string{"id": arm, "architecture": "arm64"}),
				),
			},
			{
				// An x86_64 image and a pool that allows arm64 types only.
				Config: amiClassConfig(cluster, ssmTerms,
					`[{ key = "kubernetes.io/arch", operator = "In", values = ["arm64"] }]`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)none can\s+be\s+launched.*no\s+image\s+of\s+node\s+class\s+"images"\s+serves,\s+arm64.*images\s+serve\s+amd64`),
			},
			{
				// Both architectures allowed: every planned template carries the x86_64 image, and
				// the arm64 types are dropped with a warning.
				Config: amiClassConfig(cluster, ssmTerms,
					`[{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m6g.large"] },
					  { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] }]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("karpenter_node_pool.test", tfjsonpath.New("instance_types"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("m5.large")})),
					plancheck.ExpectKnownValue("karpenter_node_pool.test", tfjsonpath.New("launch_templates").AtSliceIndex(0).AtMapKey("image_id"), knownvalue.StringExact(amd)),
					plancheck.ExpectKnownValue("karpenter_node_pool.test", tfjsonpath.New("summary").AtMapKey("first_instance_types"), knownvalue.StringExact("m5.large 0.096 on-demand (USD/h)")),
					plancheck.ExpectKnownValue("karpenter_node_pool.test", tfjsonpath.New("warnings"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.StringRegexp(regexp.MustCompile(`dropped 1 instance type of a kind no image of node class "images" serves, arm64 \(m6g.large\)`)),
					})),
				}},
			},
			{
				// A missing parameter fails the plan on the term.
				Config:      amiClassConfig(cluster, fmt.Sprintf(`[{ ssm_parameter = %q }]`, param+"-missing"), ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`ami_selector_terms\[0\]\.ssm_parameter:\s+SSM\s+parameter\s+"` + regexp.QuoteMeta(param) + `-missing"\s+does\s+not\s+exist`),
			},
		},
	})
	if n := calls.Calls("SSM.")["SSM.GetParameter"]; n == 0 {
		t.Fatalf("no SSM GetParameter call recorded: %v", calls.Calls("SSM."))
	}
}

// TestAccNodePool_findingsKeepTheirSummaries: two different findings of one pool plan are two
// warnings with summaries of their own, which Terraform shows apart instead of folding them
// into "similar warnings".
func TestAccNodePool_findingsKeepTheirSummaries(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	amd := acctest.CopyImage(t, "x86_64", "findings-"+cluster, nil)
	diags := &diagRecorder{diags: map[int][]recordedDiag{}}
	cfg := amiClassConfig(cluster, fmt.Sprintf(`[{ id = %q }]`, amd),
		`[{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m6g.large"] }] }
  limits = { nodes = "100000" `)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: badInputFactories(&callRecorder{}, diags),
		Steps:                    []resource.TestStep{{Config: cfg, PlanOnly: true, ExpectNonEmptyPlan: true}},
	})
	got := map[string]string{} // summary -> path, the full one when the detail names it
	for _, w := range diags.warnings {
		if w.rpc == "PlanResourceChange" {
			got[w.text] = w.path
			if full, _, ok := strings.Cut(w.detail, ": "); ok && resolvableString(full) == w.path {
				got[w.text] = full
			}
		}
	}
	for summary, p := range map[string]string{
		"Instance types dropped from the pool":    "template.requirements",
		"Subnets too small for the pool's limits": "limits",
	} {
		if gotPath, ok := got[summary]; !ok || gotPath != p {
			t.Errorf("warning %q on %q: got %v", summary, p, got)
		}
	}
}
