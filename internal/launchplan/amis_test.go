package launchplan

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

var (
	amdImage = nodeclass.AMI{ID: "ami-amd", Name: "amd", Architecture: "amd64", CreationDate: "2026-02-01T00:00:00Z"}
	armImage = nodeclass.AMI{ID: "ami-arm", Name: "arm", Architecture: "arm64", CreationDate: "2026-01-01T00:00:00Z"}
)

func TestTemplatesSplitByImage(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "c7g.large")} // same max pods (29)
	in.Class.AMIs = []nodeclass.AMI{amdImage, armImage}
	p := mustBuild(t, in)
	if len(p.LaunchTemplates) != 2 {
		t.Fatalf("templates %+v, want one per image", p.LaunchTemplates)
	}
	byImage := map[string]LaunchTemplate{}
	for _, lt := range p.LaunchTemplates {
		byImage[lt.ImageID] = lt
	}
	if lt := byImage["ami-arm"]; strings.Join(lt.InstanceTypes, ",") != "c7g.large" {
		t.Errorf("arm64 image template %+v, want c7g.large only", lt)
	}
	if lt := byImage["ami-amd"]; strings.Join(lt.InstanceTypes, ",") != "m5.large" {
		t.Errorf("amd64 image template %+v, want m5.large only", lt)
	}
	if p.LaunchTemplates[0].Name == p.LaunchTemplates[1].Name {
		t.Errorf("both groups are named %s", p.LaunchTemplates[0].Name)
	}

	// A newer image of the same architecture is a new version of the same template.
	newer := in
	newer.Class.AMIs = []nodeclass.AMI{{ID: "ami-amd2", Architecture: "amd64"}, armImage}
	q := mustBuild(t, newer)
	for i := range q.LaunchTemplates {
		if q.LaunchTemplates[i].Name != p.LaunchTemplates[i].Name {
			t.Errorf("template %d renamed %s -> %s by a new image release", i, p.LaunchTemplates[i].Name, q.LaunchTemplates[i].Name)
		}
	}
}

func TestTypesWithoutImageDropped(t *testing.T) {
	in := baseInput()
	in.Class.AMIs = []nodeclass.AMI{amdImage}
	p, errs := Build(in)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, tp := range p.InstanceTypes {
		if tp.Name == "c7g.large" {
			t.Fatalf("c7g.large (arm64) planned with an amd64-only image")
		}
	}
	if !hasProblem(p.Warnings, pathRequirements.String(), "dropped 1 instance type", "arm64 (c7g.large)", "amd64 (ami-amd)") {
		t.Fatalf("warnings %v, want the arm64 type named as dropped", p.Warnings)
	}

	// Only arm64 types allowed: nothing can launch, and the error names the architecture.
	in.Requirements = []requirements.Requirement{req(requirements.LabelArch, requirements.OpIn, "arm64")}
	_, errs = Build(in)
	if !hasProblem(errs, pathRequirements.String(), "none can be launched", "serves, arm64 (c7g.large)", "its images serve amd64 (ami-amd)") {
		t.Fatalf("errors %v, want one naming arm64", errs)
	}
}

func TestAliasVariantsServeAccelerators(t *testing.T) {
	gpu := itype("g5.xlarge", 4, 16384, "x86_64", "nitro", 1, 4, 15)
	gpu.GPUs = []catalog.Device{{Name: "A10G", Manufacturer: "NVIDIA", Count: 1, MemoryMiB: 24576}}
	in := baseInput()
	in.Catalog = catalog.New([]catalog.InstanceType{m5Large(), gpu})
	std := nodeclass.AMI{ID: "ami-std", Architecture: "amd64", Variant: nodeclass.AMIVariantStandard, CreationDate: "2026-02-01T00:00:00Z"}
	nv := nodeclass.AMI{ID: "ami-nv", Architecture: "amd64", Variant: nodeclass.AMIVariantNvidia, CreationDate: "2026-01-01T00:00:00Z"}

	in.Class.AMIs = []nodeclass.AMI{std}
	p := mustBuild(t, in)
	if !hasProblem(p.Warnings, pathRequirements.String(), "amd64 with a GPU (g5.xlarge)") {
		t.Fatalf("warnings %v, want the GPU type dropped for want of an nvidia image", p.Warnings)
	}

	in.Class.AMIs = []nodeclass.AMI{std, nv}
	p = mustBuild(t, in)
	images := map[string]string{}
	for _, lt := range p.LaunchTemplates {
		for _, n := range lt.InstanceTypes {
			images[n] = lt.ImageID
		}
	}
	if images["g5.xlarge"] != "ami-nv" || images["m5.large"] != "ami-std" {
		t.Fatalf("images by type %v", images)
	}
}

func TestStaticPoolNeedsAnImage(t *testing.T) {
	in := baseInput()
	in.Bootstrap, in.Replicas = demoBootstrap, intPtr(2)
	in.Class.AMIUnresolved = `alias "al2023@latest": none of its 5 public SSM parameters for Kubernetes 1.33 could be read`
	_, errs := Build(in)
	if !hasProblem(errs, pathReplicas.String(), "needs an image", "none of its 5 public SSM parameters") {
		t.Fatalf("errors %v", errs)
	}
	in.Replicas = nil // a dynamic pool leaves the alias to Karpenter
	if _, errs := Build(in); len(errs) > 0 {
		t.Fatalf("dynamic pool: %v", errs)
	}
}
