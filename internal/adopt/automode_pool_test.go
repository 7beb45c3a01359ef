package adopt_test

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
)

// A NodePool on an EKS Auto Mode NodeClass is read with the class it names; a nodeClassRef of
// neither kind is refused naming both.
func TestReadPoolOnAutoMode(t *testing.T) {
	live := strings.Replace(livePool, "{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}",
		"{group: eks.amazonaws.com, kind: NodeClass, name: private}", 1)
	p, err := adopt.ReadPool(object(t, live))
	if err != nil || !p.AutoMode || p.NodeClass != "private" {
		t.Fatalf("read %+v, %v", p, err)
	}
	for _, path := range p.Unexpressed {
		if strings.Contains(path, "nodeClassRef") {
			t.Errorf("the Auto Mode nodeClassRef is unexpressed: %v", p.Unexpressed)
		}
	}
	other := strings.Replace(livePool, "{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}",
		"{group: example.com, kind: MyClass, name: x}", 1)
	if _, err := adopt.ReadPool(object(t, other)); err == nil || !strings.Contains(err.Error(), `EKS Auto Mode those of group "eks.amazonaws.com"`) {
		t.Errorf("a foreign nodeClassRef: %v", err)
	}
}
