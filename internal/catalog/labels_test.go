package catalog

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

const aws = "karpenter.k8s.aws/"

func TestLabels(t *testing.T) {
	cases := []struct {
		it   InstanceType
		want map[string]string
	}{
		{m5Large(), map[string]string{
			"node.kubernetes.io/instance-type": "m5.large", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
			aws + "instance-category": "m", aws + "instance-generation": "5", aws + "instance-family": "m5",
			aws + "instance-size": "large", aws + "instance-cpu": "2", aws + "instance-cpu-manufacturer": "intel",
			aws + "instance-cpu-sustained-clock-speed-mhz": "3100", aws + "instance-memory": "8192",
			aws + "instance-ebs-bandwidth": "4750", aws + "instance-network-bandwidth": "750",
			aws + "instance-encryption-in-transit-supported": "false", aws + "instance-hypervisor": "nitro",
			aws + "instance-capability-flex": "false",
		}},
		{c7gXLarge(), map[string]string{
			"node.kubernetes.io/instance-type": "c7g.xlarge", "kubernetes.io/arch": "arm64", "kubernetes.io/os": "linux",
			aws + "instance-category": "c", aws + "instance-generation": "7", aws + "instance-family": "c7g",
			aws + "instance-size": "xlarge", aws + "instance-cpu": "4", aws + "instance-cpu-manufacturer": "aws",
			aws + "instance-cpu-sustained-clock-speed-mhz": "2600", aws + "instance-memory": "8192",
			aws + "instance-ebs-bandwidth": "10000", aws + "instance-network-bandwidth": "1876",
			aws + "instance-encryption-in-transit-supported": "true", aws + "instance-hypervisor": "nitro",
			aws + "instance-capability-flex": "false",
		}},
		{p548XLarge(), map[string]string{
			"node.kubernetes.io/instance-type": "p5.48xlarge", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
			aws + "instance-category": "p", aws + "instance-generation": "5", aws + "instance-family": "p5",
			aws + "instance-size": "48xlarge", aws + "instance-cpu": "192", aws + "instance-cpu-manufacturer": "amd",
			aws + "instance-cpu-sustained-clock-speed-mhz": "3600", aws + "instance-memory": "2097152",
			aws + "instance-ebs-bandwidth": "80000", aws + "instance-network-bandwidth": "3200000",
			aws + "instance-encryption-in-transit-supported": "true", aws + "instance-hypervisor": "nitro",
			aws + "instance-local-nvme": "30400", aws + "instance-gpu-name": "h100", aws + "instance-gpu-manufacturer": "nvidia",
			aws + "instance-gpu-count": "8", aws + "instance-gpu-memory": "81920", aws + "instance-capability-flex": "false",
		}},
		{g4dnXLarge(), map[string]string{
			"node.kubernetes.io/instance-type": "g4dn.xlarge", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
			aws + "instance-category": "g", aws + "instance-generation": "4", aws + "instance-family": "g4dn",
			aws + "instance-size": "xlarge", aws + "instance-cpu": "4", aws + "instance-cpu-manufacturer": "intel",
			aws + "instance-cpu-sustained-clock-speed-mhz": "2500", aws + "instance-memory": "16384",
			aws + "instance-ebs-bandwidth": "3500", aws + "instance-network-bandwidth": "5000",
			aws + "instance-encryption-in-transit-supported": "true", aws + "instance-hypervisor": "nitro",
			aws + "instance-local-nvme": "125", aws + "instance-gpu-name": "t4", aws + "instance-gpu-manufacturer": "nvidia",
			aws + "instance-gpu-count": "1", aws + "instance-gpu-memory": "16384", aws + "instance-capability-flex": "false",
		}},
		{c5Metal(), map[string]string{
			"node.kubernetes.io/instance-type": "c5.metal", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
			aws + "instance-category": "c", aws + "instance-generation": "5", aws + "instance-family": "c5",
			aws + "instance-size": "metal", aws + "instance-cpu": "96", aws + "instance-cpu-manufacturer": "intel",
			aws + "instance-cpu-sustained-clock-speed-mhz": "3600", aws + "instance-memory": "196608",
			aws + "instance-ebs-bandwidth": "19000", aws + "instance-network-bandwidth": "25000",
			aws + "instance-encryption-in-transit-supported": "false",
			aws + "instance-hypervisor":                      "", // bare metal: present and empty, as in Karpenter
			aws + "instance-capability-flex":                 "false",
		}},
		{c7iFlexLarge(), map[string]string{
			"node.kubernetes.io/instance-type": "c7i-flex.large", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
			aws + "instance-category": "c", aws + "instance-generation": "7", aws + "instance-family": "c7i-flex",
			aws + "instance-size": "large", aws + "instance-cpu": "2", aws + "instance-cpu-manufacturer": "intel",
			aws + "instance-cpu-sustained-clock-speed-mhz": "3200", aws + "instance-memory": "4096",
			aws + "instance-ebs-bandwidth": "10000", aws + "instance-network-bandwidth": "390",
			aws + "instance-encryption-in-transit-supported": "true", aws + "instance-hypervisor": "nitro",
			aws + "instance-capability-flex": "true",
		}},
		{x2ieznXLarge2(), map[string]string{
			"node.kubernetes.io/instance-type": "x2iezn.2xlarge", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
			aws + "instance-category": "x", aws + "instance-generation": "2", aws + "instance-family": "x2iezn",
			aws + "instance-size": "2xlarge", aws + "instance-cpu": "8", aws + "instance-cpu-manufacturer": "intel",
			aws + "instance-cpu-sustained-clock-speed-mhz": "4500", aws + "instance-memory": "262144",
			aws + "instance-ebs-bandwidth": "3170", aws + "instance-network-bandwidth": "12500",
			aws + "instance-encryption-in-transit-supported": "true", aws + "instance-hypervisor": "nitro",
			aws + "instance-capability-flex": "false",
		}},
		{inf2XLarge(), map[string]string{
			"node.kubernetes.io/instance-type": "inf2.xlarge", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
			aws + "instance-category": "inf", aws + "instance-generation": "2", aws + "instance-family": "inf2",
			aws + "instance-size": "xlarge", aws + "instance-cpu": "4", aws + "instance-cpu-manufacturer": "amd",
			aws + "instance-cpu-sustained-clock-speed-mhz": "3600", aws + "instance-memory": "16384",
			aws + "instance-ebs-bandwidth": "10000", aws + "instance-network-bandwidth": "2083",
			aws + "instance-encryption-in-transit-supported": "true", aws + "instance-hypervisor": "nitro",
			// Neuron wins over the inference-accelerator entry.
			aws + "instance-accelerator-name": "inferentia2", aws + "instance-accelerator-manufacturer": "aws",
			aws + "instance-accelerator-count": "1", aws + "instance-capability-flex": "false",
		}},
		{mac2Metal(), map[string]string{
			// Karpenter's own spelling of an architecture Kubernetes has no name for; no clock reported.
			"node.kubernetes.io/instance-type": "mac2.metal", "kubernetes.io/os": "linux", "kubernetes.io/arch": "[arm64_mac]",
			aws + "instance-category": "mac", aws + "instance-generation": "2", aws + "instance-family": "mac2",
			aws + "instance-size": "metal", aws + "instance-cpu": "8", aws + "instance-cpu-manufacturer": "apple",
			aws + "instance-cpu-sustained-clock-speed-mhz": "0",
			aws + "instance-memory":                        "16384", aws + "instance-network-bandwidth": "10000",
			aws + "instance-encryption-in-transit-supported": "false", aws + "instance-hypervisor": "",
			aws + "instance-capability-flex": "false",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.it.Name, func(t *testing.T) {
			got := Labels(&tc.it)
			if !maps.Equal(got, tc.want) {
				for _, k := range sortedKeys(got, tc.want) {
					if g, w := got[k], tc.want[k]; g != w {
						_, gok := got[k]
						_, wok := tc.want[k]
						t.Errorf("%s: got %q (present %v), want %q (present %v)", k, g, gok, w, wok)
					}
				}
			}
			for k := range got {
				if !IsDefinedKey(k) {
					t.Errorf("label %s is not in DefinedKeys", k)
				}
			}
		})
	}
}

func sortedKeys(ms ...map[string]string) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// The category/generation regex on the names Karpenter's own tests and odd families use.
func TestLabelsNameParsing(t *testing.T) {
	cases := []struct{ name, category, generation, family, size string }{
		{"m5.large", "m", "5", "m5", "large"},
		{"c7g.xlarge", "c", "7", "c7g", "xlarge"},
		{"c7i-flex.large", "c", "7", "c7i-flex", "large"},
		{"u-6tb1.112xlarge", "u", "1", "u-6tb1", "112xlarge"},
		{"u7in-16tb.224xlarge", "u", "7", "u7in-16tb", "224xlarge"},
		{"p6-b200.48xlarge", "p", "6", "p6-b200", "48xlarge"},
		{"mac2-m2pro.metal", "mac", "2", "mac2-m2pro", "metal"},
		{"i7ie.metal-48xl", "i", "7", "i7ie", "metal-48xl"},
		{"x2iezn.2xlarge", "x", "2", "x2iezn", "2xlarge"},
		{"weird", "", "", "", ""},
	}
	for _, tc := range cases {
		l := Labels(&InstanceType{Name: tc.name})
		got := []string{l[requirements.LabelInstanceCategory], l[requirements.LabelInstanceGeneration],
			l[requirements.LabelInstanceFamily], l[requirements.LabelInstanceSize]}
		want := []string{tc.category, tc.generation, tc.family, tc.size}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, want)
		}
	}
}

func TestLabelsGPUOnlyWhenSingleKind(t *testing.T) {
	it := g4dnXLarge()
	it.GPUs = append(it.GPUs, Device{Name: "Other", Manufacturer: "AMD", Count: 1})
	for k := range Labels(&it) {
		if strings.Contains(k, "instance-gpu-") {
			t.Errorf("two GPU kinds must give no GPU labels, got %s", k)
		}
	}
	inf1 := InstanceType{Name: "inf1.xlarge", InferenceAccelerators: []Device{{Name: "Inferentia", Manufacturer: "AWS", Count: 1}}}
	l := Labels(&inf1)
	if l[requirements.LabelInstanceAcceleratorName] != "inferentia" || l[requirements.LabelInstanceAcceleratorCount] != "1" {
		t.Errorf("inference accelerator labels: %v", l)
	}
}

// The network bandwidth label is Karpenter's table's, release by release: a type added to the
// table later has none in earlier releases, a type dropped from it none in later ones, and a
// value the table changed is each release's own; an unknown minor reads the newest table.
func TestNetworkBandwidthMbps(t *testing.T) {
	cases := []struct {
		minor, name string
		want        int
		ok          bool
	}{
		{"1.15", "m5.large", 750, true},
		{"1.9", "m5.large", 750, true},
		{"", "p5.48xlarge", 3200000, true},
		{"1.12", "f1.2xlarge", 2500, true}, // retired: in the tables up to 1.12
		{"1.15", "f1.2xlarge", 0, false},
		{"1.14", "g7.2xlarge", 60000, true}, // 1.15's table corrected it
		{"1.15", "g7.2xlarge", 40000, true},
		{"1.9", "g7.2xlarge", 0, false},
		{"1.99", "g7.2xlarge", 40000, true},
		{"1.15", "x9.unknown", 0, false},
	}
	for _, tc := range cases {
		if got, ok := NetworkBandwidthMbps(tc.minor, tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("NetworkBandwidthMbps(%q, %q) = %d, %v; want %d, %v", tc.minor, tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if len(bandwidthMinors) < 7 || len(bandwidthMbps) < 1300 {
		t.Errorf("the table has %d releases and %d types", len(bandwidthMinors), len(bandwidthMbps))
	}
}

func TestToNetwork(t *testing.T) {
	p5 := p548XLarge()
	n := ToNetwork(&p5)
	if len(n.CardENIs) != 32 || n.CardENIs[0] != 2 || n.MaxENIs != 64 || n.MaxEFAInterfaces != 32 || !n.EFASupported {
		t.Errorf("p5.48xlarge network: %+v", n)
	}
	// No cards reported: the engine falls back to MaximumNetworkInterfaces.
	m5 := m5Large()
	m5.NetworkCards = nil
	if n := ToNetwork(&m5); n.CardENIs != nil || n.MaxENIs != 3 {
		t.Errorf("m5.large without cards: %+v", n)
	}
	// Cards out of order or sparse land at their index.
	it := InstanceType{Name: "x.large", NetworkCards: []NetworkCard{{Index: 2, MaxENIs: 7}, {Index: 0, MaxENIs: 4}}}
	if n := ToNetwork(&it); !slices.Equal(n.CardENIs, []int{4, 0, 7}) {
		t.Errorf("sparse cards: %v", n.CardENIs)
	}
}
