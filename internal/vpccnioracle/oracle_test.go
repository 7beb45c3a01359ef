package vpccnioracle

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/amazon-vpc-cni-k8s/pkg/vpc"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	_ "github.com/nodeplane/terraform-provider-karpenter/internal/vpccnioracle/quiet"
)

// eniMaxPodsPath is the amazon-eks-ami table kept as repository data by cmd/gen-eni-max-pods.
const eniMaxPodsPath = "../capacity/testdata/eni-max-pods.tsv"

// vpcLimitsPath is the VPC resource controller's table as Karpenter generates it, kept as
// repository data by cmd/gen-vpc-limits.
const vpcLimitsPath = "../catalog/testdata/vpc-limits.tsv"

// knownCNIDifference is a type on which pkg/vpc and the repository's tables disagree: the
// figures that differ (see cniDifferences for the names) and why.
type knownCNIDifference struct {
	figures string
	reason  string
}

// vpcCNIKnownDifferences are the disagreements between pkg/vpc and the repository's tables that
// are understood. The test fails when an entry's differing figures change, including when the
// entry stops differing (remove it then).
var vpcCNIKnownDifferences = map[string]knownCNIDifference{
	// Newer data than the tables': the CNI's table listed one card for these (15 and 24 ENIs)
	// until at least its master of 2026-08-20 (b5218838) and lists two (8+7, 12+12: the same
	// ENIs in all) from v1.23.1; it is generated from DescribeInstanceTypes in 17 regions and
	// refuses regions that disagree. LocalStack reports the same two cards (knownDataDrift in
	// catalog_test.go). vpc-limits.tsv (Karpenter, 2026-03-20) and eni-max-pods (EKS AMI, file
	// of 2026-02-27) are older and have one card. On two cards the project's formula counts the
	// default card only, as Karpenter and the CNI's own eni-max-pods.txt (394, 590) do.
	"i7ie.48xlarge":   {"enis cards default_card_enis pods", "pkg/vpc: two cards (8+7 ENIs); the tables, older: one card of 15"},
	"i7ie.metal-48xl": {"enis cards default_card_enis pods", "pkg/vpc: two cards (8+7 ENIs); the tables, older: one card of 15"},
	"i8ge.48xlarge":   {"enis cards default_card_enis pods", "pkg/vpc: two cards (12+12 ENIs); the tables, older: one card of 24"},
	"i8ge.metal-48xl": {"enis cards default_card_enis pods", "pkg/vpc: two cards (12+12 ENIs); the tables, older: one card of 24"},
	// The CNI's generator adds c7g.metal by hand (addManualLimits in its
	// scripts/gen_vpc_ip_limits.go) with hypervisor "nitro"; EC2, and so the table, give bare
	// metal no hypervisor. The pod count does not depend on it.
	"c7g.metal": {"hypervisor", "hand-written CNI entry says nitro; EC2 gives bare metal no hypervisor"},
}

// cniDifferences compares pkg/vpc's limits for one type with the repository's rows (limits, and
// eni-max-pods when havePods), returning what differs as "figure: pkg/vpc vs table" strings and
// the figure names alone, space-separated in a fixed order.
func cniDifferences(name string, l vpc.InstanceTypeLimits, row catalog.VPCLimits, haveRow bool, pods int, havePods bool) (diffs []string, figures string) {
	var names []string
	differ := func(figure string, cni, table any) {
		if cni != table {
			diffs = append(diffs, fmt.Sprintf("%s: pkg/vpc %v, table %v", figure, cni, table))
			names = append(names, figure)
		}
	}
	if haveRow {
		differ("ipv4_per_eni", l.IPv4Limit, row.IPv4PerENI)
		differ("default_card", l.DefaultNetworkCardIndex, row.DefaultCardIndex)
		// pkg/vpc's ENILimit is the default card's ENIs when a type has several cards (the CNI
		// attaches pod ENIs there only), the type's MaximumNetworkInterfaces otherwise.
		tableENIs := row.ENIs
		if len(row.CardENIs) > 1 {
			tableENIs = row.CardENIs[row.DefaultCardIndex]
		}
		differ("enis", l.ENILimit, tableENIs)
		if len(l.NetworkCards) > 0 { // empty for the few types the CNI adds by hand
			differ("cards", len(l.NetworkCards), len(row.CardENIs))
			total := 0
			defaultCard := -1
			for _, c := range l.NetworkCards {
				total += int(c.MaximumNetworkInterfaces)
				if int(c.NetworkCardIndex) == l.DefaultNetworkCardIndex {
					defaultCard = int(c.MaximumNetworkInterfaces)
				}
			}
			differ("all_card_enis", total, row.ENIs)
			differ("default_card_enis", defaultCard, row.CardENIs[row.DefaultCardIndex])
		}
		differ("hypervisor", cniHypervisor(l), row.Hypervisor)
		differ("bare_metal", l.IsBareMetal, row.BareMetal)
	}
	if havePods {
		r, err := capacity.Compute(catalog.ToNetwork(cniInstanceType(name, l)), capacity.Settings{})
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("pods: %v", err))
			names = append(names, "pods")
		} else if r.ENILimitedPods != pods {
			diffs = append(diffs, fmt.Sprintf("pods: formula on pkg/vpc %d, eni-max-pods %d", r.ENILimitedPods, pods))
			names = append(names, "pods")
		}
	}
	return diffs, strings.Join(names, " ")
}

// cniHypervisor is EC2's hypervisor value: the CNI's generator writes "unknown" where EC2 says
// nothing (bare metal).
func cniHypervisor(l vpc.InstanceTypeLimits) string {
	if l.HypervisorType == "unknown" {
		return ""
	}
	return l.HypervisorType
}

// cniInstanceType is the catalog's view of a type built from pkg/vpc's limits alone, for
// catalog.ToNetwork. pkg/vpc has no vCPU count (one stands in: without pods_per_core it changes
// nothing) and no all-card ENI total (the cards' sum stands in, or ENILimit when it lists none).
func cniInstanceType(name string, l vpc.InstanceTypeLimits) *catalog.InstanceType {
	it := &catalog.InstanceType{
		Name:             name,
		VCPUs:            1,
		Hypervisor:       cniHypervisor(l),
		BareMetal:        l.IsBareMetal,
		MaxENIs:          l.ENILimit,
		DefaultCardIndex: l.DefaultNetworkCardIndex,
		IPv4PerENI:       l.IPv4Limit,
	}
	if len(l.NetworkCards) > 0 {
		it.MaxENIs = 0
		for _, c := range l.NetworkCards {
			it.NetworkCards = append(it.NetworkCards, catalog.NetworkCard{Index: int(c.NetworkCardIndex), MaxENIs: int(c.MaximumNetworkInterfaces)})
			it.MaxENIs += int(c.MaximumNetworkInterfaces)
		}
		slices.SortFunc(it.NetworkCards, func(a, b catalog.NetworkCard) int { return a.Index - b.Index })
	}
	return it
}

// TestVPCCNIOracle compares, for every type pkg/vpc knows, its ENIs, IPv4 per ENI and network
// cards with the VPC resource controller's table (vpc-limits.tsv), and the pods the project's
// formula gives on its limits (catalog.ToNetwork, capacity.Compute with no settings) with the
// EKS AMI's eni-max-pods table. Types one side does not know are counted, not failures.
func TestVPCCNIOracle(t *testing.T) {
	limits := readTable(t, vpcLimitsPath, catalog.ParseVPCLimits)
	pods := readTable(t, eniMaxPodsPath, capacity.ParseENIMaxPods)

	// pkg/vpc looks types up but does not list them: ask it for every name the AWS SDK's EC2
	// enum and the two tables know.
	names := map[string]bool{}
	for _, v := range ec2types.InstanceType("").Values() {
		names[string(v)] = true
	}
	for n := range limits {
		names[n] = true
	}
	for n := range pods {
		names[n] = true
	}

	var inCNI, limitsCompared, podsCompared, equal int
	var noCards, cniOnly []string
	var mismatches, known []string
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		l, ok := vpc.GetInstance(name)
		if !ok {
			continue
		}
		inCNI++
		seen[name] = true
		row, haveRow := limits[name]
		want, havePods := pods[name]
		if haveRow {
			limitsCompared++
		}
		if havePods {
			podsCompared++
		}
		if !haveRow && !havePods {
			cniOnly = append(cniOnly, name)
			continue
		}
		if haveRow && len(l.NetworkCards) == 0 {
			noCards = append(noCards, name)
		}
		diffs, figures := cniDifferences(name, l, row, haveRow, want, havePods)
		k, isKnown := vpcCNIKnownDifferences[name]
		switch {
		case len(diffs) == 0 && isKnown:
			mismatches = append(mismatches, fmt.Sprintf("%s: pkg/vpc now agrees with the tables; remove it from vpcCNIKnownDifferences", name))
		case len(diffs) == 0:
			equal++
		case isKnown && figures == k.figures:
			known = append(known, fmt.Sprintf("%s (%s): %s", name, strings.Join(diffs, "; "), k.reason))
		case isKnown:
			mismatches = append(mismatches, fmt.Sprintf("%s: %s; vpcCNIKnownDifferences expects %q to differ", name, strings.Join(diffs, "; "), k.figures))
		default:
			mismatches = append(mismatches, fmt.Sprintf("%s: %s", name, strings.Join(diffs, "; ")))
		}
	}
	for name := range vpcCNIKnownDifferences {
		if !seen[name] {
			mismatches = append(mismatches, fmt.Sprintf("%s: listed in vpcCNIKnownDifferences but pkg/vpc or the tables no longer know it", name))
		}
	}
	var limitsOnlyNames []string
	var podsOnly int
	for _, n := range slices.Sorted(maps.Keys(limits)) {
		if !seen[n] {
			limitsOnlyNames = append(limitsOnlyNames, n)
		}
	}
	for n := range pods {
		if !seen[n] {
			podsOnly++
		}
	}

	t.Logf("pkg/vpc: %d types; compared %d with vpc-limits.tsv (%d types) and %d with eni-max-pods (%d types); %d equal, %d known differences, %d mismatches",
		inCNI, limitsCompared, len(limits), podsCompared, len(pods), equal, len(known), len(mismatches))
	t.Logf("known to one side only: %d in pkg/vpc and neither table, %d in vpc-limits.tsv and not pkg/vpc, %d in eni-max-pods and not pkg/vpc",
		len(cniOnly), len(limitsOnlyNames), podsOnly)
	if len(cniOnly) > 0 {
		t.Logf("in pkg/vpc only: %s", strings.Join(cniOnly, " "))
	}
	if len(limitsOnlyNames) > 0 {
		t.Logf("in vpc-limits.tsv, not in pkg/vpc: %s", strings.Join(limitsOnlyNames, " "))
	}
	if len(noCards) > 0 {
		t.Logf("pkg/vpc lists no network cards (card figures not compared): %s", strings.Join(noCards, " "))
	}
	for _, k := range known {
		t.Logf("known difference: %s", k)
	}
	if limitsCompared < 1000 || podsCompared < 1000 {
		t.Errorf("compared %d types with vpc-limits.tsv and %d with eni-max-pods; expected over 1,000 each", limitsCompared, podsCompared)
	}
	if len(mismatches) > 0 {
		slices.Sort(mismatches)
		t.Errorf("%d disagreements between pkg/vpc and the repository's tables:\n  %s", len(mismatches), strings.Join(mismatches, "\n  "))
	}
}

// readTable opens one of the repository's tables and parses it.
func readTable[V any](t *testing.T, path string, parse func(io.Reader) (map[string]V, error)) map[string]V {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatalf("the table is part of the repository: %v", err)
	}
	defer fh.Close()
	table, err := parse(fh)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return table
}
