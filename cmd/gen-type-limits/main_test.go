package main

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

const vpcSample = `package instancetype

var Limits = map[string]*VPCLimits{
	"x1.large": {
		Interface: 3, IPv4PerInterface: 10, IsTrunkingCompatible: true, BranchInterface: 9,
		DefaultNetworkCardIndex: 0,
		NetworkCards: []NetworkCard{{MaximumNetworkInterfaces: 3, NetworkCardIndex: 0}},
		Hypervisor: "nitro", IsBareMetal: false,
	},
	"x1.metal": {
		Interface: 4, IPv4PerInterface: 50, DefaultNetworkCardIndex: 1,
		NetworkCards: []NetworkCard{{MaximumNetworkInterfaces: 2, NetworkCardIndex: 1}, {MaximumNetworkInterfaces: 2, NetworkCardIndex: 0}},
		Hypervisor: "", IsBareMetal: true,
	},
	"x1.only": {Interface: 1, IPv4PerInterface: 2},
}
`

const docSample = "## x1 Family\n### `x1.large`\n#### Labels\n | Label | Value |\n |--|--|\n" +
	" |karpenter.k8s.aws/instance-cpu|2|\n |karpenter.k8s.aws/instance-memory|8192|\n" +
	"#### Resources\n | Resource | Quantity |\n |--|--|\n |pods|29|\n" +
	"### `x1.metal`\n |karpenter.k8s.aws/instance-cpu|96|\n |karpenter.k8s.aws/instance-memory|1024|\n |pods|198|\n |vpc.amazonaws.com/efa|2|\n" +
	"### `x1.docs`\n |karpenter.k8s.aws/instance-cpu|1|\n |karpenter.k8s.aws/instance-memory|1|\n |pods|4|\n"

func TestGenerate(t *testing.T) {
	vpc, err := parseVPCLimits([]byte(vpcSample))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseDocs(docSample)
	if err != nil {
		t.Fatal(err)
	}
	rows, dropped := join(vpc, doc)
	if len(rows) != 2 || dropped != [2]int{1, 1} {
		t.Fatalf("rows %+v dropped %v", rows, dropped)
	}
	metal := rows[1]
	if metal.name != "x1.metal" || metal.defCard != 1 || len(metal.cardENIs) != 2 || metal.cardENIs[1] != 2 || !metal.bareMetal ||
		metal.vcpus != 96 || metal.efa != 2 || metal.pods != 198 {
		t.Errorf("x1.metal = %+v", metal)
	}
	src, err := render(rows, "test source", "-rev x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "zz.go", src, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"x1.large": {2, 8192, 3, 10, 0, []int{3}, "nitro", false, true, 9, 0, 29}`, `const Source = "test source"`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("output lacks %s:\n%s", want, src)
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := parseVPCLimits([]byte(strings.Replace(vpcSample, "MaximumNetworkInterfaces: 3", "MaximumNetworkInterfaces: 2", 1))); err == nil {
		t.Error("cards that do not add up were accepted")
	}
	if _, err := parseVPCLimits([]byte("package x\nvar Other = 1\n")); err == nil {
		t.Error("a file without Limits was accepted")
	}
	if _, err := parseDocs("### `x`\n |pods|3|\n"); err == nil {
		t.Error("a type without vCPUs was accepted")
	}
	if _, err := parseDocs("### `x`\n |karpenter.k8s.aws/instance-cpu|two|\n"); err == nil {
		t.Error("a bad number was accepted")
	}
}
