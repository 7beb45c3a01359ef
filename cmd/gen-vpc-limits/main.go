// Command gen-vpc-limits turns a CSV of the VPC resource controller's per-type limits, as
// Karpenter generates them (pkg/providers/instancetype/zz_generated.vpclimits.go in
// aws/karpenter-provider-aws), into two files, each sorted by type, with a header that names the
// source and how to regenerate it.
//
// -out is the table the catalog reads for what EC2's DescribeInstanceTypes does not say: whether
// a type can carry a trunk ENI (security groups for pods) and how many branch ENIs it then
// offers. -limits-out is test data: the network limits per type (ENIs, IPv4 per ENI, default
// card, ENIs per card, hypervisor, bare metal) that independent sources are checked against,
// read by catalog.ParseVPCLimits; -limits-out "" skips it.
//
//	go run ./cmd/gen-vpc-limits -in <path>/vpc-limits.csv -ref '<source, commit>'
package main

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// entry is one CSV row.
type entry struct {
	name     string
	trunk    bool
	branches int
	limits   catalog.VPCLimits
}

// trunkColumns are read for -out, limitsColumns as well for -limits-out.
var (
	trunkColumns  = []string{"instance_type", "is_trunking_compatible", "branch_interface"}
	limitsColumns = []string{"interface", "ipv4_per_interface", "default_network_card_index", "network_cards", "hypervisor", "is_bare_metal"}
)

func main() {
	in := flag.String("in", "", "CSV with instance_type, is_trunking_compatible and branch_interface columns, and for -limits-out "+
		strings.Join(limitsColumns, ", ")+" (required)")
	out := flag.String("out", "internal/catalog/zz_generated_trunking.go", "Go file to write")
	limitsOut := flag.String("limits-out", "internal/catalog/testdata/vpc-limits.tsv", "network limits table to write; empty to skip")
	ref := flag.String("ref", "", "where the input was taken, e.g. `aws/karpenter-provider-aws v1.14.1 (bde00654)`; recorded in the headers")
	flag.Parse()
	if *in == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(*in)
	if err != nil {
		log.Fatalf("gen-vpc-limits: %v", err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	_ = f.Close()
	if err != nil || len(rows) < 2 {
		log.Fatalf("gen-vpc-limits: %s: %v (%d rows)", *in, err, len(rows))
	}
	entries, err := parseRows(rows, *limitsOut != "")
	if err != nil {
		log.Fatalf("gen-vpc-limits: %s: %v", *in, err)
	}

	src, err := renderTrunking(entries, *ref)
	if err != nil {
		log.Fatalf("gen-vpc-limits: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatalf("gen-vpc-limits: %v", err)
	}
	fmt.Printf("%s: %d instance types\n", *out, len(entries))

	if *limitsOut == "" {
		return
	}
	data := renderLimits(entries, *ref)
	// The table must read back to the input.
	back, err := catalog.ParseVPCLimits(bytes.NewReader(data))
	if err != nil || len(back) != len(entries) {
		log.Fatalf("gen-vpc-limits: the limits table does not read back (%v)", err)
	}
	for _, e := range entries {
		if !reflect.DeepEqual(back[e.name], e.limits) {
			log.Fatalf("gen-vpc-limits: %s reads back as %+v, not %+v", e.name, back[e.name], e.limits)
		}
	}
	if err := os.WriteFile(*limitsOut, data, 0o644); err != nil {
		log.Fatalf("gen-vpc-limits: %v", err)
	}
	fmt.Printf("%s: %d instance types\n", *limitsOut, len(entries))
}

// parseRows reads the rows after the CSV header, sorted by type; the network limits only when
// withLimits, so the trunking table alone still needs only its three columns.
func parseRows(rows [][]string, withLimits bool) ([]entry, error) {
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	need := trunkColumns
	if withLimits {
		need = append(slices.Clone(trunkColumns), limitsColumns...)
	}
	for _, h := range need {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("no %q column", h)
		}
	}
	var entries []entry
	for _, r := range rows[1:] {
		trunk, err1 := strconv.ParseBool(r[col["is_trunking_compatible"]])
		branches, err2 := strconv.Atoi(r[col["branch_interface"]])
		if err1 != nil || err2 != nil || r[col["instance_type"]] == "" {
			return nil, fmt.Errorf("bad row %v", r)
		}
		e := entry{name: r[col["instance_type"]], trunk: trunk, branches: branches}
		if withLimits {
			// The CSV's columns, as a table row, go through the table's own parser and its checks.
			l := make([]string, 0, len(catalog.VPCLimitsColumns))
			l = append(l, e.name)
			for _, h := range limitsColumns {
				l = append(l, r[col[h]])
			}
			lim, err := catalog.ParseVPCLimits(strings.NewReader(strings.Join(l, "\t")))
			if err != nil {
				return nil, fmt.Errorf("bad row %v: %w", r, err)
			}
			e.limits = lim[e.name]
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(entries); i++ {
		if entries[i].name == entries[i-1].name {
			return nil, fmt.Errorf("%s listed twice", entries[i].name)
		}
	}
	return entries, nil
}

// renderTrunking is zz_generated_trunking.go.
func renderTrunking(entries []entry, ref string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by cmd/gen-vpc-limits; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// Source: the VPC resource controller's limits as Karpenter generates them, %s.\n", ref)
	fmt.Fprintf(&b, "// Regenerate: go run ./cmd/gen-vpc-limits -in <vpc-limits.csv> -ref '<source>'\n\n")
	fmt.Fprintf(&b, "package catalog\n\n")
	fmt.Fprintf(&b, "// trunking is, per instance type, whether the VPC resource controller can attach a trunk ENI\n")
	fmt.Fprintf(&b, "// (security groups for pods) and the branch ENIs it then offers (%d types).\n", len(entries))
	fmt.Fprintf(&b, "var trunking = map[string]trunkLimit{\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "\t%q: {%t, %d},\n", e.name, e.trunk, e.branches)
	}
	fmt.Fprintf(&b, "}\n")
	return format.Source(b.Bytes())
}

// renderLimits is the network limits table: '#' header lines, which ParseVPCLimits skips, then
// one row per type in the order given (sorted), so a rerun on the same input is byte-identical.
func renderLimits(entries []entry, ref string) []byte {
	var b bytes.Buffer
	refFlag := ""
	if ref != "" {
		refFlag = " -ref '" + strings.ReplaceAll(ref, "'", `'\''`) + "'"
	}
	fmt.Fprintf(&b, "# Network limits per EC2 instance type: %d types. Read by catalog.ParseVPCLimits.\n", len(entries))
	fmt.Fprintf(&b, "# Source: the VPC resource controller's limits as Karpenter generates them, %s.\n", ref)
	fmt.Fprintf(&b, "# Generated by cmd/gen-vpc-limits, do not edit. Regenerate: go run ./cmd/gen-vpc-limits -in <vpc-limits.csv>%s\n", refFlag)
	fmt.Fprintf(&b, "# Columns: ENIs on all cards, IPv4 per ENI, default network card, ENIs per card by index ('|' between cards), hypervisor (empty: bare metal), bare metal.\n")
	fmt.Fprintf(&b, "# %s\n", strings.Join(catalog.VPCLimitsColumns, "\t"))
	for _, e := range entries {
		fmt.Fprintf(&b, "%s\n", catalog.FormatVPCLimitsRow(e.name, e.limits))
	}
	return b.Bytes()
}
