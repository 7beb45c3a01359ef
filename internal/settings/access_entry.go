package settings

import "strings"

// AccessEntry is one EKS access entry of a cluster, as eks:DescribeAccessEntry and
// eks:ListAssociatedAccessPolicies report it
// (https://docs.aws.amazon.com/eks/latest/userguide/access-entries.html).
type AccessEntry struct {
	PrincipalARN string
	// Type is STANDARD, EC2 (EKS Auto Mode's nodes), EC2_LINUX, EC2_WINDOWS, FARGATE_LINUX or
	// HYBRID_LINUX.
	Type     string
	Policies []AccessPolicy
}

// AccessPolicy is an access policy associated with an entry, and the scope it has.
type AccessPolicy struct {
	ARN string
	// ScopeType is "cluster" or "namespace" (then Namespaces name them).
	ScopeType  string
	Namespaces []string
}

// ARN is an Amazon Resource Name split into its fields
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html).
type ARN struct {
	Partition, Service, Region, Account, Resource string
}

// ParseARN splits s; ok is false when s is not an ARN.
func ParseARN(s string) (ARN, bool) {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[2] == "" {
		return ARN{}, false
	}
	return ARN{Partition: parts[1], Service: parts[2], Region: parts[3], Account: parts[4], Resource: parts[5]}, true
}

// RoleARN is the ARN of IAM role role (a name, or path/name as a NodeClass's `role` may give
// it) in the account and partition.
func RoleARN(partition, account, role string) string {
	return "arn:" + partition + ":iam::" + account + ":role/" + strings.TrimPrefix(role, "/")
}

// SameRole reports whether principal is the ARN of IAM role role (a name or path/name) in the
// account and partition. IAM role names are unique in an account whatever their path, so a role
// given without its path is the role of that name under any path.
func SameRole(principal, partition, account, role string) bool {
	a, ok := ParseARN(principal)
	if !ok || a.Service != "iam" || a.Partition != partition || a.Account != account {
		return false
	}
	rest, ok := strings.CutPrefix(a.Resource, "role/")
	if !ok {
		return false
	}
	name := func(p string) string { return p[strings.LastIndex(p, "/")+1:] }
	return name(rest) == name(role)
}
