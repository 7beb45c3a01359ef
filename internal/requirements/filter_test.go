package requirements

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// instance builds the labels of a synthetic instance type such as "m5.large".
func instance(name, zone, cpu string) map[string]string {
	family, size, _ := strings.Cut(name, ".")
	return map[string]string{
		LabelInstanceType:     name,
		LabelInstanceFamily:   family,
		LabelInstanceCategory: family[:1],
		LabelInstanceSize:     size,
		LabelInstanceCPU:      cpu,
		LabelZone:             zone,
	}
}

func TestFilter(t *testing.T) {
	items := []map[string]string{
		instance("m5.large", "a", "2"),     // 0
		instance("m5.xlarge", "a", "4"),    // 1
		instance("c5.xlarge", "b", "4"),    // 2
		instance("c5.2xlarge", "b", "8"),   // 3
		instance("r5.2xlarge", "c", "8"),   // 4
		instance("m6i.4xlarge", "c", "16"), // 5
		{LabelZone: "a"},                   // 6: no instance labels
	}

	tests := []struct {
		name    string
		reqs    []Requirement
		want    []int
		wantErr *MinValuesError
	}{
		{"no requirements keep everything", nil, []int{0, 1, 2, 3, 4, 5, 6}, nil},
		{"category and cpu",
			[]Requirement{
				{Key: LabelInstanceCategory, Operator: OpIn, Values: []string{"m", "c"}},
				{Key: LabelInstanceCPU, Operator: OpGte, Values: []string{"4"}},
			},
			[]int{1, 2, 3, 5}, nil},
		{"min_values satisfied",
			[]Requirement{
				{Key: LabelInstanceCPU, Operator: OpGt, Values: []string{"2"}},
				{Key: LabelInstanceFamily, Operator: OpExists, MinValues: intp(4)},
			},
			[]int{1, 2, 3, 4, 5}, nil},
		{"min_values satisfied exactly on an In",
			[]Requirement{{Key: LabelInstanceFamily, Operator: OpIn, Values: []string{"m5", "c5"}, MinValues: intp(2)}},
			[]int{0, 1, 2, 3}, nil},
		{"min_values violated",
			[]Requirement{
				{Key: LabelZone, Operator: OpIn, Values: []string{"b", "c"}},
				{Key: LabelInstanceCPU, Operator: OpGte, Values: []string{"8"}},
				{Key: LabelInstanceFamily, Operator: OpExists, MinValues: intp(2)},
				{Key: LabelInstanceType, Operator: OpExists, MinValues: intp(5)},
			},
			[]int{3, 4, 5},
			&MinValuesError{Key: LabelInstanceType, Index: 3, Want: 5, Got: 3}},
		{"min_values with no survivors",
			[]Requirement{
				{Key: LabelInstanceCategory, Operator: OpIn, Values: []string{"p"}, MinValues: intp(1)},
			},
			[]int{},
			&MinValuesError{Key: LabelInstanceCategory, Index: 0, Want: 1, Got: 0}},
		{"items without the label do not count",
			[]Requirement{
				{Key: LabelZone, Operator: OpIn, Values: []string{"a"}},
				{Key: LabelInstanceSize, Operator: OpNotIn, Values: []string{"metal"}, MinValues: intp(3)},
			},
			[]int{0, 1, 6},
			&MinValuesError{Key: LabelInstanceSize, Index: 1, Want: 3, Got: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Filter(tc.reqs, items)
			if !slices.Equal(got, tc.want) {
				t.Errorf("indexes = %v, want %v", got, tc.want)
			}
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var mv *MinValuesError
			if !errors.As(err, &mv) {
				t.Fatalf("error = %v (%T), want *MinValuesError", err, err)
			}
			if *mv != *tc.wantErr {
				t.Errorf("error = %+v, want %+v", *mv, *tc.wantErr)
			}
			msg := err.Error()
			for _, part := range []string{strconv.Quote(tc.wantErr.Key), fmt.Sprintf("at least %d", tc.wantErr.Want), fmt.Sprintf("only %d", tc.wantErr.Got)} {
				if !strings.Contains(msg, part) {
					t.Errorf("message %q does not mention %q", msg, part)
				}
			}
		})
	}
}

func TestAllowedValues(t *testing.T) {
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"}
	tests := []struct {
		name     string
		reqs     []Requirement
		key      string
		universe []string
		want     []string
	}{
		{"no requirements allow everything", nil, LabelZone, zones, zones},
		{"requirements on other keys are ignored",
			[]Requirement{{Key: LabelArch, Operator: OpIn, Values: []string{"arm64"}}},
			LabelZone, zones, zones},
		{"In", []Requirement{{Key: LabelZone, Operator: OpIn, Values: []string{"us-west-2c", "us-west-2a", "us-east-1a"}}},
			LabelZone, zones, []string{"us-west-2a", "us-west-2c"}},
		{"NotIn", []Requirement{{Key: LabelZone, Operator: OpNotIn, Values: []string{"us-west-2b"}}},
			LabelZone, zones, []string{"us-west-2a", "us-west-2c", "us-west-2d"}},
		{"In ∩ NotIn",
			[]Requirement{
				{Key: LabelZone, Operator: OpIn, Values: []string{"us-west-2a", "us-west-2b"}},
				{Key: LabelZone, Operator: OpNotIn, Values: []string{"us-west-2a"}},
			},
			LabelZone, zones, []string{"us-west-2b"}},
		{"disjoint In sets allow nothing",
			[]Requirement{
				{Key: LabelZone, Operator: OpIn, Values: []string{"us-west-2a"}},
				{Key: LabelZone, Operator: OpIn, Values: []string{"us-west-2b"}},
			},
			LabelZone, zones, []string{}},
		{"Exists allows everything", []Requirement{{Key: LabelZone, Operator: OpExists}}, LabelZone, zones, zones},
		{"DoesNotExist allows nothing", []Requirement{{Key: LabelZone, Operator: OpDoesNotExist}}, LabelZone, zones, []string{}},
		{"numeric range",
			[]Requirement{
				{Key: LabelInstanceCPU, Operator: OpGte, Values: []string{"4"}},
				{Key: LabelInstanceCPU, Operator: OpLte, Values: []string{"16"}},
			},
			LabelInstanceCPU, []string{"2", "4", "8", "16", "32", "lots"}, []string{"4", "8", "16"}},
		{"duplicates in the universe are dropped",
			[]Requirement{{Key: LabelZone, Operator: OpNotIn, Values: []string{"x"}}},
			LabelZone, []string{"a", "b", "a"}, []string{"a", "b"}},
		{"empty universe", []Requirement{{Key: LabelZone, Operator: OpExists}}, LabelZone, nil, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AllowedValues(tc.reqs, tc.key, tc.universe)
			if got == nil {
				t.Fatal("AllowedValues returned nil")
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("AllowedValues = %v, want %v", got, tc.want)
			}
		})
	}
}

// syntheticItems builds n deterministic instance-type label sets.
func syntheticItems(n int) []map[string]string {
	categories := []string{"c", "m", "r", "t", "g", "p", "i", "x"}
	sizes := []string{"medium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "metal"}
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"}
	items := make([]map[string]string, n)
	for i := range items {
		cat := categories[i%len(categories)]
		gen := 3 + (i/len(categories))%6
		size := sizes[(i/7)%len(sizes)]
		family := fmt.Sprintf("%s%d", cat, gen)
		cpu := 1 << ((i / 7) % len(sizes))
		labels := map[string]string{
			LabelInstanceType:       family + "." + size,
			LabelInstanceCategory:   cat,
			LabelInstanceGeneration: strconv.Itoa(gen),
			LabelInstanceFamily:     family,
			LabelInstanceSize:       size,
			LabelInstanceCPU:        strconv.Itoa(cpu),
			LabelInstanceMemory:     strconv.Itoa(cpu * 4096),
			LabelZone:               zones[i%len(zones)],
			LabelArch:               []string{"amd64", "arm64"}[i%2],
			LabelOS:                 "linux",
			LabelCapacityType:       []string{CapacityTypeOnDemand, CapacityTypeSpot}[(i/2)%2],
			LabelInstanceHypervisor: "nitro",
		}
		if cat == "g" || cat == "p" {
			labels[LabelInstanceGPUCount] = strconv.Itoa(1 + i%8)
		}
		items[i] = labels
	}
	return items
}

func BenchmarkFilter(b *testing.B) {
	items := syntheticItems(1000)
	reqs := []Requirement{
		{Key: LabelArch, Operator: OpIn, Values: []string{"amd64"}},
		{Key: LabelOS, Operator: OpIn, Values: []string{"linux"}},
		{Key: LabelCapacityType, Operator: OpIn, Values: []string{CapacityTypeSpot, CapacityTypeOnDemand}},
		{Key: LabelInstanceCategory, Operator: OpIn, Values: []string{"c", "m", "r"}, MinValues: intp(2)},
		{Key: LabelInstanceGeneration, Operator: OpGt, Values: []string{"4"}},
		{Key: LabelInstanceCPU, Operator: OpLte, Values: []string{"64"}},
		{Key: LabelInstanceSize, Operator: OpNotIn, Values: []string{"metal"}},
		{Key: LabelInstanceGPUCount, Operator: OpDoesNotExist},
		{Key: LabelInstanceFamily, Operator: OpExists, MinValues: intp(5)},
		{Key: LabelZone, Operator: OpIn, Values: []string{"us-west-2a", "us-west-2b", "us-west-2c"}},
	}
	if idx, err := Filter(reqs, items); err != nil || len(idx) == 0 {
		b.Fatalf("benchmark setup: %d items, err %v", len(idx), err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Filter(reqs, items); err != nil {
			b.Fatal(err)
		}
	}
}
