package main

import (
	"go/parser"
	"go/token"
	"maps"
	"strings"
	"testing"
)

// source is a bandwidth table as Karpenter generates it.
func source(entries string) []byte {
	return []byte("package instancetype\n\nvar (\n\tInstanceTypeBandwidthMegabits = map[string]int64{\n" + entries + "\t}\n)\n")
}

func TestParseTable(t *testing.T) {
	got, err := parseTable("v1.15.2", source("\t\t\"m5.large\": 750,\n\t\t\"p5.48xlarge\": 3200000,\n"))
	if err != nil || !maps.Equal(got, map[string]int64{"m5.large": 750, "p5.48xlarge": 3200000}) {
		t.Fatalf("%v, %v", got, err)
	}
	for name, entries := range map[string]string{
		"no entries":   "",
		"a zero":       "\t\t\"m5.large\": 0,\n",
		"twice":        "\t\t\"m5.large\": 750,\n\t\t\"m5.large\": 750,\n",
		"not a number": "\t\t\"m5.large\": x,\n",
	} {
		if _, err := parseTable("v1.15.2", source(entries)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// The output has a column per release, oldest first, 0 where a release's table lacks the type,
// and builds.
func TestRender(t *testing.T) {
	src, err := render([]release{
		{version: "v1.9.3", minor: "1.9", sum: "h1:a", mbps: map[string]int64{"f1.2xlarge": 2500, "m5.large": 750}},
		{version: "v1.15.2", minor: "1.15", sum: "h1:b", mbps: map[string]int64{"g7.2xlarge": 40000, "m5.large": 750}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`[...]string{"1.9", "1.15"}`, `"f1.2xlarge": {2500, 0},`, `"g7.2xlarge": {0, 40000},`,
		`"m5.large":   {750, 750},`, "karpenter-provider-aws@v1.15.2 h1:b (2 types)"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the output lacks %q:\n%s", want, src)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "out.go", src, 0); err != nil {
		t.Error(err)
	}
	if minorOf("v1.15.2") != "1.15" || minorOf("v1.9.3") != "1.9" {
		t.Error("minorOf")
	}
}
