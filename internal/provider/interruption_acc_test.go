package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
)

// The plan checks the running controller's interruption queue in SQS and EventBridge: a queue
// that does not exist, a policy that admits only EventBridge, and rules that miss the
// capacity-reservation event 1.15 handles are warnings naming the fix; with everything in place
// there is none. The plan goes on either way.
func TestAccProvider_checksTheInterruptionQueue(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	suffix := strings.TrimPrefix(cluster, "cluster-")
	queue := "karpenter-" + suffix
	arn := acctest.NewQueue(t, queue, fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",`+
		`"Principal":{"Service":["events.amazonaws.com"]},"Action":"sqs:SendMessage","Resource":"arn:aws:sqs:%s:000000000000:%s"}]}`,
		acctest.Region(), queue))
	for i, e := range installation.InterruptionEvents("1.9") { // not 1.10's capacity-reservation event
		acctest.NewRule(t, fmt.Sprintf("%s-%d", queue, i), fmt.Sprintf(`{"source":[%q],"detail-type":[%q]}`, e.Source, e.DetailType), arn)
	}
	withQueue, noQueue := "karpenter-q-"+suffix, "karpenter-noq-"+suffix
	putControllerDeployment(t, api, withQueue, "public.ecr.aws/karpenter/controller:1.15.2", map[string]string{"CLUSTER_NAME": cluster,
		"INTERRUPTION_QUEUE": queue})
	putControllerDeployment(t, api, noQueue, "public.ecr.aws/karpenter/controller:1.15.2", map[string]string{"CLUSTER_NAME": cluster,
		"INTERRUPTION_QUEUE": "missing-" + suffix})
	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t)}
	plan := func(controller string) string {
		d.provider = requiredProviders + controllerPlan(withKubeAccess(providerConfig(cluster), api), cluster, controller)
		d.write("")
		return strings.Join(strings.Fields(d.run("plan")), " ")
	}
	out := plan(withQueue)
	for _, want := range []string{"Interruption queue does not admit its senders", "no sqs:SendMessage from sqs.amazonaws.com: the events",
		"Interruption rules missing", `"EC2 Capacity Reservation Instance Interruption Warning" (source aws.ec2), which Karpenter 1.15 handles`} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Spot Instance Interruption Warning\" (source") {
		t.Errorf("a rule that exists is named missing:\n%s", out)
	}
	if out := plan(noQueue); !strings.Contains(out, "Interruption queue not found") || !strings.Contains(out, "missing-"+suffix) {
		t.Errorf("the plan lacks the missing queue:\n%s", out)
	}
	// The same plan in process, where the suite records the AWS calls the published policies grant.
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: factories(nil), Steps: []resource.TestStep{{PlanOnly: true,
		Config: controllerPlan(withKubeAccess(providerConfig(cluster), api), cluster, withQueue)}}})
}
