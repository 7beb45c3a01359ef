package karpenteroracle

import (
	"testing"

	"github.com/aws/karpenter-provider-aws/pkg/apis"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenteroracle/oraclegen"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// oracle is Karpenter 1.9's own code: karpenter-provider-aws v1.9.3 (EC2NodeClass, its
// CRDs) and sigs.k8s.io/karpenter v1.9.0 (NodePool). The API server defaults that enter the
// hashes are those of the fields drawn: the EC2NodeClass's metadataOptions and its four
// sub-fields, the NodePool's spec.template.spec.expireAfter ("720h").
func oracle(t *testing.T) oraclegen.Oracle {
	t.Helper()
	a, err := oraclegen.NewAPIServer(apis.EC2NodeClassCRD, apis.NodePoolCRD)
	if err != nil {
		t.Fatal(err)
	}
	return oraclegen.Oracle{
		Minor:                   "1.9",
		APIServer:               a,
		EC2NodeClassHashVersion: awsv1.EC2NodeClassHashVersion,
		NodePoolHashVersion:     karpv1.NodePoolHashVersion,
		// Hash v4 does not hash the cluster CA bundle.
		EC2NodeClassHash: func(stored []byte, _ string) (string, error) {
			var nc awsv1.EC2NodeClass
			if err := oraclegen.DecodeStrict(stored, &nc); err != nil {
				return "", err
			}
			return nc.Hash(), nil
		},
		NodePoolHash: func(stored []byte) (string, error) {
			var np karpv1.NodePool
			if err := oraclegen.DecodeStrict(stored, &np); err != nil {
				return "", err
			}
			return np.Hash(), nil
		},
	}
}

func TestEC2NodeClassHashMatchesKarpenter(t *testing.T) {
	oraclegen.CompareEC2NodeClasses(t, oracle(t), oraclegen.Run{Seed: 20261203, Cases: 3000, Floor: 2500})
}

func TestNodePoolHashMatchesKarpenter(t *testing.T) {
	oraclegen.CompareNodePools(t, oracle(t), oraclegen.Run{Seed: 20261204, Cases: 3000, Floor: 2500})
}

func TestRequirementsDriftMatchesKarpenter(t *testing.T) {
	oraclegen.CompareRequirementsDrift(t, "1.9", func(labels map[string]string, reqs []requirements.Requirement) bool {
		var np []karpv1.NodeSelectorRequirementWithMinValues
		for _, r := range reqs {
			np = append(np, karpv1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		return scheduling.NewLabelRequirements(labels).Compatible(scheduling.NewNodeSelectorRequirementsWithMinValues(np...)) == nil
	}, oraclegen.Run{Seed: 20261205, Cases: 20000, Floor: 15000})
}
