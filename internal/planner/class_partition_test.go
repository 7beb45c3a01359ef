package planner

import (
	"context"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// The class's node-role check carries the provider's partition, for the managed policy ARNs
// its findings name.
func TestClassNodeRolePartition(t *testing.T) {
	ports := ClassPorts{RolePolicies: func(context.Context, string) ([]iampolicy.Document, error) { return nil, nil }}
	for _, p := range []string{"aws-cn", "aws-us-gov", "aws"} {
		nr := classNodeRole(ports, ClassFacts{Partition: p}, ClassInput{Config: nodeclass.Config{Role: "nodes"}})
		if nr == nil || nr.Partition != p {
			t.Errorf("%s: node role check %+v", p, nr)
		}
	}
}
