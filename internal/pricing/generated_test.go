package pricing

import (
	"encoding/base64"
	"math"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Checks on the table cmd/gen-pricing generates from Karpenter's module zip.

func TestFallbackTableContents(t *testing.T) {
	if n := len(fallbackOnDemand["us-east-1"]); n <= 500 {
		t.Errorf("us-east-1 has %d instance types, want more than 500", n)
	}
	for region, types := range fallbackOnDemand {
		if len(types) == 0 {
			t.Errorf("%s: no prices", region)
		}
		for it, p := range types {
			if p <= 0 || math.IsNaN(p) || math.IsInf(p, 0) {
				t.Errorf("%s %s: price %v", region, it, p)
			}
			if !strings.Contains(it, ".") {
				t.Errorf("%s: %q is not an instance type", region, it)
			}
		}
	}
	// A price that has not changed in years, so the table is real data, not a stub.
	if p := fallbackOnDemand["us-east-1"]["m5.large"]; p != 0.096 {
		t.Errorf("us-east-1 m5.large = %v, want 0.096", p)
	}
}

// sameMap says whether a and b are the same map, not merely equal ones.
func sameMap(a, b map[string]float64) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestFallbackOnDemandRegions(t *testing.T) {
	if _, ok := fallbackOnDemand["ap-southeast-1"]; ok {
		t.Fatal("Karpenter's table now has ap-southeast-1: pick a region without one for this test")
	}
	od, info := FallbackOnDemand("ap-southeast-1")
	if info.TableRegion != "us-east-1" || !sameMap(od, fallbackOnDemand["us-east-1"]) {
		t.Errorf("ap-southeast-1: table region %q, us-east-1's table: %v", info.TableRegion, sameMap(od, fallbackOnDemand["us-east-1"]))
	}
	if info.KarpenterVersion != FallbackKarpenterVersion || info.Generated != FallbackGenerated || info.Reason != "" {
		t.Errorf("ap-southeast-1: info %+v", info)
	}

	for _, region := range []string{"us-east-1", "us-gov-west-1", "cn-north-1"} {
		od, info := FallbackOnDemand(region)
		if info.TableRegion != region || !sameMap(od, fallbackOnDemand[region]) {
			t.Errorf("%s: table region %q, its own table: %v", region, info.TableRegion, sameMap(od, fallbackOnDemand[region]))
		}
	}
	if gov, east := fallbackOnDemand["us-gov-west-1"]["m5.large"], fallbackOnDemand["us-east-1"]["m5.large"]; gov == 0 || gov == east {
		t.Errorf("m5.large: us-gov-west-1 %v, us-east-1 %v: want a GovCloud price of its own", gov, east)
	}
}

func TestFallbackProvenance(t *testing.T) {
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(FallbackKarpenterVersion) {
		t.Errorf("FallbackKarpenterVersion = %q", FallbackKarpenterVersion)
	}
	if _, err := time.Parse(time.DateOnly, FallbackGenerated); err != nil {
		t.Errorf("FallbackGenerated = %q: %v", FallbackGenerated, err)
	}
	hash, ok := strings.CutPrefix(FallbackModuleSum, "h1:")
	if raw, err := base64.StdEncoding.DecodeString(hash); !ok || err != nil || len(raw) != 32 {
		t.Errorf("FallbackModuleSum = %q is not an h1: SHA-256 hash", FallbackModuleSum)
	}
	// The header names the same release and module zip as the constants.
	src, err := os.ReadFile("zz_generated_ondemand.go")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(src), "\n")
	want := "github.com/aws/karpenter-provider-aws " + FallbackKarpenterVersion + " (module zip " + FallbackModuleSum + ")"
	if !strings.HasPrefix(first, "// Code generated ") || !strings.HasSuffix(first, " DO NOT EDIT.") || !strings.Contains(first, want) {
		t.Errorf("header %q does not name %q", first, want)
	}
}
