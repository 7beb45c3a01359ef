//go:build !karpenter_pre_1_13

package karpenteroracle

import (
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
)

// newOverlayController is the NodeOverlay controller.
func newOverlayController(clk clock.Clock, kube client.Client, cp cloudprovider.CloudProvider, store *nodeoverlay.InstanceTypeStore,
	cluster *state.Cluster) *nodeoverlay.Controller {
	return nodeoverlay.NewController(clk, kube, cp, store, cluster)
}
