package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
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

// TestCheckInstallationControllerRole: the controller's role is its service account's IRSA
// annotation, else its EKS Pod Identity association (asked for the controller's CLUSTER_NAME);
// its policies are evaluated for the running release; what cannot be read or found is one
// warning and the plan goes on.
func TestCheckInstallationControllerRole(t *testing.T) {
	ctx := context.Background()
	d := &kubeclient.Deployment{Namespace: "kube-system", Name: "karpenter", ServiceAccount: "karpenter", Containers: []kubeclient.Container{
		{Name: "controller", Image: "public.ecr.aws/karpenter/controller:1.14.1", Env: map[string]string{"CLUSTER_NAME": "prod"}}}}
	noFleet := []iampolicy.Document{{Source: "inline:all", JSON: `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},` +
		`{"Effect":"Deny","Action":"ec2:CreateFleet","Resource":"*"}]}`}}
	var readRole string
	ports := InstallationPorts{
		Deployment: func(context.Context, string, string) (*kubeclient.Deployment, error) { return d, nil },
		ServiceAccount: func(_ context.Context, ns, name string) (map[string]string, error) {
			return map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/irsa"}, nil
		},
		PodIdentityRole: func(_ context.Context, cluster, ns, sa string) (string, string, error) {
			if cluster != "prod" || ns != "kube-system" || sa != "karpenter" {
				t.Errorf("pod identity asked for %s %s/%s", cluster, ns, sa)
			}
			return "arn:aws:iam::1:role/pod-identity", "a-1", nil
		},
		RolePolicies: func(_ context.Context, role string) ([]iampolicy.Document, error) {
			readRole = role
			return noFleet, nil
		},
	}
	want := installation.Want{KarpenterVersion: "1.14"}
	check := func(what string, wantSummary string, wantIn ...string) {
		t.Helper()
		_, errs, warnings := CheckInstallation(ctx, ports, "kube-system/karpenter", want)
		if len(errs) != 0 || len(warnings) != 1 || warnings[0].Summary != wantSummary || warnings[0].Path.String() != "karpenter_controller" {
			t.Fatalf("%s: errors %v, warnings %v", what, errs, warnings)
		}
		for _, s := range wantIn {
			if !strings.Contains(warnings[0].Message, s) {
				t.Errorf("%s: message lacks %q: %s", what, s, warnings[0].Message)
			}
		}
	}
	check("IRSA", "Controller role lacks permissions", "role arn:aws:iam::1:role/irsa, found through the eks.amazonaws.com/role-arn annotation",
		"ec2:CreateFleet (explicit deny")
	if readRole != "arn:aws:iam::1:role/irsa" {
		t.Errorf("read %q", readRole)
	}
	ports.ServiceAccount = func(context.Context, string, string) (map[string]string, error) { return map[string]string{}, nil }
	check("Pod Identity", "Controller role lacks permissions", "found through EKS Pod Identity association a-1 of service account kube-system/karpenter")
	ports.PodIdentityRole = func(context.Context, string, string, string) (string, string, error) { return "", "", nil }
	check("no role", "Controller permissions not checked", "has no eks.amazonaws.com/role-arn annotation and no EKS Pod Identity association")
	ports.PodIdentityRole = func(context.Context, string, string, string) (string, string, error) {
		return "", "", errors.New("AccessDeniedException")
	}
	check("pod identity unreadable", "Controller permissions not checked", "eks:ListPodIdentityAssociations", "AccessDeniedException")
	ports.ServiceAccount = func(context.Context, string, string) (map[string]string, error) {
		return nil, errors.New("the token cannot read serviceaccounts")
	}
	check("RBAC", "Controller permissions not checked", "cannot read service account kube-system/karpenter", "cannot read serviceaccounts")
	ports.ServiceAccount = func(context.Context, string, string) (map[string]string, error) { return nil, nil }
	check("no service account", "Controller permissions not checked", "service account kube-system/karpenter does not exist")
	ports.ServiceAccount = func(context.Context, string, string) (map[string]string, error) {
		return map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::2:role/elsewhere"}, nil
	}
	ports.RolePolicies = func(context.Context, string) ([]iampolicy.Document, error) { return nil, errors.New("NoSuchEntity") }
	check("role unreadable", "Controller permissions not checked", "policies of the controller's role arn:aws:iam::2:role/elsewhere", "NoSuchEntity")
	ports.RolePolicies = func(context.Context, string) ([]iampolicy.Document, error) {
		return []iampolicy.Document{{Source: "inline:all", JSON: `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`}}, nil
	}
	if _, errs, warnings := CheckInstallation(ctx, ports, "kube-system/karpenter", want); len(errs)+len(warnings) != 0 {
		t.Errorf("a role that allows all: %v %v", errs, warnings)
	}
}
