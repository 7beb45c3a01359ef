package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// checkManifestValid runs the API server's CRD validation (manifest.Admit, over the embedded
// Karpenter schemas) on the resource's recorded `manifest`.
func checkManifestValid(res string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[res]
		if !ok {
			return fmt.Errorf("%s not in state", res)
		}
		doc := rs.Primary.Attributes["manifest"]
		if doc == "" {
			return fmt.Errorf("%s has no manifest", res)
		}
		violations, err := manifest.Admit(doc)
		if err != nil {
			return fmt.Errorf("%s manifest: %w\n%s", res, err, doc)
		}
		if len(violations) > 0 {
			return fmt.Errorf("%s manifest would be refused: %v\n%s", res, violations, doc)
		}
		return nil
	}
}
