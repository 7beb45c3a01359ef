package launchplan

import (
	"slices"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func autoModeInput(prefixSize string) Input {
	in := baseInput()
	in.Class.AMIFamily, in.Class.InstanceProfile = "", ""
	in.Class.AutoMode = &capacity.AutoMode{IPv4PrefixSize: prefixSize}
	return in
}

// An Auto Mode pool plans with Auto Mode's labels and networking: eks.amazonaws.com keys select
// as Karpenter's do, max pods are the ENI figure capped at 110 (secondary IPs in "32" mode), the
// families and sizes Auto Mode does not launch are dropped with the reason, and the plan has no
// launch templates (Auto Mode makes its own).
func TestBuildOnAutoMode(t *testing.T) {
	in := autoModeInput("")
	in.Requirements = []requirements.Requirement{
		req("eks.amazonaws.com/instance-category", requirements.OpIn, "m", "t", "c"),
		req("eks.amazonaws.com/compute-type", requirements.OpIn, "auto"),
	}
	p := mustBuild(t, in)
	names := typeNames(p)
	// m4.large and m5 are Auto Mode families; t3.micro is a micro size; c5n.18xlarge is one of
	// Auto Mode's families, c7g.large too.
	for _, want := range []string{"m5.large", "m5.xlarge", "m4.large", "c7g.large", "c5n.18xlarge"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not eligible: %v", want, names)
		}
	}
	if slices.Contains(names, "t3.micro") {
		t.Errorf("t3.micro eligible on Auto Mode: %v", names)
	}
	if !hasProblem(p.Warnings, "template.requirements", "EKS Auto Mode does not launch (t3.micro)") {
		t.Errorf("no warning names the type Auto Mode drops: %v", p.Warnings)
	}
	for _, tp := range p.InstanceTypes {
		if tp.MaxPods > 110 || tp.LaunchTemplate != "" {
			t.Errorf("%s: max pods %d, launch template %q; want ≤ 110 and none", tp.Name, tp.MaxPods, tp.LaunchTemplate)
		}
		if tp.Name == "m5.large" && tp.MaxPods != 110 {
			t.Errorf("m5.large max pods %d, want 110 (434 by prefixes, capped)", tp.MaxPods)
		}
	}
	if len(p.LaunchTemplates) != 0 {
		t.Errorf("%d launch templates on Auto Mode", len(p.LaunchTemplates))
	}
	if !hasProblem(p.Warnings, "node_class", "EKS Auto Mode gives nodes /28 prefixes, but 1 eligible instance type(s) run on Xen",
		"eks.amazonaws.com/instance-hypervisor") {
		t.Errorf("no Auto Mode warning for m4.large on Xen: %v", p.Warnings)
	}
	in = autoModeInput(capacity.AutoModePrefix32)
	in.Requirements = []requirements.Requirement{req("eks.amazonaws.com/instance-family", requirements.OpIn, "m5")}
	p = mustBuild(t, in)
	for _, tp := range p.InstanceTypes {
		if tp.Name == "m5.large" && tp.MaxPods != 29 {
			t.Errorf("m5.large max pods %d in \"32\" mode, want 29", tp.MaxPods)
		}
	}
	if got := typeNames(p); !slices.Equal(got, []string{"m5.large", "m5.xlarge"}) {
		t.Errorf("instance-family m5 selects %v", got)
	}
}

func TestAutoModeFamilies(t *testing.T) {
	for name, want := range map[string]bool{"m5.large": true, "c7i-flex.large": true, "p6-b200.48xlarge": true, "a1.large": false, "m3.medium": false, "x1e.xlarge": false} {
		if AutoModeFamily(name) != want {
			t.Errorf("AutoModeFamily(%s) = %v, want %v", name, !want, want)
		}
	}
}
