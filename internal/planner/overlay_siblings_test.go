package planner

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
)

// The NodePools over which the overlays' conflicts are judged with the pool: the cluster's others
// on the same EC2NodeClass, with their template labels; not the pool itself, its zones'
// NodePools when it spreads, NodePools of other classes or kinds. Nothing is listed without
// overlays or with the gate off; a failed listing is a warning and the pool's types alone.
func TestSiblingPools(t *testing.T) {
	batch := ec2Pool("batch", "default")
	batch["spec"].(map[string]any)["template"].(map[string]any)["metadata"] = map[string]any{"labels": map[string]any{"team": "batch"}}
	objs := []map[string]any{ec2Pool("general", "default"), ec2Pool("general-us-east-1a", "default"), batch, ec2Pool("web", "default"),
		ec2Pool("other", "gpu"), liveNodePool("auto", "eks.amazonaws.com", "NodeClass", "default")}
	listed := 0
	ports := PoolPorts{NodePools: func(context.Context) ([]map[string]any, error) { listed++; return objs, nil }}
	var in PoolInput
	in.Name, in.ClassName = "general", "default"
	in.Overlays = []nodeoverlay.Config{{Name: "cheap"}}
	gates := PoolFacts{FeatureGates: []string{"NodeOverlay"}}

	var res PoolResult
	got := res.siblingPools(context.Background(), ports, gates, in)
	want := []launchplan.SiblingPool{{Name: "batch", TemplateLabels: map[string]string{"team": "batch"}}, {Name: "general-us-east-1a"}, {Name: "web"}}
	if !reflect.DeepEqual(got, want) || len(res.Warnings) != 0 {
		t.Errorf("siblings %+v (warnings %v), want %+v", got, res.Warnings, want)
	}
	spread := "zones"
	in.Spread = &spread
	if got := res.siblingPools(context.Background(), ports, gates, in); len(got) != 2 {
		t.Errorf("a spread pool's zone NodePools are its own: %+v", got)
	}
	in.Spread = nil
	listed = 0
	if got := res.siblingPools(context.Background(), ports, PoolFacts{}, in); got != nil || listed != 0 {
		t.Errorf("gate off: %+v, %d listings", got, listed)
	}
	noOverlays := in
	noOverlays.Overlays = nil
	if got := res.siblingPools(context.Background(), ports, gates, noOverlays); got != nil || listed != 0 {
		t.Errorf("no overlays: %+v, %d listings", got, listed)
	}
	ports.NodePools = func(context.Context) ([]map[string]any, error) { return nil, errors.New("nodepools is forbidden") }
	if got := res.siblingPools(context.Background(), ports, gates, in); got != nil || len(res.Warnings) != 1 ||
		res.Warnings[0].Path.String() != "node_overlays" || !strings.Contains(res.Warnings[0].Message, "this pool's types alone") ||
		!strings.Contains(res.Warnings[0].Message, "nodepools is forbidden") {
		t.Errorf("failed listing: %+v %+v", got, res.Warnings)
	}
}
