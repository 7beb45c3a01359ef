package planner

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// The summaries of the cluster-side findings about EKS Auto Mode.
const (
	SummaryAutoModeOff              = "EKS Auto Mode is not enabled on the cluster"
	SummaryBuiltinNodePool          = "Name of a built-in NodePool"
	SummaryNodeRoleCannotJoin       = "Auto Mode nodes never join the cluster"
	SummaryNodeRoleAccessNotChecked = "Node role access entry not checked"
)

// AutoModeNodePolicyARN is the access policy EKS Auto Mode's node role needs, in the partition
// (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html).
func AutoModeNodePolicyARN(partition string) string {
	return "arn:" + partition + ":eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"
}

// AutoModeNodePolicy is AutoModeNodePolicyARN in the aws partition.
var AutoModeNodePolicy = AutoModeNodePolicyARN("aws")

// AccessEntries reads a cluster's EKS access entries (awsclient.Client).
type AccessEntries interface {
	// AccessEntryPrincipals are the principal ARNs of the cluster's access entries.
	AccessEntryPrincipals(ctx context.Context, cluster string) ([]string, error)
	// AccessEntry is the entry of principal with its associated access policies.
	AccessEntry(ctx context.Context, cluster, principal string) (settings.AccessEntry, error)
}

// AutoModeCluster is the EKS cluster an Auto Mode NodeClass's plan checks, as lookup_cluster read
// it.
type AutoModeCluster struct {
	Name  string
	Facts settings.ClusterFacts
	// AccountID is the caller's account (STS), used when EKS reported no cluster ARN ("":
	// unknown).
	AccountID string
	// Entries reads the cluster's access entries (nil: the node role's entry is not checked).
	Entries AccessEntries
}

// autoModeComputeFindings is the error of an Auto Mode NodeClass on a cluster whose EKS Auto
// Mode compute is off: EKS launches no node for it. Nothing is checked without the cluster (c
// nil).
func autoModeComputeFindings(c *AutoModeCluster) []attrpath.Finding {
	if c == nil || c.Facts.AutoModeEnabled() {
		return nil
	}
	state := "computeConfig.enabled is false"
	if c.Facts.AutoMode == nil {
		state = "it reports no computeConfig"
	}
	return []attrpath.Finding{{Summary: SummaryAutoModeOff,
		Message: fmt.Sprintf("eks:DescribeCluster of cluster %q says EKS Auto Mode's compute is off (%s): EKS launches no node "+
			"for a NodeClass of eks.amazonaws.com there. Enable EKS Auto Mode on the cluster, its compute, block storage and "+
			"load balancing together: aws eks update-cluster-config --name %s --compute-config enabled=true "+
			"--kubernetes-network-config '{\"elasticLoadBalancing\":{\"enabled\":true}}' "+
			"--storage-config '{\"blockStorage\":{\"enabled\":true}}' "+
			"(https://docs.aws.amazon.com/eks/latest/userguide/auto-enable-existing.html); or plan a karpenter_node_class "+
			"for a Karpenter you run yourself", c.Name, state, c.Name)}}
}

// builtinPoolFindings is the error of a NodePool named as one of the built-in NodePools the
// cluster's EKS Auto Mode runs (computeConfig.nodePools): EKS manages that NodePool, which cannot
// be edited, and the pool's would be the same object. A pool spread over zones is named per
// zone; without the looked-up cluster nothing is checked.
func builtinPoolFindings(facts PoolFacts, in PoolInput) []attrpath.Finding {
	am := facts.AutoMode
	if am == nil || !am.Enabled || in.Spread != nil || !slices.Contains(am.NodePools, in.Name) {
		return nil
	}
	return []attrpath.Finding{{Path: attrpath.Of("name"), Summary: SummaryBuiltinNodePool,
		Message: fmt.Sprintf("cluster %q runs EKS Auto Mode's built-in NodePool %q (computeConfig.nodePools), which EKS manages and "+
			"which cannot be edited: a NodePool of that name is the same object. Give the pool another name, or disable the "+
			"built-in pool in the cluster's compute config "+
			"(https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html)", facts.ClusterName, in.Name)}}
}

// nodeRoleAccessFindings are warnings about the EKS access entry of an Auto Mode NodeClass's
// node role: without an entry of type EC2 with AmazonEKSAutoNodePolicy associated at cluster
// scope, the nodes EKS launches with the role never join the cluster. A read that fails is a
// warning that the check was skipped. Nothing is checked without the cluster's entries or a
// role (an instance profile names its role only in IAM).
func nodeRoleAccessFindings(ctx context.Context, c *AutoModeCluster, role string) []attrpath.Finding {
	if c == nil || c.Entries == nil || role == "" {
		return nil
	}
	// The role is the cluster's account's: EC2 launches its nodes there.
	partition, account := "aws", c.AccountID
	if a, ok := settings.ParseARN(c.Facts.ARN); ok {
		partition, account = a.Partition, a.Account
	}
	if account == "" {
		return nil
	}
	fix := accessEntryFix{cluster: c.Name, role: settings.RoleARN(partition, account, role),
		policy: AutoModeNodePolicyARN(partition)}
	principals, err := c.Entries.AccessEntryPrincipals(ctx, c.Name)
	if err != nil {
		return fix.notChecked(err)
	}
	i := slices.IndexFunc(principals, func(p string) bool { return settings.SameRole(p, partition, account, role) })
	if i < 0 {
		return fix.warn(fmt.Sprintf("cluster %q has no EKS access entry for node role %s", c.Name, fix.role),
			fix.create()+" && "+fix.associate())
	}
	fix.role = principals[i] // the entry's own ARN, with the role's path
	entry, err := c.Entries.AccessEntry(ctx, c.Name, fix.role)
	if err != nil {
		return fix.notChecked(err)
	}
	return fix.check(entry)
}

// accessEntryFix names the commands that give the node role the access entry Auto Mode needs.
type accessEntryFix struct{ cluster, role, policy string }

func (f accessEntryFix) create() string {
	return fmt.Sprintf("aws eks create-access-entry --cluster-name %s --principal-arn %s --type EC2", f.cluster, f.role)
}

func (f accessEntryFix) associate() string {
	return fmt.Sprintf("aws eks associate-access-policy --cluster-name %s --principal-arn %s --policy-arn %s --access-scope type=cluster",
		f.cluster, f.role, f.policy)
}

// check is the warning about an existing entry: of another type than EC2, or without the
// policy at cluster scope.
func (f accessEntryFix) check(e settings.AccessEntry) []attrpath.Finding {
	if e.Type != "EC2" {
		return f.warn(fmt.Sprintf("the EKS access entry of node role %s in cluster %q is of type %s, and EKS Auto Mode's nodes join only "+
			"with an entry of type EC2, whose type cannot be changed", f.role, f.cluster, cmp.Or(e.Type, "(none)")),
			fmt.Sprintf("aws eks delete-access-entry --cluster-name %s --principal-arn %s && %s && %s", f.cluster, f.role, f.create(), f.associate()))
	}
	if slices.ContainsFunc(e.Policies, func(p settings.AccessPolicy) bool { return p.ARN == f.policy && p.ScopeType == "cluster" }) {
		return nil
	}
	return f.warn(fmt.Sprintf("the EKS access entry of node role %s in cluster %q has no %s access policy at cluster scope",
		f.role, f.cluster, f.policy), f.associate())
}

func (f accessEntryFix) warn(problem, commands string) []attrpath.Finding {
	return []attrpath.Finding{{Path: attrpath.Of("role"), Summary: SummaryNodeRoleCannotJoin,
		Message: problem + ": the nodes EKS Auto Mode launches with this NodeClass never join the cluster. Fix: " + commands +
			" (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html)"}}
}

func (f accessEntryFix) notChecked(err error) []attrpath.Finding {
	return []attrpath.Finding{{Path: attrpath.Of("role"), Summary: SummaryNodeRoleAccessNotChecked,
		Message: fmt.Sprintf("cannot read the EKS access entry of node role %s in cluster %q, so the plan does not know whether "+
			"the NodeClass's nodes can join: %v. Grant eks:ListAccessEntries, eks:DescribeAccessEntry and "+
			"eks:ListAssociatedAccessPolicies (the IAM guide's Auto Mode node access entry policy)", f.role, f.cluster, err)}}
}
