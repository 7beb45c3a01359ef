package installation

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// Every release the provider has CRDs for has a table of its code's calls, read from the same
// module zip as its CRDs, with enough actions that a parse that found little fails here; 1.15.2
// reboots instances for node repair under its RebootForRepair gate.
func TestControllerCallTables(t *testing.T) {
	for _, minor := range manifest.Versions() {
		calls := callsOf(minor)
		if calls == nil {
			t.Errorf("%s: no table of its code's calls", minor)
			continue
		}
		crds, err := manifest.CRDsFor(minor)
		if err != nil {
			t.Fatal(err)
		}
		src := crds[manifest.EC2NodeClassKind].Source
		if want := "github.com/aws/karpenter-provider-aws@v" + calls.Version; src.Module != want || src.ModuleSum != calls.Sum {
			t.Errorf("%s: calls read from v%s %s, CRDs from %s %s", minor, calls.Version, calls.Sum, src.Module, src.ModuleSum)
		}
		actions := map[string]bool{}
		for _, c := range calls.Calls {
			actions[c.Action] = true
			if !strings.Contains(c.Action, ":") || !strings.HasPrefix(c.File, "pkg/") && !strings.HasPrefix(c.File, "cmd/") {
				t.Errorf("%s: call %+v", minor, c)
			}
		}
		if len(actions) < 20 {
			t.Errorf("%s: %d actions read from the code, want >= 20", minor, len(actions))
		}
		for _, a := range []string{"ec2:CreateFleet", "ec2:DescribeInstances", "iam:GetInstanceProfile", "ssm:GetParameter", "pricing:GetProducts"} {
			if !actions[a] {
				t.Errorf("%s: the code does not call %s", minor, a)
			}
		}
	}
	reboot := controllerCall{Action: "ec2:RebootInstances", Gate: "RebootForRepair", File: "pkg/providers/instance/instance.go"}
	if c := callsOf("1.15"); c == nil || c.Version != "1.15.2" || !slices.Contains(c.Calls, reboot) {
		t.Errorf("1.15's calls lack %+v", reboot)
	}
	if c := callsOf("1.14"); c == nil || slices.ContainsFunc(c.Calls, func(c controllerCall) bool { return c.Action == reboot.Action }) {
		t.Error("1.14 reboots instances")
	}
}

// Beside each published policy, the code of the same minor calls nothing it does not grant
// without a gate: what the provider adds for an unpublished release's code would be missing for
// the published ones too.
func TestPublishedPoliciesCoverTheCode(t *testing.T) {
	for _, p := range controllerPolicies {
		calls := callsOf(p.Minor)
		if calls == nil {
			t.Fatalf("%s: no calls", p.Minor)
		}
		needs, _ := ControllerNeeds(p.Minor, true)
		for _, c := range calls.Calls {
			if c.Gate == "" && !slices.ContainsFunc(needs, func(n ControllerNeed) bool { return strings.EqualFold(n.Action, c.Action) }) {
				t.Errorf("Karpenter %s's code calls %s (%s), which its published policy does not grant", calls.Version, c.Action, c.File)
			}
		}
	}
}

func TestControllerNeedsFromCode(t *testing.T) {
	policy, from := ControllerNeeds("1.14", false)
	gateOff, from15 := ControllerNeeds("1.15", false)
	if from.Minor != "1.14" || from15.Minor != "1.14" || len(gateOff) != len(policy) {
		t.Fatalf("1.15 with its gates at their defaults: %d needs from %s's policy, 1.14 %d", len(gateOff), from15.Minor, len(policy))
	}
	gateOn, _ := ControllerNeedsWith("1.15", false, map[string]bool{"RebootForRepair": true})
	if len(gateOn) != len(policy)+1 {
		t.Fatalf("1.15 with RebootForRepair: %d needs, want %d", len(gateOn), len(policy)+1)
	}
	want := ControllerNeed{Action: "ec2:RebootInstances", Code: "1.15.2", File: "pkg/providers/instance/instance.go", Gate: "RebootForRepair"}
	if got := gateOn[len(gateOn)-1]; got != want {
		t.Errorf("need %+v, want %+v", got, want)
	}
	// A published minor's needs are its policy's, whatever the gates.
	if n, _ := ControllerNeedsWith("1.14", false, map[string]bool{"RebootForRepair": true}); len(n) != len(policy) {
		t.Errorf("1.14 with RebootForRepair: %d needs", len(n))
	}
}

// A role that grants exactly what 1.14's policy grants runs a 1.15 controller, unless the
// controller has RebootForRepair on: then it lacks ec2:RebootInstances, which 1.15's code calls
// under that gate.
func TestCheckControllerRoleRebootForRepair(t *testing.T) {
	needs, _ := ControllerNeeds("1.14", false)
	var actions []string
	for _, n := range needs {
		actions = append(actions, n.Action)
	}
	role := ControllerRole{ARN: "arn:aws:iam::123456789012:role/karpenter", Via: "EKS Pod Identity association a-123"}
	grant := func(actions ...string) []iampolicy.Document {
		b, err := json.Marshal(map[string]any{"Version": "2012-10-17",
			"Statement": []map[string]any{{"Effect": "Allow", "Action": actions, "Resource": "*"}}})
		if err != nil {
			t.Fatal(err)
		}
		return []iampolicy.Document{{Source: "inline:karpenter", JSON: string(b)}}
	}
	controller := func(env map[string]string, args ...string) Controller {
		return FromContainers("kube-system", "karpenter", []Container{{Name: "controller",
			Image: "public.ecr.aws/karpenter/controller:1.15.2", Env: env, Args: args}})
	}
	on := controller(map[string]string{"AWS_FEATURE_GATES": "NodeClassCEL=false,RebootForRepair=true"})
	f := CheckControllerRole(on, on.Minor(), "eu-west-1", role, grant(actions...))
	if len(f) != 1 {
		t.Fatalf("RebootForRepair on: findings %+v", f)
	}
	for _, want := range []string{"do not allow 1 of the 30 actions Karpenter 1.15 (whose policy is not published",
		"ec2:RebootInstances (implicit deny; Karpenter 1.15's code, under the RebootForRepair gate, calls it in " +
			"pkg/providers/instance/instance.go of v1.15.2)",
		"grant beside it the actions Karpenter 1.15's code calls (read from the Go code of its v1.15.2 module zip)"} {
		if !strings.Contains(f[0].Message, want) {
			t.Errorf("message lacks %q:\n%s", want, f[0].Message)
		}
	}
	if f := CheckControllerRole(controller(nil, "--aws-feature-gates=RebootForRepair=true"), "1.15", "eu-west-1", role,
		grant(append(actions, "ec2:RebootInstances")...)); f != nil {
		t.Errorf("a role that grants ec2:RebootInstances: %+v", f)
	}
	for _, env := range []map[string]string{nil, {"AWS_FEATURE_GATES": "RebootForRepair=false"}} {
		if f := CheckControllerRole(controller(env), "1.15", "eu-west-1", role, grant(actions...)); f != nil {
			t.Errorf("RebootForRepair off (%v): %+v", env, f)
		}
	}
	// Another missing action keeps the published policy's wording, and the count of the gate off.
	f = CheckControllerRole(controller(nil), "1.15", "eu-west-1", role, grant(slices.DeleteFunc(slices.Clone(actions),
		func(a string) bool { return a == "ec2:CreateFleet" })...))
	if len(f) != 1 || !strings.Contains(f[0].Message, "do not allow 1 of the 29 actions Karpenter 1.15 (whose policy is not published") ||
		strings.Contains(f[0].Message, "code calls") {
		t.Errorf("findings %+v", f)
	}
}
