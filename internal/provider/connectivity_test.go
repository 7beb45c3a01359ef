package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// connectivityClass is a node class on the fixture's zone-a and zone-b subnets and its node
// group, with the given connectivity block (HCL, or "" for none).
func connectivityClass(cluster string, n *acctest.Network, block string) string {
	body := fmt.Sprintf(`
  subnet_selector_terms         = [{ id = %q }, { id = %q }]
  security_group_selector_terms = [{ id = %q }]`, n.Subnets[0].ID, n.Subnets[1].ID, n.SecurityGroups[0].ID)
	if block != "" {
		body += "\n  connectivity = " + block
	}
	return nodeClassConfig(cluster, body)
}

// reportEntry checks one connectivity_report entry.
func reportEntry(check, groupID string, passed bool, required, detail string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"check":    knownvalue.StringExact(check),
		"group_id": knownvalue.StringExact(groupID),
		"passed":   knownvalue.Bool(passed),
		"required": knownvalue.StringExact(required),
		"detail":   knownvalue.StringRegexp(regexp.MustCompile(regexp.QuoteMeta(detail))),
	})
}

func report(entries ...knownvalue.Check) knownvalue.Check { return knownvalue.ListExact(entries) }

// words matches the phrase however Terraform wraps the diagnostic.
func words(phrase string) string {
	parts := strings.Fields(phrase)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, `\s+`)
}

func nodeToNodeRequired(groups string) string {
	return "ingress all traffic (or at least tcp 1025-65535, tcp 53, udp 53) from " + groups
}

// A group with a self-referencing all-traffic rule and the control-plane ports passes every
// check, even with checks = "error"; the report is known in the plan.
func TestAccNodeClass_connectivitySelfReference(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{NoNodeToNode: true})
	nodes, cp := n.SecurityGroups[0].ID, n.SecurityGroups[1].ID
	acctest.AuthorizeIngress(t, nodes,
		acctest.Permission("-1", 0, 0, nodes),
		acctest.Permission("tcp", 443, 443, cp),
		acctest.Permission("tcp", 10250, 10250, cp))

	want := report(
		reportEntry("node_to_node", nodes, true, nodeToNodeRequired(nodes), "admitted by "+nodes+" ingress all traffic from "+nodes+" (self)"),
		reportEntry("control_plane_to_nodes", nodes, true, "ingress tcp 443 from "+cp, "admitted by "+nodes+" ingress tcp 443 from "+cp),
		reportEntry("control_plane_to_nodes", nodes, true, "ingress tcp 10250 from "+cp, "admitted by "+nodes+" ingress tcp 10250 from "+cp),
		reportEntry("nodes_to_control_plane", nodes, true, "egress tcp 443 to "+cp, "admitted by "+nodes+" egress all traffic to 0.0.0.0/0"),
	)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{{
			Config: connectivityClass(cluster, n, fmt.Sprintf(`{
    control_plane_security_group_ids = [%q]
    checks                           = "error"
  }`, cp)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), want),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), want),
				statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity").AtMapKey("checks"), knownvalue.StringExact("error")),
			},
			Check: checkManifestValid(nodeClassRes),
		}},
	})
}

// Without the self-reference the class warns (and fails with checks = "error"); the missing
// control-plane ports are named; rules added or removed through the SDK change the report at
// the next plan, as an in-place update.
func TestAccNodeClass_connectivityFindings(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{NoNodeToNode: true})
	nodes, cp := n.SecurityGroups[0].ID, n.SecurityGroups[1].ID
	block := func(checks string) string {
		return connectivityClass(cluster, n, fmt.Sprintf(`{
    control_plane_security_group_ids = [%q]
    checks                           = %q
  }`, cp, checks))
	}
	self := acctest.Permission("-1", 0, 0, nodes)
	nodeToNodeFails := reportEntry("node_to_node", nodes, false, nodeToNodeRequired(nodes),
		"closed: tcp 1025-65535, tcp 53, udp 53. Pods, kubelet and DNS traffic between nodes would be dropped. "+
			"Fix: add an ingress rule to "+nodes+" allowing all traffic (protocol -1) from source "+nodes+" (a self-reference).")
	port443Fails := reportEntry("control_plane_to_nodes", nodes, false, "ingress tcp 443 from "+cp,
		"Fix: add an ingress rule to "+nodes+" allowing tcp 443 from source "+cp+".")
	port10250Fails := reportEntry("control_plane_to_nodes", nodes, false, "ingress tcp 10250 from "+cp,
		"Fix: add an ingress rule to "+nodes+" allowing tcp 10250 from source "+cp+".")
	port10250Passes := reportEntry("control_plane_to_nodes", nodes, true, "ingress tcp 10250 from "+cp,
		"admitted by "+nodes+" ingress tcp 10250 from "+cp)
	egressPasses := reportEntry("nodes_to_control_plane", nodes, true, "egress tcp 443 to "+cp, "admitted by "+nodes+" egress all traffic to 0.0.0.0/0")

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// Default checks (warn): the plan goes through and the report says what fails.
				Config: connectivityClass(cluster, n, fmt.Sprintf(`{ control_plane_security_group_ids = [%q] }`, cp)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"),
						report(nodeToNodeFails, port443Fails, port10250Fails, egressPasses)),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity").AtMapKey("checks"), knownvalue.StringExact("warn")),
				},
			},
			{
				// checks = "error": the same findings fail the plan, each naming group, rule and fix.
				Config:   block("error"),
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Nodes cannot reach each other.*` + words("node_to_node (security group "+nodes+")") +
					`.*` + words("Missing rule: ingress tcp 1025-65535, tcp 53, udp 53 from "+nodes+".") +
					`.*` + words("Fix: add an ingress rule to "+nodes+" allowing all traffic (protocol -1) from source "+nodes+" (a self-reference).") +
					`.*The control plane cannot reach the nodes.*` + words("Missing rule: ingress tcp 443 from "+cp+".") +
					`.*` + words("Missing rule: ingress tcp 10250 from "+cp+".")),
			},
			{
				// Port 10250 opened through the SDK: the next plan is an update that clears it.
				PreConfig: func() { acctest.AuthorizeIngress(t, nodes, acctest.Permission("tcp", 10250, 10250, cp)) },
				Config:    block("warn"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"),
						report(nodeToNodeFails, port443Fails, port10250Passes, egressPasses)),
				}},
			},
			{
				// The self-reference and 443 added: everything passes, even with checks = "error".
				PreConfig: func() {
					acctest.AuthorizeIngress(t, nodes, self)
					acctest.AuthorizeIngress(t, nodes, acctest.Permission("tcp", 443, 443, cp))
				},
				Config: block("error"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report").AtSliceIndex(0),
						reportEntry("node_to_node", nodes, true, nodeToNodeRequired(nodes), "admitted by "+nodes+" ingress all traffic from "+nodes+" (self)")),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report").AtSliceIndex(1).AtMapKey("passed"), knownvalue.Bool(true)),
				}},
			},
			{
				// Drift: the self-reference is removed outside Terraform; the next plan shows it.
				PreConfig: func() { acctest.RevokeIngress(t, nodes, self) },
				Config:    block("warn"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report").AtSliceIndex(0).AtMapKey("passed"), knownvalue.Bool(false)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report").AtSliceIndex(0).AtMapKey("passed"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report").AtSliceIndex(1).AtMapKey("passed"), knownvalue.Bool(true)),
				},
			},
		},
	})
}

// Node-to-node through a VPC CIDR rule (the minimum ports, no all-traffic rule), control-plane
// groups by selector terms, and the egress check once the default egress is gone.
func TestAccNodeClass_connectivityEgressAndCIDR(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{NoNodeToNode: true})
	nodes, cp := n.SecurityGroups[0].ID, n.SecurityGroups[1].ID
	vpcCIDR := netip.MustParsePrefix(n.Subnets[0].CIDR)
	vpcCIDR = netip.PrefixFrom(vpcCIDR.Addr(), 16).Masked() // the fixture's VPC is the /16 around its subnets
	acctest.AuthorizeIngress(t, nodes,
		acctest.Permission("tcp", 1025, 65535, vpcCIDR.String()),
		acctest.Permission("tcp", 53, 53, vpcCIDR.String()),
		acctest.Permission("udp", 53, 53, vpcCIDR.String()),
		acctest.Permission("tcp", 0, 65535, cp))
	acctest.RevokeEgress(t, nodes, acctest.Permission("-1", 0, 0, "0.0.0.0/0"))

	cfg := func(checks string) string {
		return connectivityClass(cluster, n, fmt.Sprintf(`{
    control_plane_security_group_selector_terms = [{ tags = { %q = %q, role = "control" } }]
    checks = %q
  }`, acctest.TagKey, n.ID, checks))
	}
	v := vpcCIDR.String()
	// The control plane's tcp 0-65535 does not count: it is not traffic from the nodes.
	nodeToNode := reportEntry("node_to_node", nodes, true, nodeToNodeRequired(nodes), fmt.Sprintf(
		"admitted by %[1]s ingress tcp 1025-65535 from %[2]s; %[1]s ingress tcp 53 from %[2]s; %[1]s ingress udp 53 from %[2]s",
		nodes, v))
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config: cfg("warn"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), report(
						reportEntry("node_to_node", nodes, true, nodeToNodeRequired(nodes), "admitted by "),
						reportEntry("control_plane_to_nodes", nodes, true, "ingress tcp 443 from "+cp, "admitted by "+nodes+" ingress tcp 0-65535 from "+cp),
						reportEntry("control_plane_to_nodes", nodes, true, "ingress tcp 10250 from "+cp, "admitted by "+nodes+" ingress tcp 0-65535 from "+cp),
						reportEntry("nodes_to_control_plane", nodes, false, "egress tcp 443 to "+cp,
							"no egress rule on the node security groups ("+nodes+") allows tcp 443 to the control plane ("+cp+")"),
					)),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report").AtSliceIndex(0), nodeToNode),
				},
			},
			{
				Config:      cfg("error"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)The nodes cannot reach the control plane.*` + words("Missing rule: egress tcp 443 to "+cp+".")),
			},
			{
				PreConfig: func() { acctest.AuthorizeEgress(t, nodes, acctest.Permission("tcp", 443, 443, cp)) },
				Config:    cfg("error"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report").AtSliceIndex(3),
						reportEntry("nodes_to_control_plane", nodes, true, "egress tcp 443 to "+cp, "admitted by "+nodes+" egress tcp 443 to "+cp)),
				}},
			},
		},
	})
}

// Without `connectivity` the default checks run, and with checks = "off" the report is null;
// the rules come with the node groups' DescribeSecurityGroups (no call of their own:
// TestFindSecurityGroupRulesOfDescribedGroups). Bad settings fail before any API call.
func TestAccNodeClass_connectivityCallsAndErrors(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{NoNodeToNode: true})
	cp := n.SecurityGroups[1].ID
	rec := &callRecorder{}
	nullReport := []statecheck.StateCheck{statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), knownvalue.Null())}
	nodes := n.SecurityGroups[0].ID
	// Without control-plane groups: node to node, and a way out (the group's default egress).
	wayOut := reportEntry("nodes_egress", nodes, true, "egress tcp 443 from "+nodes+" to any destination", "admitted by "+nodes+" egress all traffic to 0.0.0.0/0")
	nodeToNodeOnly := []statecheck.StateCheck{statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), report(
		reportEntry("node_to_node", nodes, false, nodeToNodeRequired(nodes), "closed: "), wayOut))}

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		Steps: []resource.TestStep{
			{
				// Off from the start: no report.
				Config:            connectivityClass(cluster, n, `{ checks = "off" }`),
				ConfigStateChecks: nullReport,
			},
			{
				// Without the block node to node runs by default (a warning here: the group has no such rule).
				Config:            connectivityClass(cluster, n, ""),
				ConfigStateChecks: nodeToNodeOnly,
			},
			{
				Config:            connectivityClass(cluster, n, fmt.Sprintf(`{ control_plane_security_group_ids = [%q], checks = "off" }`, cp)),
				ConfigStateChecks: nullReport,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate), // the connectivity input changed
				}},
			},
			{
				Config: connectivityClass(cluster, n, fmt.Sprintf(`{ control_plane_security_group_ids = [%q] }`, cp)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), knownvalue.ListSizeExact(4)),
				},
			},
			{
				// Control-plane groups are optional: node to node and the way out.
				Config:            connectivityClass(cluster, n, `{}`),
				ConfigStateChecks: nodeToNodeOnly,
			},
			{
				// The group's egress removed: with no control-plane groups to check against, the
				// nodes are still told they have no way out (an error with checks = "error").
				PreConfig:   func() { acctest.RevokeEgress(t, nodes, acctest.Permission("-1", 0, 0, "0.0.0.0/0")) },
				Config:      connectivityClass(cluster, n, `{ checks = "error" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)The nodes have no way out.*` + words("Missing rule: egress tcp 443 from "+nodes+".")),
			},
			{
				Config: connectivityClass(cluster, n, `{}`),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), report(
					reportEntry("node_to_node", nodes, false, nodeToNodeRequired(nodes), "closed: "),
					reportEntry("nodes_egress", nodes, false, "egress tcp 443 from "+nodes+" to any destination",
						"no egress rule on the node security groups ("+nodes+") allows tcp 443 to any destination")))},
			},
			{
				Config:      connectivityClass(cluster, n, `{ control_plane_security_group_ids = ["sg-0123456789abcdef0"], checks = "error" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Control-plane security group not found.*` + words("security group sg-0123456789abcdef0 does not exist")),
			},
			{
				Config:      connectivityClass(cluster, n, fmt.Sprintf(`{ control_plane_security_group_selector_terms = [{ tags = { %q = "nothing" } }], checks = "error" }`, acctest.TagKey)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)No control-plane security group matched`),
			},
			{
				Config:      connectivityClass(cluster, n, `{ control_plane_security_group_ids = ["cluster-sg"] }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid control-plane security group id.*` + words(`"cluster-sg" is not a security group id`)),
			},
			{
				Config:      connectivityClass(cluster, n, `{ control_plane_security_group_selector_terms = [{ id = "sg-1", name = "x" }] }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid control-plane security group selector term.*` + words("`id` is mutually exclusive")),
			},
			{
				Config:      connectivityClass(cluster, n, `{ checks = "strict" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)connectivity.checks.*` + words(`value must be one of`)),
			},
			{
				// Turning the checks off drops the report (and the destroy at the end needs a valid config).
				Config: connectivityClass(cluster, n, `{ checks = "off" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), knownvalue.Null()),
				}},
			},
		},
	})
}

// Control-plane ids known only at apply: the report is unknown in the plan, then known.
func TestAccNodeClass_connectivityUnknownInputs(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{NoNodeToNode: true})
	cfg := providerConfig(cluster) + fmt.Sprintf(`
resource "terraform_data" "cp" {
  input = %q
}

resource "karpenter_node_class" "test" {
  name                          = "default"
  role                          = "KarpenterNodeRole"
  ami_selector_terms            = [{ alias = "al2023@latest" }]
  subnet_selector_terms         = [{ id = %q }]
  security_group_selector_terms = [{ id = %q }]
  connectivity                  = { control_plane_security_group_ids = [terraform_data.cp.output] }
}

resource "karpenter_node_class" "plain" {
  name                          = "plain"
  role                          = "KarpenterNodeRole"
  ami_selector_terms            = [{ alias = "al2023@latest" }]
  subnet_selector_terms         = [{ id = terraform_data.cp.output == "" ? "" : %q }]
  security_group_selector_terms = [{ id = %q }]
}
`, n.SecurityGroups[1].ID, n.Subnets[0].ID, n.SecurityGroups[0].ID, n.Subnets[0].ID, n.SecurityGroups[0].ID)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("connectivity_report")),
				// Unknown inputs and no connectivity block: node to node runs by default, once the
				// selectors are known.
				plancheck.ExpectUnknownValue("karpenter_node_class.plain", tfjsonpath.New("connectivity_report")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("connectivity_report"), knownvalue.ListSizeExact(4)),
				statecheck.ExpectKnownValue("karpenter_node_class.plain", tfjsonpath.New("connectivity_report"), knownvalue.ListSizeExact(2)), // node to node and the way out
			},
		}},
	})
}

// --- unit tests of the plan-time glue (no emulator) ------------------------------------------

// connEC2 is the shared EC2 fake with security groups (id -> VPC) and their rules.
func connEC2(groups map[string]string, rules ...ec2types.SecurityGroupRule) *awsfake.EC2 {
	f := &awsfake.EC2{SecurityGroupRules: rules}
	for _, id := range slices.Sorted(maps.Keys(groups)) {
		f.SecurityGroups = append(f.SecurityGroups, ec2types.SecurityGroup{GroupId: aws.String(id), VpcId: aws.String(groups[id]), GroupName: aws.String(id)})
	}
	return f
}

func fakeRule(group string, egress bool, proto string, from, to int32, ref, cidr string) ec2types.SecurityGroupRule {
	r := ec2types.SecurityGroupRule{GroupId: aws.String(group), IsEgress: aws.Bool(egress), IpProtocol: aws.String(proto),
		FromPort: aws.Int32(from), ToPort: aws.Int32(to), SecurityGroupRuleId: aws.String(fmt.Sprintf("sgr-%s-%v-%s-%d", group, egress, proto, from))}
	if ref != "" {
		r.ReferencedGroupInfo = &ec2types.ReferencedSecurityGroup{GroupId: aws.String(ref)}
	}
	if cidr != "" {
		r.CidrIpv4 = aws.String(cidr)
	}
	return r
}

func connResolved() nodeclass.Resolved {
	return nodeclass.Resolved{
		VPCID:          "vpc-1",
		Subnets:        []discovery.Subnet{{ID: "subnet-a", VPCID: "vpc-1", CIDRBlock: "10.0.0.0/24"}, {ID: "subnet-b", VPCID: "vpc-1", CIDRBlock: "10.0.1.0/24"}},
		SecurityGroups: []discovery.SecurityGroup{{ID: "sg-node", VPCID: "vpc-1"}},
	}
}

// runConnectivity runs the checks on the shared EC2 fake through the provider's EC2 client, as
// planner.Class does, and reports their findings as ModifyPlan does.
func runConnectivity(t *testing.T, f *awsfake.EC2, c *nodeclass.ConnectivityConfig) (report []nodeclass.ConnectivityCheckOutput, diags diag.Diagnostics) {
	t.Helper()
	client := &awsclient.Client{EC2: f, Calls: awsclient.NewCallCounter()}
	checks, errs, warnings := nodeclass.CheckConnectivity(context.Background(), client.Discovery(), c.Setting(), connResolved())
	addFindings(&diags, errs, warnings)
	return nodeclass.ConnectivityReport(checks), diags
}

func TestConnectivityReportDiagnostics(t *testing.T) {
	f := connEC2(map[string]string{"sg-node": "vpc-1", "sg-cp": "vpc-1"},
		fakeRule("sg-node", false, "tcp", 443, 443, "sg-cp", ""),
		fakeRule("sg-node", true, "-1", -1, -1, "", "0.0.0.0/0"),
	)
	for _, mode := range []string{nodeclass.ChecksWarn, nodeclass.ChecksError} {
		t.Run(mode, func(t *testing.T) {
			v, diags := runConnectivity(t, f, &nodeclass.ConnectivityConfig{ControlPlaneSecurityGroupIDs: []string{"sg-cp"}, Checks: mode})
			entries := v
			if len(entries) != 4 {
				t.Fatalf("report %v", v)
			}
			if entries[0].Passed || !entries[1].Passed || entries[2].Passed || !entries[3].Passed {
				t.Errorf("passed flags: %+v", entries)
			}
			if len(diags) != 2 {
				t.Fatalf("want 2 findings (node to node, 10250), got %v", diags)
			}
			wantSeverity := diag.SeverityWarning
			if mode == nodeclass.ChecksError {
				wantSeverity = diag.SeverityError
			}
			wantPaths := []path.Path{path.Root("security_group_selector_terms"), path.Root("connectivity")}
			wantText := [][]string{
				{"node_to_node (security group sg-node)", "Missing rule: ingress tcp 1025-65535, tcp 53, udp 53 from sg-node.",
					"Fix: add an ingress rule to sg-node allowing all traffic (protocol -1) from source sg-node (a self-reference).",
					`connectivity.checks = "` + mode + `"`},
				{"control_plane_to_nodes (security group sg-node)", "Missing rule: ingress tcp 10250 from sg-cp.",
					"Fix: add an ingress rule to sg-node allowing tcp 10250 from source sg-cp."},
			}
			for i, d := range diags {
				withPath, ok := d.(diag.DiagnosticWithPath)
				if d.Severity() != wantSeverity || !ok || !withPath.Path().Equal(wantPaths[i]) {
					t.Errorf("diag %d: severity %v path %v, want %v %v", i, d.Severity(), pathOf(d), wantSeverity, wantPaths[i])
				}
				for _, w := range wantText[i] {
					if !strings.Contains(d.Detail(), w) {
						t.Errorf("diag %d detail %q lacks %q", i, d.Detail(), w)
					}
				}
			}
		})
	}
}

func pathOf(d diag.Diagnostic) path.Path {
	if p, ok := d.(diag.DiagnosticWithPath); ok {
		return p.Path()
	}
	return path.Empty()
}

// Off reads nothing; unset runs node to node, reading the node groups' rules once (the client
// here has no discovery cache, so the groups are described for them).
func TestConnectivityReportOffAndUnset(t *testing.T) {
	f := connEC2(map[string]string{"sg-cp": "vpc-1", "sg-node": "vpc-1"}, fakeRule("sg-node", true, "-1", -1, -1, "", "0.0.0.0/0"))
	v, diags := runConnectivity(t, f, &nodeclass.ConnectivityConfig{ControlPlaneSecurityGroupIDs: []string{"sg-cp"}, Checks: nodeclass.ChecksOff})
	if v != nil || diags.HasError() || len(diags) != 0 || f.Calls("DescribeSecurityGroups") != 0 {
		t.Errorf("off: report %v, diags %v, rule calls %d; want null, none, 0", v, diags, f.Calls("DescribeSecurityGroups"))
	}
	// Unset: node to node (and the way out, which the default egress gives) runs, as a warning on
	// the node groups' selector terms.
	v, diags = runConnectivity(t, f, nil)
	if len(v) != 2 || diags.HasError() || len(diags) != 1 || f.Calls("DescribeSecurityGroups") != 1 ||
		!pathOf(diags[0]).Equal(path.Root("security_group_selector_terms")) || diags[0].Summary() != "Nodes cannot reach each other" {
		t.Errorf("unset: report %v, diags %v, rule calls %d; want node to node only, one warning, 1", v, diags, f.Calls("DescribeSecurityGroups"))
	}
}

func TestConnectivityReportMissingControlPlane(t *testing.T) {
	f := connEC2(map[string]string{"sg-node": "vpc-1"}, fakeRule("sg-node", false, "-1", -1, -1, "sg-node", ""), fakeRule("sg-node", true, "-1", -1, -1, "", "0.0.0.0/0"))
	v, diags := runConnectivity(t, f, &nodeclass.ConnectivityConfig{ControlPlaneSecurityGroupIDs: []string{"sg-gone"}, Checks: nodeclass.ChecksWarn})
	if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning ||
		!pathOf(diags[0]).Equal(path.Root("connectivity").AtName("control_plane_security_group_ids").AtListIndex(0)) ||
		!strings.Contains(diags[0].Detail(), "sg-gone does not exist") {
		t.Fatalf("diags = %v", diags)
	}
	if len(v) != 2 || v[1].Check != "nodes_egress" || !v[1].Passed {
		t.Errorf("without a control plane node to node and the way out run: %v", v)
	}
}

func TestConnectivityReportAPIError(t *testing.T) {
	f := connEC2(map[string]string{})
	f.Fail = map[string]error{"DescribeSecurityGroups": errors.New("UnauthorizedOperation: You are not authorized")}
	v, diags := runConnectivity(t, f, &nodeclass.ConnectivityConfig{Checks: nodeclass.ChecksWarn})
	if !diags.HasError() || v != nil || !strings.Contains(diags[0].Detail(), "ec2:DescribeSecurityGroups") {
		t.Errorf("report %v, diags %v", v, diags)
	}
	// Checks nobody asked for do not fail the plan: a warning that says how to turn them off.
	v, diags = runConnectivity(t, f, nil)
	if diags.HasError() || len(diags) != 1 || v != nil || diags[0].Summary() != "Security-group checks skipped" ||
		!strings.Contains(diags[0].Detail(), `connectivity = { checks = "off" }`) {
		t.Errorf("unset: report %v, diags %v", v, diags)
	}
}
