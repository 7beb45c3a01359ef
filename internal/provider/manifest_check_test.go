package provider

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest/crdcheck"
)

// crdDir holds Karpenter's v1.14 CRDs (shared reference material beside the checkout).
var crdDir = filepath.Join("..", "..", "..", "shared", "reference", "crds")

// checkManifestValid validates the resource's rendered `manifest` against its CRD schema and
// the CEL rules crdcheck implements.
func checkManifestValid(res string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[res]
		if !ok {
			return fmt.Errorf("%s not in state", res)
		}
		crd := "karpenter.sh_nodepools.yaml"
		if rs.Type == "karpenter_node_class" {
			crd = "karpenter.k8s.aws_ec2nodeclasses.yaml"
		}
		path := filepath.Join(crdDir, crd)
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("CRD %s not found (the shared reference folder must sit beside the checkout): %w", path, err)
		}
		doc := rs.Primary.Attributes["manifest"]
		if doc == "" {
			return fmt.Errorf("%s has no manifest", res)
		}
		if err := crdcheck.Validate(path, doc); err != nil {
			return fmt.Errorf("%s manifest does not validate against %s: %w\n%s", res, crd, err, doc)
		}
		return nil
	}
}
