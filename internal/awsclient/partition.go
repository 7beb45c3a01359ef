package awsclient

import "strings"

// The AWS partitions the provider knows by name; any other name an ARN carries is taken as it is.
const (
	PartitionAWS   = "aws"
	PartitionChina = "aws-cn"
	PartitionGov   = "aws-us-gov"
)

// PartitionOfARN is the partition field of an ARN ("arn:aws-cn:sts::…" → "aws-cn"), "" when s is
// not an ARN.
func PartitionOfARN(s string) string {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) < 3 || parts[0] != "arn" {
		return ""
	}
	return parts[1]
}

// PartitionOfRegion is the partition of a region, for when no ARN says it: cn-* regions are in
// aws-cn, us-gov-* in aws-us-gov, every other region in aws.
func PartitionOfRegion(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return PartitionChina
	case strings.HasPrefix(region, "us-gov-"):
		return PartitionGov
	default:
		return PartitionAWS
	}
}

// Partition is the partition of the caller identity's ARN (STS GetCallerIdentity), or else of
// the region.
func Partition(callerARN, region string) string {
	if p := PartitionOfARN(callerARN); p != "" {
		return p
	}
	return PartitionOfRegion(region)
}

// ARN builds an Amazon Resource Name: arn:<partition>:<service>:<region>:<account>:<resource>.
// Every ARN the provider writes is built here or from a template of its permissions table.
func ARN(partition, service, region, account, resource string) string {
	return "arn:" + partition + ":" + service + ":" + region + ":" + account + ":" + resource
}

// ManagedPolicyARN is the ARN of an AWS managed IAM policy in the partition
// (arn:<partition>:iam::aws:policy/<name>).
func ManagedPolicyARN(partition, name string) string {
	return ARN(partition, "iam", "", "aws", "policy/"+name)
}
