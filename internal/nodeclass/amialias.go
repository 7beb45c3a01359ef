package nodeclass

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// The parameter scheme below follows karpenter-provider-aws at commit
// 1d927085dd81a9df9301e613f371dac5b4d16bfe (v1.14.1 docs release, `git describe`
// v1.14.0-68-g1d927085d): pkg/providers/amifamily/{al2,al2023,bottlerocket,windows,types,ami}.go.

// AMIVariant is the accelerator flavour Karpenter attaches to an image found through an alias. It
// decides which instance types the image may launch (see InstanceLabels).
type AMIVariant string

const (
	AMIVariantStandard AMIVariant = "standard"
	AMIVariantNvidia   AMIVariant = "nvidia"
	AMIVariantNeuron   AMIVariant = "neuron"
)

// InstanceLabels are the instance-type labels the variant's requirements test: an instance type
// is served when it has every label in present and none in absent. standard: no GPU and no
// accelerator; nvidia: a GPU count; neuron: an accelerator count.
func (v AMIVariant) InstanceLabels() (present, absent []string) {
	switch v {
	case AMIVariantStandard:
		return nil, []string{requirements.LabelInstanceAcceleratorCount, requirements.LabelInstanceGPUCount}
	case AMIVariantNvidia:
		return []string{requirements.LabelInstanceGPUCount}, nil
	case AMIVariantNeuron:
		return []string{requirements.LabelInstanceAcceleratorCount}, nil
	}
	return nil, nil
}

// AliasParameter is one AWS public SSM parameter an alias resolves through.
type AliasParameter struct {
	// Name is the SSM parameter name; its value is an AMI id.
	Name string
	// Architecture is the kubernetes.io/arch value of the image the parameter names ("amd64" or
	// "arm64"). Karpenter takes it from the image's EC2 architecture; the path implies it.
	Architecture string
	// Variants are the requirement sets Karpenter gives the image, one each: AL2's GPU image serves
	// both neuron and nvidia, Bottlerocket's x86_64 image both standard and neuron. Empty for Windows,
	// whose image carries no accelerator requirement.
	Variants []AMIVariant
	// WindowsBuild is the node.kubernetes.io/windows-build value the image requires; Windows only.
	WindowsBuild string
	// Mutable is true for `latest`: the parameter's value moves with each AMI release.
	Mutable bool
}

const aliasVersionLatest = "latest"

var (
	kubernetesVersionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
	// aliasVersionRE keeps a pinned version within the characters of an SSM parameter name, and
	// out of its path structure (no `/`).
	aliasVersionRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

	aliasWindows = map[string]struct{ year, build string }{
		capacity.FamilyWindows2019: {"2019", "10.0.17763"},
		capacity.FamilyWindows2022: {"2022", "10.0.20348"},
		capacity.FamilyWindows2025: {"2025", "10.0.26100"},
	}
)

// AliasParameters returns the SSM parameters Karpenter reads to resolve alias (`family@version`)
// for a cluster on kubernetesVersion ("1.31"). Karpenter walks a Go map, so it has no order of its
// own; the result follows the order the parameters are written in Karpenter's source. It is an
// error for an unknown family, a Windows alias with a pinned version, a malformed alias, version
// or Kubernetes version, AL2 on Kubernetes 1.33+ and Windows 2025 below 1.35 (Karpenter refuses
// both before reading any parameter).
func AliasParameters(alias, kubernetesVersion string) ([]AliasParameter, error) {
	family, version, ok := aliasFamily(alias)
	if len(alias) > 30 || !ok {
		return nil, fmt.Errorf("%q is not a valid alias: expected family@version with family in al2, al2023, bottlerocket, windows2019, windows2022, windows2025", alias)
	}
	if !aliasVersionRE.MatchString(version) {
		return nil, fmt.Errorf("alias %q: version %q may only hold letters, digits, '.', '_' and '-'", alias, version)
	}
	if !kubernetesVersionRE.MatchString(kubernetesVersion) {
		return nil, fmt.Errorf("kubernetes version %q is not major.minor, e.g. \"1.31\"", kubernetesVersion)
	}
	minor, err := strconv.Atoi(kubernetesVersion[strings.IndexByte(kubernetesVersion, '.')+1:])
	if err != nil {
		return nil, fmt.Errorf("kubernetes version %q: %w", kubernetesVersion, err)
	}
	latest := version == aliasVersionLatest

	switch family {
	case capacity.FamilyAL2:
		if minor >= 33 {
			return nil, fmt.Errorf("alias %q: AL2 aliases are not supported on Kubernetes 1.33 and later (cluster is %s)", alias, kubernetesVersion)
		}
		return al2Parameters(kubernetesVersion, version, latest), nil
	case capacity.FamilyAL2023:
		return al2023Parameters(kubernetesVersion, version, latest), nil
	case capacity.FamilyBottlerocket:
		if strings.TrimLeft(version, "v") == "" {
			return nil, fmt.Errorf("alias %q: version is empty once its leading \"v\" is dropped", alias)
		}
		return bottlerocketParameters(kubernetesVersion, version, latest), nil
	}
	w, ok := aliasWindows[family]
	if !ok {
		return nil, fmt.Errorf("alias %q: family %s has no alias parameters", alias, family)
	}
	if !latest {
		return nil, fmt.Errorf("alias %q: Windows aliases only support @latest", alias)
	}
	if family == capacity.FamilyWindows2025 && minor < 35 {
		return nil, fmt.Errorf("alias %q: Windows Server 2025 needs Kubernetes 1.35 or later (cluster is %s)", alias, kubernetesVersion)
	}
	return []AliasParameter{{
		Name: fmt.Sprintf("/aws/service/ami-windows-latest/Windows_Server-%s-English-Core-EKS_Optimized-%s/image_id", w.year, kubernetesVersion),
		// The path names no architecture; Karpenter reads it from the image. AWS publishes the
		// EKS-optimized Windows AMIs for x86_64 only.
		Architecture: "amd64",
		WindowsBuild: w.build,
		Mutable:      true,
	}}, nil
}

// al2Parameters: one x86_64 and one arm64 standard image, and an x86_64 GPU image for both
// accelerator variants. A pinned version goes into an image-name style leaf.
func al2Parameters(k8s, version string, latest bool) []AliasParameter {
	leaf := func(prefix string) string {
		if latest {
			return "recommended"
		}
		return fmt.Sprintf("amazon-eks-%snode-%s-%s", prefix, k8s, version)
	}
	p := func(dir, prefix, arch string, variants ...AMIVariant) AliasParameter {
		return AliasParameter{
			Name:         fmt.Sprintf("/aws/service/eks/optimized-ami/%s/%s/%s/image_id", k8s, dir, leaf(prefix)),
			Architecture: arch,
			Variants:     variants,
			Mutable:      latest,
		}
	}
	return []AliasParameter{
		p("amazon-linux-2", "", "amd64", AMIVariantStandard),
		p("amazon-linux-2-arm64", "arm64-", "arm64", AMIVariantStandard),
		p("amazon-linux-2-gpu", "gpu-", "amd64", AMIVariantNeuron, AMIVariantNvidia),
	}
}

// al2023Parameters: one parameter per architecture and variant; neuron is x86_64 only.
func al2023Parameters(k8s, version string, latest bool) []AliasParameter {
	var out []AliasParameter
	for _, a := range []struct {
		ec2, kube string
		variants  []AMIVariant
	}{
		{"x86_64", "amd64", []AMIVariant{AMIVariantStandard, AMIVariantNvidia, AMIVariantNeuron}},
		{"arm64", "arm64", []AMIVariant{AMIVariantStandard, AMIVariantNvidia}},
	} {
		for _, v := range a.variants {
			leaf := "recommended"
			if !latest {
				leaf = fmt.Sprintf("amazon-eks-node-al2023-%s-%s-%s-%s", a.ec2, v, k8s, version)
			}
			out = append(out, AliasParameter{
				Name:         fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/%s/%s/image_id", k8s, a.ec2, v, leaf),
				Architecture: a.kube,
				Variants:     []AMIVariant{v},
				Mutable:      latest,
			})
		}
	}
	return out
}

// bottlerocketParameters: the plain x86_64 image serves standard and neuron, the plain arm64 image
// standard, and the -nvidia images nvidia on both architectures. Leading `v`s of a pinned version
// are dropped (GitHub tags carry one, SSM paths do not); `latest` is the path's own leaf.
func bottlerocketParameters(k8s, version string, latest bool) []AliasParameter {
	version = strings.TrimLeft(version, "v")
	p := func(suffix, ec2, kube string, variants ...AMIVariant) AliasParameter {
		return AliasParameter{
			Name:         fmt.Sprintf("/aws/service/bottlerocket/aws-k8s-%s%s/%s/%s/image_id", k8s, suffix, ec2, version),
			Architecture: kube,
			Variants:     variants,
			Mutable:      latest,
		}
	}
	return []AliasParameter{
		p("", "x86_64", "amd64", AMIVariantStandard, AMIVariantNeuron),
		p("", "arm64", "arm64", AMIVariantStandard),
		p("-nvidia", "x86_64", "amd64", AMIVariantNvidia),
		p("-nvidia", "arm64", "arm64", AMIVariantNvidia),
	}
}
