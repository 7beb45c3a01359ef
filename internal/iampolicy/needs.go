package iampolicy

// Need IDs, stable names for a report attribute.
const (
	// NeedAssignPodIPs: the VPC CNI gives pods IP addresses with the node's credentials.
	NeedAssignPodIPs = "assign_pod_ips"
	// NeedRegister: the node registers with the cluster.
	NeedRegister = "register_with_cluster"
	// NeedPullImages: the node pulls images from ECR.
	NeedPullImages = "pull_images"
)

const (
	defaultPartition    = "aws"
	managedPolicyPrefix = ":iam::aws:policy/"
)

// Need is one thing the node does with its role's credentials, and the IAM actions it takes.
type Need struct {
	// ID is the need's stable name (NeedAssignPodIPs, NeedRegister, NeedPullImages).
	ID string
	// Name completes "Node role cannot ...", e.g. "assign pod IPs".
	Name string
	// Actions are the actions the need takes; all of them must be allowed.
	Actions []string
	// ManagedPolicies are the AWS managed policies (names) that grant Actions, preferred first.
	ManagedPolicies []string
	// NotInManagedPolicies are the Actions that no policy of ManagedPolicies grants (they must be
	// granted inline or by a customer managed policy).
	NotInManagedPolicies []string
	// Consequence is what happens to the node when the need is not met.
	Consequence string
}

// cniIPv4Actions are what the VPC CNI (aws-node) calls to give pods IPv4 addresses: the content
// of the AWS managed policy AmazonEKS_CNI_Policy, which grants ec2:CreateTags on
// network-interface ARNs only (newer versions of the policy also grant ec2:DescribeSubnets,
// which is not checked).
var cniIPv4Actions = []string{
	"ec2:AssignPrivateIpAddresses",
	"ec2:AttachNetworkInterface",
	"ec2:CreateNetworkInterface",
	"ec2:DeleteNetworkInterface",
	"ec2:DescribeInstances",
	"ec2:DescribeTags",
	"ec2:DescribeNetworkInterfaces",
	"ec2:DescribeInstanceTypes",
	"ec2:DetachNetworkInterface",
	"ec2:ModifyNetworkInterfaceAttribute",
	"ec2:UnassignPrivateIpAddresses",
	"ec2:CreateTags",
}

// cniIPv6Actions are what the VPC CNI also calls in an IPv6 cluster. AmazonEKS_CNI_Policy does
// not grant them: AWS documents a customer managed policy (the "AmazonEKS_CNI_IPv6_Policy" of the
// EKS user guide) for them.
var cniIPv6Actions = []string{
	"ec2:AssignIpv6Addresses",
}

// registerActions are what the kubelet and its AWS credential and cloud-provider code call to
// register the instance as a Kubernetes node: the content of the AWS managed policy
// AmazonEKSWorkerNodePolicy (its eks-auth:AssumeRoleForPodIdentity, for the EKS Pod Identity
// agent, is left out).
var registerActions = []string{
	"ec2:DescribeInstances",
	"ec2:DescribeInstanceTypes",
	"ec2:DescribeRouteTables",
	"ec2:DescribeSecurityGroups",
	"ec2:DescribeSubnets",
	"ec2:DescribeVolumes",
	"ec2:DescribeVolumesModifications",
	"ec2:DescribeVpcs",
	"eks:DescribeCluster",
}

// pullActions are what the kubelet's ECR credential provider and the container runtime call to
// pull an image from ECR: the content of the AWS managed policy
// AmazonEC2ContainerRegistryPullOnly, and part of AmazonEC2ContainerRegistryReadOnly.
var pullActions = []string{
	"ecr:GetAuthorizationToken",
	"ecr:BatchCheckLayerAvailability",
	"ecr:GetDownloadUrlForLayer",
	"ecr:BatchGetImage",
}

// Needs returns the needs that apply to the node role with these options, in a fixed order:
// assign pod IPs (unless the CNI has its own role), register with the cluster, pull images.
// The slices are fresh copies.
func Needs(opts Options) []Need {
	var out []Need
	if !opts.CNIHasOwnRole {
		out = append(out, cniNeed(opts.IPv6))
	}
	return append(out,
		Need{
			ID:              NeedRegister,
			Name:            "register with the cluster",
			Actions:         clone(registerActions),
			ManagedPolicies: []string{"AmazonEKSWorkerNodePolicy"},
			Consequence:     "the node launches but never registers as a Kubernetes node",
		},
		Need{
			ID:              NeedPullImages,
			Name:            "pull images",
			Actions:         clone(pullActions),
			ManagedPolicies: []string{"AmazonEC2ContainerRegistryReadOnly", "AmazonEC2ContainerRegistryPullOnly"},
			Consequence:     "pods stay ImagePullBackOff for images in ECR",
		},
	)
}

// cniNeed is the "assign pod IPs" need, with the IPv6 actions when ipv6 is set.
func cniNeed(ipv6 bool) Need {
	n := Need{
		ID:              NeedAssignPodIPs,
		Name:            "assign pod IPs",
		Actions:         clone(cniIPv4Actions),
		ManagedPolicies: []string{"AmazonEKS_CNI_Policy"},
		Consequence:     "the node joins, but every pod stays ContainerCreating without an IP",
	}
	if ipv6 {
		n.Actions = append(n.Actions, cniIPv6Actions...)
		n.NotInManagedPolicies = clone(cniIPv6Actions)
	}
	return n
}

// ManagedPolicyARN is the ARN of the AWS managed policy name in the partition ("" is "aws").
func ManagedPolicyARN(partition, name string) string {
	if partition == "" {
		partition = defaultPartition
	}
	return "arn:" + partition + managedPolicyPrefix + name
}

func clone(s []string) []string { return append([]string(nil), s...) }
