package awsclient

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// Placeholders of the published policy documents, filled by examples/iam's module (or by Fill).
// The list placeholders stand alone as an element of a JSON array and become one element per
// value; an empty list drops the element (and a statement left with no resource).
const (
	PhPartition    = "${Partition}"
	PhAccountID    = "${AccountId}"
	PhRegion       = "${Region}"
	PhClusterName  = "${ClusterName}"
	PhOwnerIDs     = "${OwnerId}"          // list: owner id patterns (StringLike), "*" for any
	PhNodeRoleARNs = "${NodeRoleArns}"     // list: the roles the classes pass to EC2
	PhSSMParamARNs = "${SsmParameterArns}" // list: the parameters the classes' ssm_parameter terms name
)

// listPlaceholders are the placeholders that stand for a list of values.
var listPlaceholders = []string{PhOwnerIDs, PhNodeRoleARNs, PhSSMParamARNs}

// Statement is one statement of a capability's published policy: its actions on the narrowest
// resources and under the narrowest conditions the API allows, with placeholders.
type Statement struct {
	Capability string
	Sid        string
	Actions    []string
	Resources  []string
	// Condition is operator → key → values, every value list written as a JSON array.
	Condition map[string]map[string][]string
	// Scope says in words which resources the statement reaches (the IAM guide's table).
	Scope string
}

// arnOf is an ARN template of the provider's region and account.
func arnOf(service, resource string) string {
	return ARN(PhPartition, service, PhRegion, PhAccountID, resource)
}

// iamARN is an IAM ARN template of the account (IAM is global: no region).
func iamARN(resource string) string { return ARN(PhPartition, "iam", "", PhAccountID, resource) }

var (
	profileARN        = iamARN("instance-profile" + nodeclass.InstanceProfilePath + "*")
	launchTemplateARN = arnOf("ec2", "launch-template/*")
	instanceARN       = arnOf("ec2", "instance/*")
	volumeARN         = arnOf("ec2", "volume/*")
	interfaceARN      = arnOf("ec2", "network-interface/*")
	clusterARN        = arnOf("eks", "cluster/"+PhClusterName)
)

// ProviderCreateActions are the EC2 calls that create (and tag) the provider's objects: the
// values ec2:CreateAction may take when it tags.
var ProviderCreateActions = []string{"CreateLaunchTemplate", "CreateFleet", "RunInstances"}

// ec2Owned is the condition on the tags the provider puts on a static pool's launch templates
// and instances (launchplan's ownership tags): the cluster, the provider, and an owner id of
// PhOwnerIDs. kind is "aws:RequestTag" for a create, "aws:ResourceTag" for an existing object.
func ec2Owned(kind string) map[string]map[string][]string {
	return map[string]map[string][]string{
		"StringEquals": {
			kind + "/" + launchplan.TagCluster:   {PhClusterName},
			kind + "/" + launchplan.TagManagedBy: {launchplan.ManagedBy},
		},
		"StringLike": {kind + "/" + launchplan.TagOwner: {PhOwnerIDs}},
	}
}

// profileOwned is the same for the instance profiles of classes with `role`
// (nodeclass.InstanceProfileTags): Karpenter's cluster tag, the provider, an owner id.
func profileOwned(kind string) map[string]map[string][]string {
	return map[string]map[string][]string{
		"StringEquals": {
			kind + "/kubernetes.io/cluster/" + PhClusterName: {"owned"},
			kind + "/" + nodeclass.TagManagedBy:              {nodeclass.ManagedBy},
		},
		"StringLike": {kind + "/" + nodeclass.TagOwner: {PhOwnerIDs}},
	}
}

func with(c map[string]map[string][]string, op, key string, values ...string) map[string]map[string][]string {
	out := map[string]map[string][]string{}
	for o, keys := range c {
		out[o] = map[string][]string{}
		for k, v := range keys {
			out[o][k] = v
		}
	}
	if out[op] == nil {
		out[op] = map[string][]string{}
	}
	out[op][key] = values
	return out
}

// Statements are the published policies, capability by capability, in document order.
var Statements = []Statement{
	{Capability: "plan", Sid: "PlanDescribe", Resources: []string{"*"},
		Actions: []string{"ec2:DescribeSubnets", "ec2:DescribeSecurityGroups", "ec2:DescribeImages", "ec2:DescribeInstanceTypes",
			"ec2:DescribeInstanceTypeOfferings", "ec2:DescribeLaunchTemplates", "ec2:DescribeLaunchTemplateVersions", "ec2:DescribeInstances"},
		Scope: "all (EC2 `Describe*` calls take no resource-level permissions)"},
	{Capability: "plan", Sid: "PlanParameters", Actions: []string{"ssm:GetParameter"},
		Resources: []string{
			ARN(PhPartition, "ssm", PhRegion, "", "parameter/aws/service/eks/optimized-ami/*"),
			ARN(PhPartition, "ssm", PhRegion, "", "parameter/aws/service/bottlerocket/*"),
			ARN(PhPartition, "ssm", PhRegion, "", "parameter/aws/service/ami-windows-latest/*"),
			PhSSMParamARNs,
		},
		Scope: "AWS's public AMI parameters of the region that `alias` terms read, and the parameters the classes' `ssm_parameter` terms name"},
	{Capability: "plan", Sid: "PlanIAMReads", Actions: []string{"iam:GetInstanceProfile", "iam:GetRole"},
		Resources: []string{iamARN("instance-profile/*"), iamARN("role/*")},
		Scope:     "the account's instance profiles and roles"},
	{Capability: "prices", Sid: "Prices", Actions: []string{"pricing:GetProducts", "ec2:DescribeSpotPriceHistory"}, Resources: []string{"*"},
		Scope: "all (neither takes resource-level permissions)"},
	{Capability: "node-role-check", Sid: "NodeRoleCheckRoles", Actions: []string{"iam:ListAttachedRolePolicies", "iam:ListRolePolicies", "iam:GetRolePolicy"},
		Resources: []string{iamARN("role/*")}, Scope: "the account's roles"},
	{Capability: "node-role-check", Sid: "NodeRoleCheckPolicies", Actions: []string{"iam:GetPolicy", "iam:GetPolicyVersion"},
		Resources: []string{ARN(PhPartition, "iam", "", "aws", "policy/*"), iamARN("policy/*")},
		Scope:     "AWS managed policies and the account's"},
	{Capability: "prefix-blocks", Sid: "PrefixBlocks", Actions: []string{"ec2:DescribeNetworkInterfaces", "ec2:GetSubnetCidrReservations"},
		Resources: []string{"*"}, Scope: "all (no resource-level permissions)"},
	{Capability: "instance-profiles", Sid: "CreateInstanceProfiles", Actions: []string{"iam:CreateInstanceProfile", "iam:TagInstanceProfile"},
		Resources: []string{profileARN}, Condition: profileOwned("aws:RequestTag"),
		Scope: "instance profiles under the provider's path `" + nodeclass.InstanceProfilePath + "`, created with its tags"},
	{Capability: "instance-profiles", Sid: "OwnedInstanceProfiles",
		Actions:   []string{"iam:TagInstanceProfile", "iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"},
		Resources: []string{profileARN}, Condition: profileOwned("aws:ResourceTag"),
		Scope: "instance profiles under `" + nodeclass.InstanceProfilePath + "` that carry the provider's tags"},
	{Capability: "instance-profiles", Sid: "PassNodeRoles", Actions: []string{"iam:PassRole"}, Resources: []string{PhNodeRoleARNs},
		Condition: map[string]map[string][]string{"StringEquals": {"iam:PassedToService": {"ec2.amazonaws.com", "ec2.amazonaws.com.cn"}}},
		Scope:     "the node roles only, passed to EC2 only"},
	{Capability: "static-pools", Sid: "CreateLaunchTemplates", Actions: []string{"ec2:CreateLaunchTemplate"},
		Resources: []string{launchTemplateARN}, Condition: ec2Owned("aws:RequestTag"),
		Scope: "launch templates of the region, created with the provider's tags"},
	{Capability: "static-pools", Sid: "OwnedLaunchTemplates",
		Actions:   []string{"ec2:CreateLaunchTemplateVersion", "ec2:ModifyLaunchTemplate", "ec2:DeleteLaunchTemplate"},
		Resources: []string{launchTemplateARN}, Condition: ec2Owned("aws:ResourceTag"),
		Scope: "launch templates that carry the provider's tags"},
	{Capability: "static-pools", Sid: "LaunchTaggedResources", Actions: []string{"ec2:CreateFleet", "ec2:RunInstances"},
		Resources: []string{instanceARN, volumeARN, interfaceARN}, Condition: ec2Owned("aws:RequestTag"),
		Scope: "the instances, volumes and network interfaces a launch creates, with the provider's tags"},
	{Capability: "static-pools", Sid: "LaunchFromOwnedTemplates", Actions: []string{"ec2:CreateFleet", "ec2:RunInstances"},
		Resources: []string{launchTemplateARN}, Condition: ec2Owned("aws:ResourceTag"),
		Scope: "the launch templates a launch uses, when they carry the provider's tags"},
	{Capability: "static-pools", Sid: "LaunchUses", Actions: []string{"ec2:CreateFleet", "ec2:RunInstances"},
		Resources: []string{arnOf("ec2", "subnet/*"), arnOf("ec2", "security-group/*"),
			ARN(PhPartition, "ec2", PhRegion, "", "image/*"), ARN(PhPartition, "ec2", PhRegion, "", "snapshot/*"),
			arnOf("ec2", "fleet/*"), arnOf("ec2", "spot-instances-request/*")},
		Scope: "what a launch uses but does not create (subnets, security groups, images, snapshots of the region), " +
			"and the instant fleet and spot requests it creates untagged"},
	{Capability: "static-pools", Sid: "TagOnCreate", Actions: []string{"ec2:CreateTags"},
		Resources: []string{launchTemplateARN, instanceARN, volumeARN, interfaceARN},
		Condition: with(ec2Owned("aws:RequestTag"), "StringEquals", "ec2:CreateAction", ProviderCreateActions...),
		Scope:     "tags written by the provider's creates only, with the provider's tags"},
	{Capability: "static-pools", Sid: "TerminateOwnedInstances", Actions: []string{"ec2:TerminateInstances"},
		Resources: []string{instanceARN}, Condition: ec2Owned("aws:ResourceTag"),
		Scope: "instances that carry the provider's tags"},
	{Capability: "capacity-reservations", Sid: "CapacityReservations", Actions: []string{"ec2:DescribeCapacityReservations"},
		Resources: []string{"*"}, Scope: "all (no resource-level permissions)"},
	{Capability: "placement-groups", Sid: "PlacementGroups", Actions: []string{"ec2:DescribePlacementGroups"},
		Resources: []string{"*"}, Scope: "all (no resource-level permissions)"},
	{Capability: "cluster-lookup", Sid: "ClusterLookup", Actions: []string{"eks:DescribeCluster"},
		Resources: []string{clusterARN}, Scope: "the cluster"},
	{Capability: "auto-mode-access-entries", Sid: "AutoModeAccessEntryList", Actions: []string{"eks:ListAccessEntries"},
		Resources: []string{clusterARN}, Scope: "the cluster"},
	{Capability: "auto-mode-access-entries", Sid: "AutoModeAccessEntries", Actions: []string{"eks:DescribeAccessEntry", "eks:ListAssociatedAccessPolicies"},
		Resources: []string{arnOf("eks", "access-entry/"+PhClusterName+"/*")}, Scope: "the cluster's access entries"},
	{Capability: "interruption-queue", Sid: "InterruptionQueue", Actions: []string{"sqs:GetQueueUrl", "sqs:GetQueueAttributes"},
		Resources: []string{arnOf("sqs", "*")}, Scope: "the region's queues"},
	{Capability: "interruption-queue", Sid: "InterruptionRules", Actions: []string{"events:DescribeRule"},
		Resources: []string{arnOf("events", "rule/*")}, Scope: "the region's rules"},
	{Capability: "interruption-queue", Sid: "InterruptionRuleTargets", Actions: []string{"events:ListRuleNamesByTarget"},
		Resources: []string{"*"}, Scope: "all (the call names a target, not a rule)"},
	{Capability: "controller-role-check", Sid: "ControllerPodIdentityList", Actions: []string{"eks:ListPodIdentityAssociations"},
		Resources: []string{clusterARN}, Scope: "the cluster"},
	{Capability: "controller-role-check", Sid: "ControllerPodIdentity", Actions: []string{"eks:DescribePodIdentityAssociation"},
		Resources: []string{arnOf("eks", "podidentityassociation/"+PhClusterName+"/*")}, Scope: "the cluster's associations"},
	{Capability: "identity", Sid: "Identity", Actions: []string{"sts:GetCallerIdentity"}, Resources: []string{"*"},
		Scope: "all (no resource-level permissions)"},
}

// jsonStatement is a statement as the policy documents write it.
type jsonStatement struct {
	Sid       string                         `json:"Sid"`
	Effect    string                         `json:"Effect"`
	Action    []string                       `json:"Action"`
	Resource  []string                       `json:"Resource"`
	Condition map[string]map[string][]string `json:"Condition,omitempty"`
}

type jsonPolicy struct {
	Version   string          `json:"Version"`
	Statement []jsonStatement `json:"Statement"`
}

// PolicyDocument is the IAM policy of one capability, as JSON with placeholders.
func PolicyDocument(capability string) ([]byte, error) {
	var doc jsonPolicy
	doc.Version = "2012-10-17"
	for _, s := range Statements {
		if s.Capability == capability {
			doc.Statement = append(doc.Statement, jsonStatement{Sid: s.Sid, Effect: "Allow", Action: s.Actions, Resource: s.Resources, Condition: s.Condition})
		}
	}
	if len(doc.Statement) == 0 {
		return nil, fmt.Errorf("capability %q has no statement", capability)
	}
	return json.MarshalIndent(doc, "", "  ")
}

// Values fill the placeholders of the published policies.
type Values struct {
	Partition, AccountID, Region, ClusterName string
	// OwnerIDs are the owner id patterns (StringLike: "*" is any owner id of the cluster's
	// provider-tagged objects; a state's owner_id values pin the policy to those resources).
	OwnerIDs []string
	// NodeRoleARNs are the roles the classes pass to EC2 (their `role`, or the role of their
	// `instance_profile`).
	NodeRoleARNs []string
	// SSMParameterARNs are the parameters the classes' ssm_parameter terms name.
	SSMParameterARNs []string
}

// Fill fills a published policy document's placeholders, as examples/iam's module does: a list
// placeholder becomes its values, an empty list drops it, and a statement left without
// resources is dropped.
func Fill(doc []byte, v Values) ([]byte, error) {
	var p jsonPolicy
	if err := json.Unmarshal(doc, &p); err != nil {
		return nil, err
	}
	scalar := strings.NewReplacer(PhPartition, v.Partition, PhAccountID, v.AccountID, PhRegion, v.Region, PhClusterName, v.ClusterName)
	lists := map[string][]string{PhOwnerIDs: v.OwnerIDs, PhNodeRoleARNs: v.NodeRoleARNs, PhSSMParamARNs: v.SSMParameterARNs}
	fill := func(in []string) []string {
		out := []string{}
		for _, s := range in {
			if slices.Contains(listPlaceholders, s) {
				for _, x := range lists[s] {
					out = append(out, scalar.Replace(x))
				}
				continue
			}
			out = append(out, scalar.Replace(s))
		}
		return out
	}
	var kept []jsonStatement
	for _, s := range p.Statement {
		s.Resource = fill(s.Resource)
		if len(s.Resource) == 0 {
			continue
		}
		if s.Condition != nil {
			c := map[string]map[string][]string{}
			for op, keys := range s.Condition {
				c[op] = map[string][]string{}
				for k, vals := range keys {
					c[op][scalar.Replace(k)] = fill(vals)
				}
			}
			s.Condition = c
		}
		kept = append(kept, s)
	}
	p.Statement = kept
	return json.MarshalIndent(p, "", "  ")
}
