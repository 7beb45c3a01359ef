//go:build karpenter_pre_1_13

package karpenteroracle

import (
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenteroracle/oraclegen"
)

// newOverlayController is the NodeOverlay controller (no clock before 1.13).
func newOverlayController(_ clock.Clock, kube client.Client, cp cloudprovider.CloudProvider, store *nodeoverlay.InstanceTypeStore,
	cluster *state.Cluster) *nodeoverlay.Controller {
	return nodeoverlay.NewController(kube, cp, store, cluster)
}

// classOptions: before 1.13 an EC2NodeClass has no cpuOptions, connectionTracking or
// enclaveOptions, which the API server prunes.
func classOptions(*awsv1.EC2NodeClass, oraclegen.LaunchClass) {}
