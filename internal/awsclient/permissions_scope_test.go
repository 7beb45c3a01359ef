package awsclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// The published policies filled for each partition name only that partition, and no
// placeholder is left.
func TestFilledPoliciesOfEveryPartition(t *testing.T) {
	for _, p := range []string{PartitionAWS, PartitionGov, PartitionChina} {
		v := Values{Partition: p, AccountID: "123456789012", Region: "r-1", ClusterName: "c", OwnerIDs: []string{"*"},
			NodeRoleARNs: []string{ARN(p, "iam", "", "123456789012", "role/nodes")}}
		for _, c := range Capabilities {
			doc, err := PolicyDocument(c.Name)
			if err != nil {
				t.Fatal(err)
			}
			filled, err := Fill(doc, v)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(filled), "${") {
				t.Errorf("%s/%s: a placeholder is left:\n%s", p, c.Name, filled)
			}
			var parsed struct{ Statement []struct{ Resource []string } }
			if err := json.Unmarshal(filled, &parsed); err != nil {
				t.Fatal(err)
			}
			for _, s := range parsed.Statement {
				for _, r := range s.Resource {
					if r != "*" && !strings.HasPrefix(r, "arn:"+p+":") {
						t.Errorf("%s/%s: resource %s is not in the partition", p, c.Name, r)
					}
				}
			}
		}
	}
}

// The filled published policies allow the provider's own calls, with the tags it writes, and
// deny the calls that would reach further: another owner's or another cluster's objects,
// Karpenter's own (untagged by the provider), another role, another service, another
// partition, a tag on an existing object, a private parameter.
func TestPublishedPoliciesDecideRepresentativeCalls(t *testing.T) {
	const (
		account, region, cluster, owner = "123456789012", "us-gov-west-1", "demo", "0123456789abcdef"
		partition                       = PartitionGov
	)
	nodes := ARN(partition, "iam", "", account, "role/nodes")
	var policies []iampolicy.Policy
	for _, c := range Capabilities {
		doc, err := PolicyDocument(c.Name)
		if err != nil {
			t.Fatal(err)
		}
		filled, err := Fill(doc, Values{Partition: partition, AccountID: account, Region: region, ClusterName: cluster,
			OwnerIDs: []string{owner}, NodeRoleARNs: []string{nodes},
			SSMParameterARNs: []string{ARN(partition, "ssm", region, account, "parameter/golden/ami")}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := iampolicy.Parse(iampolicy.Document{Source: c.Name, JSON: string(filled)})
		if err != nil {
			t.Fatal(err)
		}
		policies = append(policies, p)
	}
	ec2 := func(resource string) string { return ARN(partition, "ec2", region, account, resource) }
	tags := func(kind, clusterTag, own string) map[string][]string {
		keys := map[string][]string{kind + "/" + launchplan.TagManagedBy: {launchplan.ManagedBy}}
		if clusterTag != "" {
			keys[kind+"/"+launchplan.TagCluster] = []string{clusterTag}
		}
		if own != "" {
			keys[kind+"/"+launchplan.TagOwner] = []string{own}
		}
		return keys
	}
	profileTags := func(kind, own string) map[string][]string {
		return map[string][]string{kind + "/kubernetes.io/cluster/" + cluster: {"owned"},
			kind + "/" + nodeclass.TagManagedBy: {nodeclass.ManagedBy}, kind + "/" + nodeclass.TagOwner: {own}}
	}
	plus := func(keys map[string][]string, k string, v ...string) map[string][]string {
		out := map[string][]string{k: v}
		for kk, vv := range keys {
			out[kk] = vv
		}
		return out
	}
	req, res := tags("aws:RequestTag", cluster, owner), tags("aws:ResourceTag", cluster, owner)
	profile := ARN(partition, "iam", "", account, "instance-profile"+nodeclass.InstanceProfilePath+"nodeplane-demo-default-0a1b2c3d4e")
	for _, c := range []struct {
		name  string
		req   iampolicy.Request
		allow bool
	}{
		{"describe subnets", iampolicy.Request{Action: "ec2:DescribeSubnets", Resource: "*"}, true},
		{"read an alias's public parameter", iampolicy.Request{Action: "ssm:GetParameter",
			Resource: ARN(partition, "ssm", region, "", "parameter/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id")}, true},
		{"read a class's parameter", iampolicy.Request{Action: "ssm:GetParameter", Resource: ARN(partition, "ssm", region, account, "parameter/golden/ami")}, true},
		{"create a launch template with the owner tag", iampolicy.Request{Action: "ec2:CreateLaunchTemplate", Resource: ec2("launch-template/*"), Keys: req}, true},
		{"tag it while creating it", iampolicy.Request{Action: "ec2:CreateTags", Resource: ec2("launch-template/lt-1"),
			Keys: plus(req, "ec2:CreateAction", "CreateLaunchTemplate")}, true},
		{"new version of an owned template", iampolicy.Request{Action: "ec2:CreateLaunchTemplateVersion", Resource: ec2("launch-template/lt-1"), Keys: res}, true},
		{"launch an instance with the owner tag", iampolicy.Request{Action: "ec2:CreateFleet", Resource: ec2("instance/*"), Keys: req}, true},
		{"launch its volume", iampolicy.Request{Action: "ec2:RunInstances", Resource: ec2("volume/*"), Keys: req}, true},
		{"launch from an owned template", iampolicy.Request{Action: "ec2:RunInstances", Resource: ec2("launch-template/lt-1"), Keys: res}, true},
		{"launch into a subnet", iampolicy.Request{Action: "ec2:CreateFleet", Resource: ec2("subnet/subnet-1")}, true},
		{"launch an AWS image", iampolicy.Request{Action: "ec2:RunInstances", Resource: ARN(partition, "ec2", region, "", "image/ami-1")}, true},
		{"create the instant fleet", iampolicy.Request{Action: "ec2:CreateFleet", Resource: ec2("fleet/fleet-1")}, true},
		{"terminate an owned instance", iampolicy.Request{Action: "ec2:TerminateInstances", Resource: ec2("instance/i-1"), Keys: res}, true},
		{"create the class's profile", iampolicy.Request{Action: "iam:CreateInstanceProfile", Resource: profile, Keys: profileTags("aws:RequestTag", owner)}, true},
		{"add the role to it", iampolicy.Request{Action: "iam:AddRoleToInstanceProfile", Resource: profile, Keys: profileTags("aws:ResourceTag", owner)}, true},
		{"pass the node role to EC2", iampolicy.Request{Action: "iam:PassRole", Resource: nodes, Keys: map[string][]string{"iam:PassedToService": {"ec2.amazonaws.com"}}}, true},

		{"terminate another owner's instance", iampolicy.Request{Action: "ec2:TerminateInstances", Resource: ec2("instance/i-2"),
			Keys: tags("aws:ResourceTag", cluster, "fedcba9876543210")}, false},
		{"terminate another cluster's instance", iampolicy.Request{Action: "ec2:TerminateInstances", Resource: ec2("instance/i-3"),
			Keys: tags("aws:ResourceTag", "other", owner)}, false},
		{"terminate a Karpenter node", iampolicy.Request{Action: "ec2:TerminateInstances", Resource: ec2("instance/i-4"),
			Keys: map[string][]string{"aws:ResourceTag/karpenter.sh/nodepool": {"general"}}}, false},
		{"delete another owner's template", iampolicy.Request{Action: "ec2:DeleteLaunchTemplate", Resource: ec2("launch-template/lt-2"),
			Keys: tags("aws:ResourceTag", cluster, "fedcba9876543210")}, false},
		{"create a template without the owner tag", iampolicy.Request{Action: "ec2:CreateLaunchTemplate", Resource: ec2("launch-template/*"),
			Keys: tags("aws:RequestTag", cluster, "")}, false},
		{"launch an untagged instance", iampolicy.Request{Action: "ec2:RunInstances", Resource: ec2("instance/*")}, false},
		{"launch from another owner's template", iampolicy.Request{Action: "ec2:CreateFleet", Resource: ec2("launch-template/lt-2"),
			Keys: tags("aws:ResourceTag", cluster, "fedcba9876543210")}, false},
		{"tag an existing instance", iampolicy.Request{Action: "ec2:CreateTags", Resource: ec2("instance/i-2"), Keys: req}, false},
		{"tag under another create action", iampolicy.Request{Action: "ec2:CreateTags", Resource: ec2("volume/vol-1"),
			Keys: plus(req, "ec2:CreateAction", "CreateVolume")}, false},
		{"pass another role", iampolicy.Request{Action: "iam:PassRole", Resource: ARN(partition, "iam", "", account, "role/admin"),
			Keys: map[string][]string{"iam:PassedToService": {"ec2.amazonaws.com"}}}, false},
		{"pass the node role to Lambda", iampolicy.Request{Action: "iam:PassRole", Resource: nodes,
			Keys: map[string][]string{"iam:PassedToService": {"lambda.amazonaws.com"}}}, false},
		{"pass it in the aws partition", iampolicy.Request{Action: "iam:PassRole", Resource: ARN(PartitionAWS, "iam", "", account, "role/nodes"),
			Keys: map[string][]string{"iam:PassedToService": {"ec2.amazonaws.com"}}}, false},
		{"create a profile outside the provider's path", iampolicy.Request{Action: "iam:CreateInstanceProfile",
			Resource: ARN(partition, "iam", "", account, "instance-profile/karpenter/x"), Keys: profileTags("aws:RequestTag", owner)}, false},
		{"delete another owner's profile", iampolicy.Request{Action: "iam:DeleteInstanceProfile", Resource: profile,
			Keys: profileTags("aws:ResourceTag", "fedcba9876543210")}, false},
		{"read a private parameter", iampolicy.Request{Action: "ssm:GetParameter", Resource: ARN(partition, "ssm", region, account, "parameter/db/password")}, false},
		{"read another region's public parameter", iampolicy.Request{Action: "ssm:GetParameter",
			Resource: ARN(partition, "ssm", "us-gov-east-1", "", "parameter/aws/service/bottlerocket/x")}, false},
	} {
		got := iampolicy.Authorize(policies, c.req)
		if (got.Decision == iampolicy.Allowed) != c.allow {
			t.Errorf("%s (%s on %s): %s, want allowed=%v (allowed by %v)", c.name, c.req.Action, c.req.Resource, got.Decision, c.allow, got.AllowedBy)
		}
	}
}
