package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// controllerPlan is a configuration whose provider block (with kubernetes access) names the
// controller Deployment of the default namespace, and which plans only a subnet lookup of the
// cluster: enough for Configure's installation checks to run.
func controllerPlan(provider, cluster, controller string) string {
	return strings.Replace(provider, "provider \"karpenter\" {\n",
		fmt.Sprintf("provider \"karpenter\" {\n  karpenter_controller = \"default/%s\"\n", controller), 1) + `
data "karpenter_subnets" "test" {
  selector_terms = [{ tags = { "karpenter.sh/discovery" = "` + cluster + `" } }]
}
`
}

// putControllerDeployment creates a Karpenter controller Deployment (replicas 0: nothing runs)
// in the default namespace, without the chart's label, so that only a provider naming it in
// karpenter_controller reads it.
func putControllerDeployment(t *testing.T, api *kubeAPI, name, image string, env map[string]string) {
	t.Helper()
	putControllerDeploymentAs(t, api, name, image, "", env)
}

// putControllerDeploymentAs is putControllerDeployment whose pods run as a service account
// ("" for the namespace's default).
func putControllerDeploymentAs(t *testing.T, api *kubeAPI, name, image, serviceAccount string, env map[string]string) {
	t.Helper()
	var envList []map[string]string
	for k, v := range env {
		envList = append(envList, map[string]string{"name": k, "value": v})
	}
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "labels": map[string]string{"test": name}},
		"spec": map[string]any{"replicas": 0, "selector": map[string]any{"matchLabels": map[string]string{"test": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]string{"test": name}},
				"spec": map[string]any{"serviceAccountName": serviceAccount,
					"containers": []map[string]any{{"name": "controller", "image": image, "env": envList}}}}}}
	body, _ := json.Marshal(obj)
	path := "/apis/apps/v1/namespaces/default/deployments"
	if code, out, err := api.Do(http.MethodPost, path, "application/json", body); err != nil || code != http.StatusCreated {
		t.Fatalf("creating deployment %s: %d %v %s", name, code, err, out)
	}
	t.Cleanup(func() { _, _, _ = api.Do(http.MethodDelete, path+"/"+name, "", nil) })
}

// The plan compares the running controller with the provider's settings: a gate the controller
// runs without and another cluster name are errors on those settings; a 1.9.3 controller under
// karpenter_version 1.15 is a warning, and a field of this configuration 1.9 lacks an error on its
// attribute; a controller that matches plans.
func TestAccProvider_checksTheInstallation(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	old, current := "karpenter-old-"+strings.TrimPrefix(cluster, "cluster-"), "karpenter-now-"+strings.TrimPrefix(cluster, "cluster-")
	putControllerDeployment(t, api, old, "public.ecr.aws/karpenter/controller:1.9.3", map[string]string{"CLUSTER_NAME": "another",
		"FEATURE_GATES": "NodeRepair=true,NodeOverlay=false"})
	putControllerDeployment(t, api, current, "public.ecr.aws/karpenter/controller:1.15.2", map[string]string{"CLUSTER_NAME": cluster,
		"FEATURE_GATES": "NodeOverlay=true"})
	lagging := "karpenter-lag-" + strings.TrimPrefix(cluster, "cluster-")
	putControllerDeployment(t, api, lagging, "public.ecr.aws/karpenter/controller:1.9.3", map[string]string{"CLUSTER_NAME": cluster,
		"FEATURE_GATES": "NodeOverlay=true"})
	config := func(controller string) string {
		return strings.Replace(providerConfig(cluster), "provider \"karpenter\" {\n", fmt.Sprintf(`provider "karpenter" {
  karpenter_controller    = "default/%s"
  karpenter_feature_gates = ["NodeOverlay"]
  kubernetes = {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = %q
  }
`, controller, api.Server, string(api.CAPEM), api.Token()), 1) + `
data "karpenter_subnets" "test" {
  selector_terms = [{ tags = { "karpenter.sh/discovery" = "` + cluster + `" } }]
}
`
	}
	// The controller runs 1.9.3 for this cluster: a class with cpuOptions (1.13) fails on it.
	lagClass := `
resource "karpenter_node_class" "test" {
  name               = "lagging"
  instance_profile   = "test-instance-profile"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  cpu_options        = { nested_virtualization = "enabled" }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{Config: config(old), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Feature gate off in the cluster.*NodeOverlay.*` +
				`Another cluster's Karpenter`)},
			{Config: config(lagging) + lagClass, PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Not in the running Karpenter.*` +
				`cpu_options.*the cluster runs Karpenter 1\.9\.3`)},
			{Config: config(lagging), PlanOnly: true}, // the skew alone is a warning
			{Config: config("missing"), PlanOnly: true, ExpectError: regexp.MustCompile(`Karpenter controller not found`)},
			{Config: config(current)},
		},
	})
}
