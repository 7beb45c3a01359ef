package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

// crdsClassDoc is an EC2NodeClass with cpuOptions, which Karpenter's CRD declares from 1.13 on.
const crdsClassDoc = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: served
spec:
  role: KarpenterNodeRole
  amiSelectorTerms:
  - alias: al2023@latest
  subnetSelectorTerms:
  - tags:
      karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
  - tags:
      karpenter.sh/discovery: demo
  cpuOptions:
    nestedVirtualization: enabled
`

// olderClassCRD is a served EC2NodeClass CRD of Karpenter 1.9, as the cluster would return it.
func olderClassCRD(t *testing.T) *kubeclient.CRD {
	t.Helper()
	crds, err := manifest.CRDsFor("1.9")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := json.Marshal(crds[manifest.EC2NodeClassKind].Schema)
	if err != nil {
		t.Fatal(err)
	}
	return &kubeclient.CRD{Name: installation.CRDNames[manifest.EC2NodeClassKind], Versions: []kubeclient.CRDVersion{{Name: "v1", Served: true,
		Schema: schema}}}
}

// The provider's Admit port adds the served CRD's findings to the embedded admission's, and is
// the embedded admission alone without the cluster's CRDs. (A unit test of the glue: the class
// and pool resources take the port from Meta.admission.)
func TestMetaAdmissionChecksTheServedCRDs(t *testing.T) {
	read := func(context.Context, string) (*kubeclient.CRD, error) { return olderClassCRD(t), nil }
	check, warnings := planner.ReadCRDs(context.Background(), read, map[string]string{manifest.EC2NodeClassKind: "ec2nodeclasses.karpenter.k8s.aws"},
		"1.15")
	if len(warnings) != 1 || warnings[0].Summary != "Karpenter CRD older than karpenter_version" {
		t.Fatalf("warnings %v", warnings)
	}
	findings, err := (&Meta{KarpenterVersion: "1.15", CRDs: check}).admission()(manifest.EC2NodeClassKind, crdsClassDoc)
	if err != nil || len(findings) != 1 || findings[0].Path.String() != "cpu_options" || !strings.Contains(findings[0].Message, "Karpenter 1.9's") {
		t.Fatalf("findings %v, %v; want spec.cpuOptions dropped by 1.9's CRD", findings, err)
	}
	if findings, err := (&Meta{KarpenterVersion: "1.15"}).admission()(manifest.EC2NodeClassKind, crdsClassDoc); err != nil || len(findings) != 0 {
		t.Errorf("without the cluster's CRDs: %v, %v", findings, err)
	}
	// The embedded admission's refusal comes first, and the served CRD does not repeat it.
	findings, err = (&Meta{KarpenterVersion: "1.12", CRDs: check}).admission()(manifest.EC2NodeClassKind, crdsClassDoc)
	if err != nil || len(findings) != 2 || !strings.Contains(findings[0].Message, "first appears in Karpenter 1.13") {
		t.Errorf("karpenter_version 1.12: %v, %v", findings, err)
	}
}

// crdFactories serves providers that read the Karpenter CRDs under names (by kind): the test API
// server keeps every embedded version's CRDs under groups of their own (v1-9.karpenter.sh …),
// which other tests do not use, so an older CRD is read without touching Karpenter's own.
func crdFactories(names map[string]string) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"karpenter": serverOf(func() *karpenterProvider {
			return &karpenterProvider{version: "test", newClient: suiteCalls.newClient, crdNames: names}
		}),
	}
}

// The plan reads the cluster's CRDs: the API server's copy of Karpenter 1.9's EC2NodeClass CRD
// is recognised as 1.9's and drops a 1.15 class's cpuOptions, 1.15's NodePool CRD is
// karpenter_version's own, and a NodeOverlay CRD the cluster lacks fails the overlay's plan but
// nothing else.
func TestAccProvider_checksTheServedCRDs(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	names := map[string]string{
		manifest.EC2NodeClassKind: "ec2nodeclasses." + manifest.DifferentialGroup("karpenter.k8s.aws", "1.9"),
		manifest.NodePoolKind:     "nodepools." + manifest.DifferentialGroup("karpenter.sh", "1.15"),
		manifest.NodeOverlayKind:  "nodeoverlays.absent.karpenter.sh",
	}
	kube, err := kubeclient.New(kubeclient.Config{Host: api.Server, CACertificatePEM: string(api.CAPEM), Token: api.Token()})
	if err != nil {
		t.Fatal(err)
	}
	check, warnings := planner.ReadCRDs(context.Background(), kube.CRD, names, "1.15")
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "(ec2nodeclasses.v1-9.karpenter.k8s.aws) is Karpenter 1.9's") {
		t.Fatalf("warnings %v; want the EC2NodeClass CRD as 1.9's", warnings)
	}
	if findings, err := check.Check(manifest.EC2NodeClassKind, crdsClassDoc, true); err != nil || len(findings) != 1 ||
		findings[0].Path.String() != "cpu_options" {
		t.Errorf("findings %v, %v", findings, err)
	}

	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	config := func(body string) string {
		return strings.Replace(providerConfig(cluster), "provider \"karpenter\" {\n", fmt.Sprintf(`provider "karpenter" {
  karpenter_feature_gates = ["NodeOverlay"]
  kubernetes = {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = %q
  }
`, api.Server, string(api.CAPEM), api.Token()), 1) + body
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: crdFactories(names),
		Steps: []resource.TestStep{
			{Config: config(`
resource "karpenter_node_overlay" "test" {
  name             = "cheap"
  requirements     = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.xlarge"] }]
  price_adjustment = "-10%"
}
`), PlanOnly: true, ExpectError: regexp.MustCompile(`Karpenter CRD not installed[\s\S]*nodeoverlays\.absent\.karpenter\.sh[\s\S]*karpenter-crd`)},
			{Config: config(`
data "karpenter_subnets" "test" {
  selector_terms = [{ tags = { "karpenter.sh/discovery" = "` + cluster + `" } }]
}
`), PlanOnly: true},
		},
	})
}

// A controller older than karpenter_version: every manifest is also admitted against its
// release, so a field it lacks is an error on its attribute naming the running Karpenter, and a
// manifest it takes passes.
func TestMetaAdmissionChecksTheRunningRelease(t *testing.T) {
	running := &installation.Controller{Namespace: "kube-system", Name: "karpenter", Version: "1.9.3", Gates: map[string]bool{}}
	m := &Meta{KarpenterVersion: "1.15", Controller: running}
	findings, err := m.admission()(manifest.EC2NodeClassKind, crdsClassDoc)
	if err != nil || len(findings) != 1 || findings[0].Path.String() != "cpu_options" || findings[0].Summary != "Not in the running Karpenter" ||
		!strings.Contains(findings[0].Message, "the cluster runs Karpenter 1.9.3 (deployment kube-system/karpenter)") {
		t.Fatalf("findings %v, %v", findings, err)
	}
	plain := strings.Replace(crdsClassDoc, "  cpuOptions:\n    nestedVirtualization: enabled\n", "", 1)
	if findings, err := m.admission()(manifest.EC2NodeClassKind, plain); err != nil || len(findings) != 0 {
		t.Errorf("a class 1.9 takes: %v, %v", findings, err)
	}
}
