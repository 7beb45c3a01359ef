package provider

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

// capUnknown marks a value known only after apply in capConfig.
type capUnknown struct{}

// capValue converts a Go value to a tftypes value of typ: nil -> null, capUnknown -> unknown,
// string, int, bool, []any for lists, map[string]any for objects and maps.
func capValue(t *testing.T, typ tftypes.Type, v any) tftypes.Value {
	t.Helper()
	switch v.(type) {
	case nil:
		return tftypes.NewValue(typ, nil)
	case capUnknown:
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	switch typ := typ.(type) {
	case tftypes.Object:
		in := v.(map[string]any)
		vals := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			vals[name] = capValue(t, at, in[name])
		}
		for name := range in {
			if _, ok := typ.AttributeTypes[name]; !ok {
				t.Fatalf("no attribute %q", name)
			}
		}
		return tftypes.NewValue(typ, vals)
	case tftypes.List:
		var elems []tftypes.Value
		for _, e := range v.([]any) {
			elems = append(elems, capValue(t, typ.ElementType, e))
		}
		return tftypes.NewValue(typ, elems)
	case tftypes.Map:
		elems := map[string]tftypes.Value{}
		for k, e := range v.(map[string]any) {
			elems[k] = capValue(t, typ.ElementType, e)
		}
		return tftypes.NewValue(typ, elems)
	}
	switch x := v.(type) {
	case int:
		return tftypes.NewValue(typ, big.NewFloat(float64(x)))
	default:
		return tftypes.NewValue(typ, x)
	}
}

// capConfig builds a data source configuration from attribute values.
func capConfig(t *testing.T, ds datasource.DataSource, attrs map[string]any) tfsdk.Config {
	t.Helper()
	ctx := context.Background()
	var sresp datasource.SchemaResponse
	ds.Schema(ctx, datasource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx)
	return tfsdk.Config{Schema: sresp.Schema, Raw: capValue(t, typ, attrs)}
}

func capValidate(t *testing.T, ds datasource.DataSourceWithValidateConfig, attrs map[string]any) diag.Diagnostics {
	t.Helper()
	var resp datasource.ValidateConfigResponse
	ds.ValidateConfig(context.Background(), datasource.ValidateConfigRequest{Config: capConfig(t, ds, attrs)}, &resp)
	return resp.Diagnostics
}

func capRead(t *testing.T, ds datasource.DataSource, attrs map[string]any) datasource.ReadResponse {
	t.Helper()
	cfg := capConfig(t, ds, attrs)
	resp := datasource.ReadResponse{State: tfsdk.State(cfg)}
	ds.Read(context.Background(), datasource.ReadRequest{Config: cfg}, &resp)
	return resp
}

func capErrorPaths(diags diag.Diagnostics) []string {
	var out []string
	for _, d := range diags.Errors() {
		if dp, ok := d.(diag.DiagnosticWithPath); ok {
			out = append(out, dp.Path().String())
		} else {
			out = append(out, "<no path>")
		}
	}
	return out
}

func capDiagText(diags diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "[%s] %s: %s\n", d.Severity(), d.Summary(), d.Detail())
	}
	return b.String()
}

func iface(card, dev int, typ string) map[string]any {
	return map[string]any{"network_card_index": card, "device_index": dev, "interface_type": typ}
}

// capFakeEC2 serves a small instance-type catalog and counts the calls.

func capInfo(name string, vcpu int32, hv ec2types.InstanceTypeHypervisor, arch ec2types.ArchitectureType, cardENIs []int32, ipv4 int32) ec2types.InstanceTypeInfo {
	var cards []ec2types.NetworkCardInfo
	total := int32(0)
	for i, n := range cardENIs {
		cards = append(cards, ec2types.NetworkCardInfo{NetworkCardIndex: aws.Int32(int32(i)), MaximumNetworkInterfaces: aws.Int32(n)})
		total += n
	}
	return ec2types.InstanceTypeInfo{
		InstanceType:                 ec2types.InstanceType(name),
		Hypervisor:                   hv,
		BareMetal:                    aws.Bool(hv == ""),
		SupportedVirtualizationTypes: []ec2types.VirtualizationType{ec2types.VirtualizationTypeHvm},
		SupportedUsageClasses:        []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand, ec2types.UsageClassTypeSpot},
		ProcessorInfo:                &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{arch}, Manufacturer: aws.String("Intel")},
		VCpuInfo:                     &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(vcpu)},
		MemoryInfo:                   &ec2types.MemoryInfo{SizeInMiB: aws.Int64(int64(vcpu) * 4096)},
		NetworkInfo: &ec2types.NetworkInfo{
			MaximumNetworkInterfaces: aws.Int32(total), NetworkCards: cards, DefaultNetworkCardIndex: aws.Int32(0),
			Ipv4AddressesPerInterface: aws.Int32(ipv4), Ipv6AddressesPerInterface: aws.Int32(ipv4),
			EfaSupported: aws.Bool(len(cardENIs) > 1), EfaInfo: &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(int32(len(cardENIs)))},
			NetworkPerformance: aws.String("25 Gigabit"),
		},
	}
}

// capFakeMeta serves a small catalog from the shared EC2 fake: seven types, offered in two
// zones (c7g.large in one, p5.48xlarge in none).
func capFakeMeta() (*Meta, *awsfake.EC2) {
	f := &awsfake.EC2{InstanceTypes: []ec2types.InstanceTypeInfo{
		capInfo("m5.large", 2, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeX8664, []int32{3}, 10),
		capInfo("m5.xlarge", 4, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeX8664, []int32{4}, 15),
		capInfo("m4.large", 2, ec2types.InstanceTypeHypervisorXen, ec2types.ArchitectureTypeX8664, []int32{2}, 10),
		capInfo("t2.micro", 1, ec2types.InstanceTypeHypervisorXen, ec2types.ArchitectureTypeX8664, []int32{2}, 2),
		capInfo("c7g.large", 2, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeArm64, []int32{3}, 10),
		capInfo("c5.metal", 96, "", ec2types.ArchitectureTypeX8664, []int32{15}, 50),
		capInfo("p5.48xlarge", 192, ec2types.InstanceTypeHypervisorNitro, ec2types.ArchitectureTypeX8664, slices.Repeat([]int32{2}, 32), 50),
	}}
	for _, name := range []string{"m5.large", "m5.xlarge", "m4.large", "t2.micro", "c7g.large", "c5.metal"} {
		for _, z := range []string{"ap-southeast-1a", "ap-southeast-1b"} {
			if name == "c7g.large" && z == "ap-southeast-1a" {
				continue
			}
			f.Offerings = append(f.Offerings, ec2types.InstanceTypeOffering{InstanceType: ec2types.InstanceType(name), Location: aws.String(z)})
		}
	}
	return &Meta{Client: &awsclient.Client{EC2: f, Region: "ap-southeast-1", Calls: awsclient.NewCallCounter()}}, f
}

func TestCNIFieldMappingCoversValidateSettings(t *testing.T) {
	// Every attribute capacity.InputFindings can name is an attribute of the schema.
	bad := -1
	s := capacity.Settings{AMIFamily: "x", ReservedENIs: -1, MaxPods: &bad, PodsPerCore: &bad, BranchInterfaces: &bad,
		Warm:              capacity.WarmTargets{ENI: &bad, IP: &bad, MinimumIP: &bad, Prefix: &bad},
		NetworkInterfaces: []capacity.Interface{{InterfaceType: "bogus"}}}
	attrs := cniSettingsAttributes()
	findings := capacity.InputFindings(s)
	if len(findings) < 10 {
		t.Fatalf("%d findings, want one per setting: %v", len(findings), findings)
	}
	for _, e := range findings {
		name := e.Path.Steps()[0].Name
		if _, ok := attrs[name]; !ok {
			t.Errorf("capacity names %q, which is not in the schema", name)
		}
	}
	for name, a := range attrs {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("%s has no MarkdownDescription", name)
		}
	}
}
