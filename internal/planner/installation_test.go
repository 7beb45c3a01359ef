package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
)

// TestCheckInstallationQueue: the controller's interruption queue is read for the release it runs;
// a failing or throttled read is one warning naming the four actions and the plan goes on; a
// controller without a queue asks nothing.
func TestCheckInstallationQueue(t *testing.T) {
	ctx := context.Background()
	deployment := func(env map[string]string) InstallationPorts {
		d := &kubeclient.Deployment{Namespace: "kube-system", Name: "karpenter", Containers: []kubeclient.Container{{Name: "controller",
			Image: "public.ecr.aws/karpenter/controller:1.9.3", Env: env}}}
		return InstallationPorts{Deployment: func(context.Context, string, string) (*kubeclient.Deployment, error) { return d, nil }}
	}
	want := installation.Want{KarpenterVersion: "1.9"}
	ports := deployment(map[string]string{"INTERRUPTION_QUEUE": "q"})
	var asked string
	ports.Queue = func(_ context.Context, name string) (installation.Queue, error) {
		asked = name
		return installation.Queue{}, errors.New("ThrottlingException: rate exceeded")
	}
	_, errs, warnings := CheckInstallation(ctx, ports, "kube-system/karpenter", want)
	if asked != "q" || len(errs) != 0 || len(warnings) != 1 || warnings[0].Summary != "Interruption queue not checked" ||
		!strings.Contains(warnings[0].Message, "events:DescribeRule") || !strings.Contains(warnings[0].Message, "ThrottlingException") {
		t.Errorf("throttled read: asked %q, errors %v, warnings %v", asked, errs, warnings)
	}
	ports.Queue = func(_ context.Context, name string) (installation.Queue, error) {
		return installation.Queue{Name: name}, nil
	}
	if _, _, warnings := CheckInstallation(ctx, ports, "kube-system/karpenter", want); len(warnings) != 1 ||
		warnings[0].Summary != "Interruption queue not found" {
		t.Errorf("missing queue: %v", warnings)
	}
	quiet := deployment(nil)
	quiet.Queue = func(context.Context, string) (installation.Queue, error) {
		t.Error("a controller without INTERRUPTION_QUEUE read a queue")
		return installation.Queue{}, nil
	}
	if _, errs, warnings := CheckInstallation(ctx, quiet, "kube-system/karpenter", want); len(errs)+len(warnings) != 0 {
		t.Errorf("no queue: %v %v", errs, warnings)
	}
}
