package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// roleClassConfig is a static pool (2 replicas) on a class `static` with the given IAM line
// (`role = …` or `instance_profile = …`).
func roleClassConfig(cluster, pool, iamLine string) string {
	return providerConfigEC2(cluster, awsLikeEC2().URL()) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "static"
  %s
  ami_family         = "AL2023"
  ami_selector_terms = [{ id = %q }]
}

resource "karpenter_node_pool" "test" {
  name       = %q
  node_class = karpenter_node_class.test.resolved
  replicas   = 2
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }
  timeouts = { create = "5m", update = "5m", delete = "5m" }
}
`, iamLine, testAMI(), pool)
}

// iamProfile reads an instance profile straight from IAM; nil when it does not exist.
func iamProfile(t *testing.T, name string) *iamtypes.InstanceProfile {
	t.Helper()
	out, err := acctest.IAM(t).GetInstanceProfile(context.Background(), &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)})
	var nse *iamtypes.NoSuchEntityException
	if errors.As(err, &nse) {
		return nil
	}
	if err != nil {
		t.Fatalf("GetInstanceProfile %s: %v", name, err)
	}
	return out.InstanceProfile
}

func profileRoles(p *iamtypes.InstanceProfile) []string {
	var out []string
	for _, r := range p.Roles {
		out = append(out, aws.ToString(r.RoleName))
	}
	return out
}

func iamTagMap(tags []iamtypes.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

// profileHolds checks that IAM holds the class's profile, under /nodeplane/, with exactly the
// role and the class's tags (its owner id from state).
func profileHolds(t *testing.T, cluster, name, role string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		p := iamProfile(t, name)
		if p == nil {
			return fmt.Errorf("instance profile %s does not exist", name)
		}
		if got := profileRoles(p); !slices.Equal(got, []string{role}) {
			return fmt.Errorf("instance profile %s holds roles %v, want [%s]", name, got, role)
		}
		if got := aws.ToString(p.Path); got != nodeclass.InstanceProfilePath {
			return fmt.Errorf("instance profile %s has path %s, want %s", name, got, nodeclass.InstanceProfilePath)
		}
		owner := s.RootModule().Resources[nodeClassRes].Primary.Attributes["owner_id"]
		if owner == "" {
			return fmt.Errorf("the class has no owner_id in state")
		}
		want := nodeclass.InstanceProfileTags(cluster, acctest.Region(), "static", owner)
		if got := iamTagMap(p.Tags); !maps.Equal(got, want) {
			return fmt.Errorf("instance profile %s tags %v, want %v", name, got, want)
		}
		return nil
	}
}

// templatesUseProfile checks that every launch template of the pool names the instance profile.
func templatesUseProfile(t *testing.T, cluster, pool, profile string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		templates, err := poolTemplateDefaults(t, cluster, pool)
		if err != nil {
			return err
		}
		for name, data := range templates {
			if ip := data.IamInstanceProfile; ip == nil || aws.ToString(ip.Name) != profile {
				return fmt.Errorf("template %s: IamInstanceProfile %+v, want name %s", name, ip, profile)
			}
		}
		return nil
	}
}

// TestAccNodeClass_roleInstanceProfile: a class with `role` and instance_profile_for_static_pools
// creates its instance profile, whose name the plan already shows, and the static pool's launch
// templates name it. A profile changed
// outside Terraform is restored; switching to `instance_profile` deletes the class's profile and
// leaves the named one alone; destroy removes the profile.
func TestAccNodeClass_roleInstanceProfile(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("iam")
	role := acctest.RandomName("node-role")
	acctest.NewRole(t, role)
	discoveryNetwork(t, cluster)
	profile := nodeclass.InstanceProfileName(cluster, acctest.Region(), "static")
	withRole := roleClassConfig(cluster, pool, fmt.Sprintf("role = %q\n  instance_profile_for_static_pools = true", role))
	resolvedProfile := tfjsonpath.New("resolved").AtMapKey("instance_profile")

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkClusterClean(t, cluster), func(*terraform.State) error {
			if p := iamProfile(t, profile); p != nil {
				return fmt.Errorf("instance profile %s left after destroy", profile)
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: withRole,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// Known at plan: the pool plans its templates from it.
					plancheck.ExpectKnownValue(nodeClassRes, resolvedProfile, knownvalue.StringExact(profile)),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("node_class").AtMapKey("instance_profile"), knownvalue.StringExact(profile)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, resolvedProfile, knownvalue.StringExact(profile)),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("owner_id"), knownvalue.StringRegexp(ownerIDRE)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					profileHolds(t, cluster, profile, role), templatesUseProfile(t, cluster, pool, profile),
					expectInstances(t, cluster, pool, 2), checkManifestValid(nodeClassRes),
					// The nodes could join: each template's user data is a NodeConfig with the cluster's facts.
					templatesJoin(t, cluster, pool),
				),
			},
			{
				// The role is removed from the profile outside Terraform, and a tag of the
				// provider's with it: the plan updates the class (and only it), apply puts the role
				// and the tag back.
				PreConfig: func() {
					if _, err := acctest.IAM(t).RemoveRoleFromInstanceProfile(context.Background(), &iam.RemoveRoleFromInstanceProfileInput{
						InstanceProfileName: aws.String(profile), RoleName: aws.String(role)}); err != nil {
						t.Fatalf("removing the role: %v", err)
					}
					if _, err := acctest.IAM(t).UntagInstanceProfile(context.Background(), &iam.UntagInstanceProfileInput{
						InstanceProfileName: aws.String(profile), TagKeys: []string{"topology.kubernetes.io/region"}}); err != nil {
						t.Fatalf("removing a tag: %v", err)
					}
				},
				Config: withRole,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(profileHolds(t, cluster, profile, role), func(*terraform.State) error {
					if p := iamProfile(t, profile); p == nil || !slices.ContainsFunc(p.Tags, func(tag iamtypes.Tag) bool {
						return aws.ToString(tag.Key) == "topology.kubernetes.io/region" && aws.ToString(tag.Value) == acctest.Region()
					}) {
						return fmt.Errorf("apply did not restore the region tag of %s", profile)
					}
					return nil
				}),
			},
			{Config: withRole, PlanOnly: true}, // the plan after apply is empty
			{
				// instance_profile instead of role: the class's own profile is deleted, the named
				// one is used as it is.
				Config: roleClassConfig(cluster, pool, `instance_profile = "test-instance-profile"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, resolvedProfile, knownvalue.StringExact("test-instance-profile")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					templatesUseProfile(t, cluster, pool, "test-instance-profile"),
					func(*terraform.State) error {
						if p := iamProfile(t, profile); p != nil {
							return fmt.Errorf("instance profile %s still exists after the switch to instance_profile", profile)
						}
						if p := iamProfile(t, "test-instance-profile"); p == nil {
							return fmt.Errorf("the shared instance profile test-instance-profile is gone")
						}
						return nil
					},
				),
			},
			{
				// Back to role: the profile is created again.
				Config: withRole,
				Check:  resource.ComposeAggregateTestCheckFunc(profileHolds(t, cluster, profile, role), templatesUseProfile(t, cluster, pool, profile)),
			},
		},
	})
}

// TestAccNodeClass_iamPlanErrors: a missing instance profile, a missing role, and a profile name
// another owner holds (for a class with instance_profile_for_static_pools) fail the plan on the
// attribute, with no mutating call; the other owner's profile is untouched.
func TestAccNodeClass_iamPlanErrors(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	missingRole := acctest.RandomName("no-such-role")

	// Profiles of the provider's name for classes `foreign` and `other-owner`, made outside the
	// class: one without tags, one with the provider's tags and another owner id.
	foreign := nodeclass.InstanceProfileName(cluster, acctest.Region(), "foreign")
	otherOwner := nodeclass.InstanceProfileName(cluster, acctest.Region(), "other-owner")
	otherTags := nodeclass.InstanceProfileTags(cluster, acctest.Region(), "other-owner", "0123456789abcdef")
	for name, tags := range map[string]map[string]string{foreign: {"team": "someone-else"}, otherOwner: otherTags} {
		var ts []iamtypes.Tag
		for k, v := range tags {
			ts = append(ts, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		c := acctest.IAM(t)
		if _, err := c.CreateInstanceProfile(context.Background(), &iam.CreateInstanceProfileInput{
			InstanceProfileName: aws.String(name), Path: aws.String(nodeclass.InstanceProfilePath), Tags: ts}); err != nil {
			t.Fatalf("creating %s: %v", name, err)
		}
		if _, err := c.AddRoleToInstanceProfile(context.Background(), &iam.AddRoleToInstanceProfileInput{
			InstanceProfileName: aws.String(name), RoleName: aws.String("KarpenterNodeRole")}); err != nil {
			t.Fatalf("adding a role to %s: %v", name, err)
		}
		t.Cleanup(func() {
			_, _ = c.RemoveRoleFromInstanceProfile(context.Background(), &iam.RemoveRoleFromInstanceProfileInput{
				InstanceProfileName: aws.String(name), RoleName: aws.String("KarpenterNodeRole")})
			if _, err := c.DeleteInstanceProfile(context.Background(), &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String(name)}); err != nil {
				t.Logf("fixture cleanup: DeleteInstanceProfile %s: %v", name, err)
			}
		})
	}
	class := func(name, iamLine string) string {
		return fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = %q
  %s
  ami_selector_terms = [{ alias = "al2023@latest" }]
}
`, name, iamLine)
	}
	const forStatic = "role = \"KarpenterNodeRole\"\n  instance_profile_for_static_pools = true"
	runBadInputs(t, providerConfig(cluster), []badCase{
		{"missing instance profile", class("default", `instance_profile = "missing"`), "instance_profile", "instance profile missing not found"},
		{"missing role", class("default", fmt.Sprintf("role = %q", missingRole)), "role", "role " + missingRole + " not found"},
		{"profile name of a profile made outside the provider", class("foreign", forStatic), "role",
			"instance profile " + foreign + " (path /nodeplane/) for the static pools of node class \"foreign\" in cluster " + cluster + ", but a profile of that name already exists and was not created by this provider"},
		{"profile name of another owner", class("other-owner", forStatic), "role",
			"already exists and belongs to owner 0123456789abcdef"},
	})
	for name, tags := range map[string]map[string]string{foreign: {"team": "someone-else"}, otherOwner: otherTags} {
		p := iamProfile(t, name)
		if p == nil {
			t.Fatalf("the other owner's profile %s is gone", name)
		}
		if got := profileRoles(p); !slices.Equal(got, []string{"KarpenterNodeRole"}) {
			t.Errorf("the other owner's profile %s holds roles %v", name, got)
		}
		if got := iamTagMap(p.Tags); !maps.Equal(got, tags) {
			t.Errorf("the other owner's profile %s has tags %v, want %v", name, got, tags)
		}
	}
}

// TestAccNodeClass_importAdoptsProfile: a class imported by name takes over the instance
// profile for static pools of an earlier state of the same class (its owner id), and the plan
// after the import changes nothing in IAM. Without a profile with the provider's tags the import
// takes none.
func TestAccNodeClass_importAdoptsProfile(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	profile := nodeclass.InstanceProfileName(cluster, acctest.Region(), "default")
	cfg := nodeClassConfig(cluster, "  instance_profile_for_static_pools = true")
	var owner string

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: func(*terraform.State) error {
			if p := iamProfile(t, profile); p != nil {
				return fmt.Errorf("instance profile %s left after destroy", profile)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(s *terraform.State) error {
					owner = s.RootModule().Resources[nodeClassRes].Primary.Attributes["owner_id"]
					p := iamProfile(t, profile)
					if p == nil || iamTagMap(p.Tags)[launchplan.TagOwner] != owner || owner == "" {
						return fmt.Errorf("profile %s: %+v, want owner %q", profile, p, owner)
					}
					return nil
				},
			},
			{
				ResourceName:  nodeClassRes,
				ImportState:   true,
				ImportStateId: "default",
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 || states[0].Attributes["owner_id"] != owner {
						return fmt.Errorf("imported owner_id %q, want %q", states[0].Attributes["owner_id"], owner)
					}
					return nil
				},
			},
		},
	})
}

var ownerIDRE = regexp.MustCompile(`^[0-9a-f]{16}$`)
