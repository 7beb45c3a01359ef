package nodeclass

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// The expected names are read off karpenter-provider-aws at commit 1d927085dd81 (v1.14.1 docs):
//   - al2:          pkg/providers/amifamily/al2.go          (AL2.DescribeImageQuery)
//   - al2023:       pkg/providers/amifamily/al2023.go       (AL2023.DescribeImageQuery, resolvePath)
//   - bottlerocket: pkg/providers/amifamily/bottlerocket.go (Bottlerocket.DescribeImageQuery)
//   - windows*:     pkg/providers/amifamily/windows.go      (Windows.DescribeImageQuery),
//     builds from pkg/apis/v1/labels.go
//   - version gates (AL2 < 1.33, Windows 2025 >= 1.35): pkg/providers/amifamily/ami.go
//   - variant requirements: pkg/providers/amifamily/types.go (Variant.Requirements)
func TestAliasParameters(t *testing.T) {
	const (
		std    = AMIVariantStandard
		nvidia = AMIVariantNvidia
		neuron = AMIVariantNeuron
	)
	vs := func(v ...AMIVariant) []AMIVariant { return v }
	tests := []struct {
		alias, k8s string
		want       []AliasParameter
	}{
		{"al2@latest", "1.31", []AliasParameter{
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2/recommended/image_id", "amd64", vs(std), "", true},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2-arm64/recommended/image_id", "arm64", vs(std), "", true},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/recommended/image_id", "amd64", vs(neuron, nvidia), "", true},
		}},
		{"al2@v20240807", "1.30", []AliasParameter{
			{"/aws/service/eks/optimized-ami/1.30/amazon-linux-2/amazon-eks-node-1.30-v20240807/image_id", "amd64", vs(std), "", false},
			{"/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/amazon-eks-arm64-node-1.30-v20240807/image_id", "arm64", vs(std), "", false},
			{"/aws/service/eks/optimized-ami/1.30/amazon-linux-2-gpu/amazon-eks-gpu-node-1.30-v20240807/image_id", "amd64", vs(neuron, nvidia), "", false},
		}},
		{"al2023@latest", "1.31", []AliasParameter{
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id", "amd64", vs(std), "", true},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id", "amd64", vs(nvidia), "", true},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/neuron/recommended/image_id", "amd64", vs(neuron), "", true},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id", "arm64", vs(std), "", true},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/nvidia/recommended/image_id", "arm64", vs(nvidia), "", true},
		}},
		{"al2023@v20240807", "1.31", []AliasParameter{
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.31-v20240807/image_id", "amd64", vs(std), "", false},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/amazon-eks-node-al2023-x86_64-nvidia-1.31-v20240807/image_id", "amd64", vs(nvidia), "", false},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/neuron/amazon-eks-node-al2023-x86_64-neuron-1.31-v20240807/image_id", "amd64", vs(neuron), "", false},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.31-v20240807/image_id", "arm64", vs(std), "", false},
			{"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/nvidia/amazon-eks-node-al2023-arm64-nvidia-1.31-v20240807/image_id", "arm64", vs(nvidia), "", false},
		}},
		{"bottlerocket@latest", "1.33", []AliasParameter{
			{"/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_id", "amd64", vs(std, neuron), "", true},
			{"/aws/service/bottlerocket/aws-k8s-1.33/arm64/latest/image_id", "arm64", vs(std), "", true},
			{"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/x86_64/latest/image_id", "amd64", vs(nvidia), "", true},
			{"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/arm64/latest/image_id", "arm64", vs(nvidia), "", true},
		}},
		{"bottlerocket@v1.20.0", "1.31", []AliasParameter{
			{"/aws/service/bottlerocket/aws-k8s-1.31/x86_64/1.20.0/image_id", "amd64", vs(std, neuron), "", false},
			{"/aws/service/bottlerocket/aws-k8s-1.31/arm64/1.20.0/image_id", "arm64", vs(std), "", false},
			{"/aws/service/bottlerocket/aws-k8s-1.31-nvidia/x86_64/1.20.0/image_id", "amd64", vs(nvidia), "", false},
			{"/aws/service/bottlerocket/aws-k8s-1.31-nvidia/arm64/1.20.0/image_id", "arm64", vs(nvidia), "", false},
		}},
		// Without the leading v, as SSM spells it: the same paths.
		{"bottlerocket@1.20.0", "1.31", []AliasParameter{
			{"/aws/service/bottlerocket/aws-k8s-1.31/x86_64/1.20.0/image_id", "amd64", vs(std, neuron), "", false},
			{"/aws/service/bottlerocket/aws-k8s-1.31/arm64/1.20.0/image_id", "arm64", vs(std), "", false},
			{"/aws/service/bottlerocket/aws-k8s-1.31-nvidia/x86_64/1.20.0/image_id", "amd64", vs(nvidia), "", false},
			{"/aws/service/bottlerocket/aws-k8s-1.31-nvidia/arm64/1.20.0/image_id", "arm64", vs(nvidia), "", false},
		}},
		{"windows2019@latest", "1.31", []AliasParameter{
			{"/aws/service/ami-windows-latest/Windows_Server-2019-English-Core-EKS_Optimized-1.31/image_id", "amd64", nil, "10.0.17763", true},
		}},
		{"windows2022@latest", "1.31", []AliasParameter{
			{"/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.31/image_id", "amd64", nil, "10.0.20348", true},
		}},
		{"windows2025@latest", "1.35", []AliasParameter{
			{"/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.35/image_id", "amd64", nil, "10.0.26100", true},
		}},
		// Version gates at their edges.
		{"al2@latest", "1.32", []AliasParameter{
			{"/aws/service/eks/optimized-ami/1.32/amazon-linux-2/recommended/image_id", "amd64", vs(std), "", true},
			{"/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64/recommended/image_id", "arm64", vs(std), "", true},
			{"/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/recommended/image_id", "amd64", vs(neuron, nvidia), "", true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.alias+"/"+tt.k8s, func(t *testing.T) {
			got, err := AliasParameters(tt.alias, tt.k8s)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", dumpParams(got), dumpParams(tt.want))
			}
		})
	}
}

// TestAliasParametersCoverage checks that the table above reaches every family × architecture ×
// variant Karpenter resolves an alias to.
func TestAliasParametersCoverage(t *testing.T) {
	want := []string{
		"al2 amd64 standard", "al2 arm64 standard", "al2 amd64 neuron", "al2 amd64 nvidia",
		"al2023 amd64 standard", "al2023 amd64 nvidia", "al2023 amd64 neuron", "al2023 arm64 standard", "al2023 arm64 nvidia",
		"bottlerocket amd64 standard", "bottlerocket amd64 neuron", "bottlerocket arm64 standard",
		"bottlerocket amd64 nvidia", "bottlerocket arm64 nvidia",
		"windows2019 amd64 -", "windows2022 amd64 -", "windows2025 amd64 -",
	}
	var got []string
	for _, c := range []struct{ alias, k8s string }{
		{"al2@latest", "1.32"}, {"al2023@latest", "1.34"}, {"bottlerocket@latest", "1.34"},
		{"windows2019@latest", "1.34"}, {"windows2022@latest", "1.34"}, {"windows2025@latest", "1.35"},
	} {
		ps, err := AliasParameters(c.alias, c.k8s)
		if err != nil {
			t.Fatalf("%s: %v", c.alias, err)
		}
		fam, _, _ := strings.Cut(c.alias, "@")
		for _, p := range ps {
			if len(p.Variants) == 0 {
				got = append(got, fam+" "+p.Architecture+" -")
			}
			for _, v := range p.Variants {
				got = append(got, fam+" "+p.Architecture+" "+string(v))
			}
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("combinations:\n got %q\nwant %q", got, want)
	}
}

func TestAliasParametersErrors(t *testing.T) {
	tests := []struct{ name, alias, k8s, wantErr string }{
		{"unknown family", "ubuntu@latest", "1.31", "not a valid alias"},
		{"family is case-sensitive", "AL2023@latest", "1.31", "not a valid alias"},
		{"no @", "al2023", "1.31", "not a valid alias"},
		{"empty version", "al2023@", "1.31", "not a valid alias"},
		{"empty family", "@latest", "1.31", "not a valid alias"},
		{"alias over 30 characters", "al2023@v20240807000000000000000", "1.31", "not a valid alias"},
		{"version with a slash", "al2023@v2024/0807", "1.31", "may only hold"},
		{"version with a second @", "al2023@v1@v2", "1.31", "may only hold"},
		{"bottlerocket version only v", "bottlerocket@vv", "1.31", "leading"},
		{"windows2019 pinned", "windows2019@v20240807", "1.31", "only support @latest"},
		{"windows2022 pinned", "windows2022@v20240807", "1.31", "only support @latest"},
		{"windows2025 pinned", "windows2025@v20240807", "1.35", "only support @latest"},
		{"empty k8s version", "al2023@latest", "", "not major.minor"},
		{"k8s version with patch", "al2023@latest", "1.31.2", "not major.minor"},
		{"k8s version with v", "al2023@latest", "v1.31", "not major.minor"},
		{"k8s version without minor", "al2023@latest", "1.", "not major.minor"},
		{"k8s version with suffix", "al2023@latest", "1.31-eks", "not major.minor"},
		{"al2 on 1.33", "al2@latest", "1.33", "1.33 and later"},
		{"al2 pinned on 1.34", "al2@v20240807", "1.34", "1.33 and later"},
		{"windows2025 on 1.34", "windows2025@latest", "1.34", "1.35 or later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AliasParameters(tt.alias, tt.k8s)
			if err == nil {
				t.Fatalf("AliasParameters(%q, %q) = %v, want an error containing %q", tt.alias, tt.k8s, got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestAMIVariantInstanceLabels(t *testing.T) {
	gpu, acc := requirements.LabelInstanceGPUCount, requirements.LabelInstanceAcceleratorCount
	tests := []struct {
		v               AMIVariant
		present, absent []string
	}{
		{AMIVariantStandard, nil, []string{acc, gpu}},
		{AMIVariantNvidia, []string{gpu}, nil},
		{AMIVariantNeuron, []string{acc}, nil},
		{AMIVariant("other"), nil, nil},
	}
	for _, tt := range tests {
		present, absent := tt.v.InstanceLabels()
		if !slices.Equal(present, tt.present) || !slices.Equal(absent, tt.absent) {
			t.Errorf("%s: got present %q absent %q, want %q %q", tt.v, present, absent, tt.present, tt.absent)
		}
	}
}

func dumpParams(ps []AliasParameter) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.Name + " " + p.Architecture + " ")
		for _, v := range p.Variants {
			b.WriteString(string(v) + ",")
		}
		b.WriteString(" " + p.WindowsBuild)
		if p.Mutable {
			b.WriteString(" mutable")
		}
		b.WriteString("\n")
	}
	return b.String()
}
