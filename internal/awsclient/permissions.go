package awsclient

import "strings"

// Capability is a part of the provider a user enables, with the IAM permissions it needs.
type Capability struct {
	Name, Title, When string
}

// Capabilities, in the order the policy documents and the guide list them.
var Capabilities = []Capability{
	{"plan", "Plan node classes and pools", "every plan: selectors, images, the instance-type catalog, ownership checks"},
	{"prices", "Prices and launch order", "Karpenter's launch order and costs; without them the plan warns and falls back as Karpenter does"},
	{"node-role-check", "Node-role readiness", "the class's node-role check; without them it warns"},
	{"prefix-blocks", "Prefix delegation /28 blocks", "pools whose node class has `networking.prefix_delegation`: the free /28 blocks of the subnets they launch in (without them the plan warns)"},
	{"instance-profiles", "Instance profiles for static pools", "a class with `role` and `instance_profile_for_static_pools = true`: the provider creates its instance profile for the pools it launches itself"},
	{"static-pools", "Static pools", "pools with `replicas`: launch templates and instances through EC2 Fleet"},
	{"capacity-reservations", "Capacity reservations", "`capacity_reservation_selector_terms`, the `karpenter_capacity_reservations` data source"},
	{"placement-groups", "Placement groups", "`placement_group_selector`"},
	{"cluster-lookup", "Cluster lookup", "`lookup_cluster = true`"},
	{"auto-mode-access-entries", "Auto Mode node access entries", "with `lookup_cluster = true`, an EKS Auto Mode NodeClass with `role`: the role's EKS access entry and its access policies (without them the plan warns)"},
	{"interruption-queue", "Interruption queue check", "with `kubernetes` access, a controller with `INTERRUPTION_QUEUE`: the queue and the EventBridge rules that feed it (without them the plan warns)"},
	{"controller-role-check", "Controller role check", "with `kubernetes` access: the controller's EKS Pod Identity association, when its service account has no IRSA annotation; the role's policies are read with the node-role check's actions (without them the plan warns)"},
	{"identity", "Caller identity", "credential validation and the account id (skip with `skip_credentials_validation` and `skip_requesting_account_id`)"},
}

// Permission is one IAM action the provider's code calls (or that a call needs, Implied), in
// the capability that needs it. The resources and conditions it is granted on are the
// Statements of the capability that name it.
type Permission struct {
	Capability string
	Action     string
	// Implied is set for an action no API call of the provider names, which one of its calls
	// needs (CreateFleet launches with ec2:RunInstances and tags with ec2:CreateTags).
	Implied string
}

// Permissions are every IAM action the provider needs.
var Permissions = []Permission{
	{Capability: "plan", Action: "ec2:DescribeSubnets"},
	{Capability: "plan", Action: "ec2:DescribeSecurityGroups"},
	{Capability: "plan", Action: "ec2:DescribeImages"},
	{Capability: "plan", Action: "ec2:DescribeInstanceTypes"},
	{Capability: "plan", Action: "ec2:DescribeInstanceTypeOfferings"},
	{Capability: "plan", Action: "ec2:DescribeLaunchTemplates"},
	{Capability: "plan", Action: "ec2:DescribeLaunchTemplateVersions"},
	{Capability: "plan", Action: "ec2:DescribeInstances"},
	{Capability: "plan", Action: "ssm:GetParameter"},
	{Capability: "plan", Action: "iam:GetInstanceProfile"},
	{Capability: "plan", Action: "iam:GetRole"},
	{Capability: "prices", Action: "pricing:GetProducts"},
	{Capability: "prices", Action: "ec2:DescribeSpotPriceHistory"},
	{Capability: "node-role-check", Action: "iam:ListAttachedRolePolicies"},
	{Capability: "node-role-check", Action: "iam:ListRolePolicies"},
	{Capability: "node-role-check", Action: "iam:GetRolePolicy"},
	{Capability: "node-role-check", Action: "iam:GetPolicy"},
	{Capability: "node-role-check", Action: "iam:GetPolicyVersion"},
	{Capability: "prefix-blocks", Action: "ec2:DescribeNetworkInterfaces"},
	{Capability: "prefix-blocks", Action: "ec2:GetSubnetCidrReservations"},
	{Capability: "instance-profiles", Action: "iam:CreateInstanceProfile"},
	{Capability: "instance-profiles", Action: "iam:TagInstanceProfile"},
	{Capability: "instance-profiles", Action: "iam:AddRoleToInstanceProfile"},
	{Capability: "instance-profiles", Action: "iam:RemoveRoleFromInstanceProfile"},
	{Capability: "instance-profiles", Action: "iam:DeleteInstanceProfile"},
	{Capability: "instance-profiles", Action: "iam:PassRole",
		Implied: "AddRoleToInstanceProfile, and CreateFleet with a template naming the profile, pass the node role to EC2"},
	{Capability: "static-pools", Action: "ec2:CreateLaunchTemplate"},
	{Capability: "static-pools", Action: "ec2:CreateLaunchTemplateVersion"},
	{Capability: "static-pools", Action: "ec2:ModifyLaunchTemplate"},
	{Capability: "static-pools", Action: "ec2:DeleteLaunchTemplate"},
	{Capability: "static-pools", Action: "ec2:CreateFleet"},
	{Capability: "static-pools", Action: "ec2:RunInstances", Implied: "CreateFleet (type instant) launches with RunInstances"},
	{Capability: "static-pools", Action: "ec2:CreateTags", Implied: "CreateLaunchTemplate and CreateFleet tag what they create"},
	{Capability: "static-pools", Action: "ec2:TerminateInstances"},
	{Capability: "capacity-reservations", Action: "ec2:DescribeCapacityReservations"},
	{Capability: "placement-groups", Action: "ec2:DescribePlacementGroups"},
	{Capability: "cluster-lookup", Action: "eks:DescribeCluster"},
	{Capability: "auto-mode-access-entries", Action: "eks:ListAccessEntries"},
	{Capability: "auto-mode-access-entries", Action: "eks:DescribeAccessEntry"},
	{Capability: "auto-mode-access-entries", Action: "eks:ListAssociatedAccessPolicies"},
	{Capability: "interruption-queue", Action: "sqs:GetQueueUrl"},
	{Capability: "interruption-queue", Action: "sqs:GetQueueAttributes"},
	{Capability: "interruption-queue", Action: "events:ListRuleNamesByTarget"},
	{Capability: "interruption-queue", Action: "events:DescribeRule"},
	{Capability: "controller-role-check", Action: "eks:ListPodIdentityAssociations"},
	{Capability: "controller-role-check", Action: "eks:DescribePodIdentityAssociation"},
	{Capability: "identity", Action: "sts:GetCallerIdentity"},
}

// ActionOf is the IAM action of an operation as CallCounter names it ("EC2.DescribeSubnets" →
// "ec2:DescribeSubnets").
func ActionOf(op string) string {
	service, name, _ := strings.Cut(op, ".")
	prefix := strings.ToLower(strings.ReplaceAll(service, " ", ""))
	if prefix == "eventbridge" { // IAM names EventBridge's actions events:
		prefix = "events"
	}
	return prefix + ":" + name
}
