package typelimits

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// The table's figures, through the capacity engine, give every type the pods Karpenter's own
// reference lists for it (computed by Karpenter from EC2's data, not from this table).
func TestENILimitedPodsMatchKarpenterReference(t *testing.T) {
	if Len() < 1000 {
		t.Fatalf("table has %d types; want the whole catalog", Len())
	}
	bad := 0
	for name, r := range table {
		got, err := ENILimitedPods(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got != int64(r.karpenterPods) {
			bad++
			if bad <= 10 {
				t.Errorf("%s: eni_limited_pods %d, Karpenter's reference lists %d", name, got, r.karpenterPods)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d types disagree with Karpenter's reference", bad, Len())
	}
}

// amazon-eks-ami's eni-max-pods.txt, an independent source, agrees for every type both have.
func TestENILimitedPodsMatchEKSAMI(t *testing.T) {
	f, err := os.Open("../capacity/testdata/eni-max-pods.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := capacity.ParseENIMaxPods(f)
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for name, pods := range want {
		got, err := ENILimitedPods(name)
		if err != nil {
			continue // a type the reference does not list
		}
		shared++
		if got != int64(pods) {
			t.Errorf("%s: eni_limited_pods %d, eni-max-pods.txt %d", name, got, pods)
		}
	}
	if shared < 900 {
		t.Fatalf("only %d types shared with eni-max-pods.txt", shared)
	}
}

// The catalog's VPC limits test table (another generator, another input) agrees on every
// shared type's ENIs, cards, hypervisor and trunking.
func TestNetworkMatchesCatalogTables(t *testing.T) {
	f, err := os.Open("../catalog/testdata/vpc-limits.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := catalog.ParseVPCLimits(f)
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for name, l := range want {
		n, ok := Network(name)
		if !ok {
			continue
		}
		shared++
		if n.MaxENIs != l.ENIs || n.IPv4PerENI != l.IPv4PerENI || n.DefaultCardIndex != l.DefaultCardIndex ||
			n.Hypervisor != l.Hypervisor || n.BareMetal != l.BareMetal || capacity.DefaultCardENIs(n) != l.CardENIs[l.DefaultCardIndex] {
			t.Errorf("%s: table %+v, catalog %+v", name, n, l)
		}
		if trunk, _, ok := catalog.Trunking(name); ok && trunk != *n.TrunkCompatible {
			t.Errorf("%s: trunk %t, catalog %t", name, *n.TrunkCompatible, trunk)
		}
	}
	if shared < 1000 {
		t.Fatalf("only %d types shared with the catalog's table", shared)
	}
}

func TestMaxPods(t *testing.T) {
	cases := []struct {
		typ        string
		networking map[string]any
		want       int64
	}{
		{"m5.large", nil, 29},
		{"m5.large", map[string]any{}, 29},
		{"m5.large", map[string]any{"prefix_delegation": true}, 110},    // (3 x 9 x 16) + 2, capped below 30 vCPUs
		{"m5.24xlarge", map[string]any{"prefix_delegation": true}, 250}, // 96 vCPUs
		{"m5.large", map[string]any{"prefix_delegation": false, "cni_role": "irsa"}, 29},
		{"m5.large", map[string]any{"custom_networking": map[string]any{"pod_subnet_selector_terms": []any{}}}, 20}, // primary ENI carries no pods
		{"m5.large", map[string]any{"custom_networking": true, "prefix_delegation": nil}, 20},
		{"m5.large", map[string]any{"custom_networking": false}, 29},
		{"m5.large", map[string]any{"security_groups_for_pods": true}, 20}, // the trunk takes an ENI
		{"m5.large", map[string]any{"reserved_enis": int64(1)}, 20},
		{"m5.large", map[string]any{"reserved_enis": float64(1)}, 20},
		{"t3.medium", map[string]any{"security_groups_for_pods": true}, 17}, // no trunk on t3: nothing reserved
		{"m4.large", map[string]any{"prefix_delegation": true}, 20},         // Xen: secondary IPs instead
	}
	for _, c := range cases {
		got, err := MaxPods(c.typ, c.networking)
		if err != nil || got != c.want {
			t.Errorf("MaxPods(%s, %v) = %d, %v; want %d", c.typ, c.networking, got, err, c.want)
		}
	}
}

func TestArgumentErrors(t *testing.T) {
	cases := []struct {
		name string
		run  func() error
		arg  int
		text string
	}{
		{"unknown type", func() error { _, err := MaxPods("m5.huge", nil); return err }, 0, `"m5.huge" is not in`},
		{"unknown key", func() error { _, err := MaxPods("m5.large", map[string]any{"prefix": true}); return err }, 1, "networking.prefix is not a networking attribute"},
		{"wrong type", func() error { _, err := MaxPods("m5.large", map[string]any{"prefix_delegation": "yes"}); return err }, 1, "networking.prefix_delegation must be a bool"},
		{"fraction", func() error { _, err := MaxPods("m5.large", map[string]any{"reserved_enis": 1.5}); return err }, 1, "whole number"},
		{"negative", func() error { _, err := MaxPods("m5.large", map[string]any{"reserved_enis": int64(-1)}); return err }, 1, "networking.reserved_enis: must not be negative"},
		{"no ENI left", func() error { _, err := MaxPods("t3.nano", map[string]any{"reserved_enis": int64(2)}); return err }, 1, "no ENI left"},
		{"negative pods", func() error { _, err := IPsPerNode("m5.large", nil, -1); return err }, 2, "pods must not be negative"},
		{"eni unknown type", func() error { _, err := ENILimitedPods("x"); return err }, 0, "karpenter_pod_capacity"},
	}
	for _, c := range cases {
		err := c.run()
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != c.arg || !strings.Contains(ae.Msg, c.text) {
			t.Errorf("%s: got %v (%#v); want argument %d with %q", c.name, err, ae, c.arg, c.text)
		}
	}
}

func TestIPsPerNode(t *testing.T) {
	// Whole ENIs of secondary IPs with the default WARM_ENI_TARGET=1: an empty m5.large holds its
	// primary ENI (10 addresses, whose 9 free ones meet the warm target); a full one all three.
	empty, err := IPsPerNode("m5.large", nil, 0)
	if err != nil || empty != (IPs{NodeSubnet: 10}) {
		t.Fatalf("empty m5.large = %+v, %v", empty, err)
	}
	full, err := IPsPerNode("m5.large", nil, 29)
	if err != nil || full != (IPs{NodeSubnet: 30}) {
		t.Fatalf("full m5.large = %+v, %v", full, err)
	}
	over, _ := IPsPerNode("m5.large", nil, 1000)
	if over != full {
		t.Errorf("pods above max pods: %+v, want the full node's %+v", over, full)
	}
	// Custom networking: the primary ENI stays in the node subnet, pods use the pod subnet.
	cn, err := IPsPerNode("m5.large", map[string]any{"custom_networking": true}, 20)
	if err != nil || cn.NodeSubnet == 0 || cn.PodSubnet == 0 {
		t.Errorf("custom networking = %+v, %v; want addresses in both subnets", cn, err)
	}
	// The projection agrees with the engine's full-node figure for every type.
	for name := range table {
		n, _ := Network(name)
		r, err := capacity.Compute(n, capacity.Settings{PrefixDelegation: true})
		if err != nil {
			continue
		}
		got, err := IPsPerNode(name, map[string]any{"prefix_delegation": true}, int64(r.MaxPods))
		if err != nil || got.NodeSubnet != int64(r.VPCIPsAtMaxPods) {
			t.Errorf("%s: %+v, %v; engine says %d at max pods", name, got, err, r.VPCIPsAtMaxPods)
		}
	}
}
