package planner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// A CRD that cannot be read is one warning on kubernetes and leaves its kind unchecked; a
// missing one is remembered for its manifests; an unserved version is not a schema.
func TestReadCRDs(t *testing.T) {
	schemas, err := manifest.SchemasFor("1.9")
	if err != nil {
		t.Fatal(err)
	}
	classSchema, _ := json.Marshal(schemas[manifest.EC2NodeClassKind])
	var asked []string
	read := func(_ context.Context, name string) (*kubeclient.CRD, error) {
		asked = append(asked, name)
		switch name {
		case installation.CRDNames[manifest.EC2NodeClassKind]:
			return &kubeclient.CRD{Name: name, Versions: []kubeclient.CRDVersion{{Name: "v1", Served: true, Schema: classSchema},
				{Name: "v1beta1", Schema: []byte(`{"type": 7}`)}}}, nil
		case installation.CRDNames[manifest.NodeOverlayKind]:
			return nil, nil
		}
		return nil, errors.New("the token cannot read customresourcedefinitions")
	}
	check, warnings := ReadCRDs(context.Background(), read, installation.CRDNames, "1.15")
	if strings.Join(asked, ",") != "ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh,nodepools.karpenter.sh" {
		t.Errorf("read %v", asked)
	}
	if len(warnings) != 2 || warnings[0].Path.String() != "kubernetes" ||
		!strings.Contains(warnings[0].Message, "nodepools.karpenter.sh: the token cannot read customresourcedefinitions") ||
		!strings.Contains(warnings[1].Message, "Karpenter 1.9's") {
		t.Fatalf("warnings %v", warnings)
	}
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\nspec: {}\n"
	if findings, err := check.Check(manifest.NodePoolKind, pool, true); err != nil || len(findings) != 0 {
		t.Errorf("an unread CRD checked: %v %v", findings, err)
	}
	overlay := "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: o\nspec: {}\n"
	if findings, _ := check.Check(manifest.NodeOverlayKind, overlay, true); len(findings) != 1 ||
		findings[0].Summary != "Karpenter CRD not installed" {
		t.Errorf("a missing CRD: %v", findings)
	}
}
