// Package planner runs a resource's plan from end to end, the rules in the order a plan needs
// them, behind ports for what needs AWS or the cluster: the provider's shell decodes a Terraform
// value, calls one function here and encodes the answer. A node class (Class) validates, renders
// and admits its EC2NodeClass, resolves against AWS (nodeclass.Plan) and records what its pools
// read; a node pool (Pool) validates, renders and admits its NodePool, checks ownership, builds
// the launch plan (launchplan.Build) and answers what its nodes and Karpenter's drift will do. A
// pool's apply (ApplyPool) plans again, checks the launch against what the plan showed and runs
// the apply stage (internal/fleet), whose ports the AWS adapter implements; its refresh, delete
// and import go through here too, as do a class's instance profile in IAM (CreateClass,
// UpdateClass, DeleteClass, RefreshClass, ImportClass) and the static pools a list finds
// (StaticPools); the few apply-stage values the shell records are named here (records.go), so
// internal/provider imports no internal/fleet (internal/repocheck checks). The provider block
// (Configure) is checked by package settings' rules, connected to AWS through a port, its unset
// cluster facts looked up through another, and the cluster opened read-only. Every problem is an
// attrpath.Finding; nothing here, or in anything it imports, links Terraform or the AWS SDK
// (internal/repocheck checks with go list).
package planner
