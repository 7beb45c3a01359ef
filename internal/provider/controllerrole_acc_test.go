package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// The controller's role is found through its service account's IRSA annotation, or through an
// EKS Pod Identity association (the EKS fake behind acctest's stub), and its policies are read
// from IAM (LocalStack): a role that allows ec2:CreateFleet only in another region is a warning
// naming the action, the condition that does not hold and the upstream statement that grants it;
// a service account with neither says it was not checked.
func TestAccProvider_checksTheControllerRole(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	suffix := strings.TrimPrefix(cluster, "cluster-")
	role := "karpenter-controller-" + suffix
	acctest.NewRole(t, role)
	// Karpenter's controller actions, ec2:CreateFleet only in another region.
	acctest.PutRolePolicy(t, role, "controller", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Resource":"*","Action":[
		"ec2:Describe*","ec2:RunInstances","ec2:CreateLaunchTemplate","ec2:CreateTags","ec2:TerminateInstances","ec2:DeleteLaunchTemplate",
		"iam:PassRole","iam:*InstanceProfile*","ssm:GetParameter","pricing:GetProducts","eks:DescribeCluster","sqs:*",
		"arc-zonal-shift:GetManagedResource"]},
		{"Effect":"Allow","Resource":"*","Action":"ec2:CreateFleet","Condition":{"StringEquals":{"aws:RequestedRegion":"us-west-2"}}}]}`)
	roleARN := "arn:aws:iam::000000000000:role/" + role
	irsa, podIdentity, bare := "karpenter-irsa-"+suffix, "karpenter-pi-"+suffix, "karpenter-bare-"+suffix
	for sa, annotations := range map[string]map[string]string{irsa: {"eks.amazonaws.com/role-arn": roleARN}, podIdentity: nil, bare: nil} {
		putObject(t, api, "/api/v1/namespaces/default/serviceaccounts", map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
			"metadata": map[string]any{"name": sa, "annotations": annotations}})
		putControllerDeploymentAs(t, api, sa, "public.ecr.aws/karpenter/controller:1.15.2", sa, map[string]string{"CLUSTER_NAME": cluster})
	}
	eks := acctest.NewEKSStub(t, acctest.EKSCluster{Name: cluster, PodIdentities: []acctest.PodIdentity{
		{Namespace: "default", ServiceAccount: podIdentity, RoleARN: roleARN}}})
	config := func(controller string) string {
		provider := strings.Replace(withKubeAccess(providerConfig(cluster), api), "    events = ", fmt.Sprintf("    eks = %q\n    events = ", eks.URL), 1)
		return controllerPlan(provider, cluster, controller)
	}
	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t)}
	plan := func(controller string) string {
		d.provider = requiredProviders + config(controller)
		d.write("")
		return strings.Join(strings.Fields(d.run("plan")), " ")
	}
	for controller, via := range map[string]string{irsa: "the eks.amazonaws.com/role-arn annotation of service account default/" + irsa,
		podIdentity: "EKS Pod Identity association a-" + cluster + "0 of service account default/" + podIdentity} {
		out := plan(controller)
		for _, want := range []string{"Controller role lacks permissions", "runs as IAM role " + roleARN + ", found through " + via,
			"do not allow 1 of the 29 actions Karpenter 1.15 (whose policy is not published",
			"ec2:CreateFleet (implicit deny: the condition of inline:controller (statement 2) does not hold for a request in " + acctest.Region() +
				"; upstream KarpenterControllerNodeLifecyclePolicy/AllowScopedEC2InstanceAccessActions)"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the plan lacks %q:\n%s", controller, want, out)
			}
		}
	}
	if out := plan(bare); !strings.Contains(out, "Controller permissions not checked") ||
		!strings.Contains(out, "service account default/"+bare+" has no eks.amazonaws.com/role-arn annotation and no EKS Pod Identity association") {
		t.Errorf("a service account without a role: the plan lacks the skipped check:\n%s", out)
	}
	// The same plan in process, where the suite records the AWS calls the published policies grant.
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: factories(nil), Steps: []resource.TestStep{{PlanOnly: true,
		Config: config(podIdentity)}}})
}
