package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strings"
	"testing"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The output lists the types by name in the SDK's shape, without the empty fields, and records
// its source; a field the SDK does not know is dropped, and an entry under another name fails.
func TestConvert(t *testing.T) {
	in := `{"m5.large": {"InstanceType": "m5.large", "VCpuInfo": {"DefaultVCpus": 2, "ValidCores": [1]}, "NotAnEC2Field": 1, "GpuInfo": null,
	          "FreeTierEligible": false},
	        "a1.large": {"InstanceType": "a1.large", "ProcessorInfo": {"SupportedArchitectures": ["arm64"]}}}`
	out, n, err := convert(gz(t, in), "test source")
	if err != nil || n != 2 {
		t.Fatal(n, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	var f struct {
		Source string
		Types  []map[string]any
	}
	if err := json.Unmarshal([]byte(lines[0]), &f); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[1:] {
		var typ map[string]any
		if err := json.Unmarshal([]byte(l), &typ); err != nil {
			t.Fatal(err)
		}
		f.Types = append(f.Types, typ)
	}
	plain := out
	if f.Source != "test source" || len(f.Types) != 2 || f.Types[0]["InstanceType"] != "a1.large" || f.Types[1]["InstanceType"] != "m5.large" {
		t.Fatalf("%s", plain)
	}
	for _, gone := range []string{"NotAnEC2Field", "GpuInfo", "BareMetal", "FreeTierEligible"} {
		if _, ok := f.Types[1][gone]; ok {
			t.Errorf("%s kept: %v", gone, f.Types[1])
		}
	}
	if vcpu, _ := f.Types[1]["VCpuInfo"].(map[string]any); len(vcpu) != 1 || vcpu["DefaultVCpus"] != float64(2) {
		t.Errorf("VCpuInfo %v, want DefaultVCpus alone", f.Types[1]["VCpuInfo"])
	}
	if _, _, err := convert(gz(t, `{"m5.large": {"InstanceType": "m5.xlarge"}}`), "x"); err == nil || !strings.Contains(err.Error(), "describes") {
		t.Errorf("a misnamed entry: %v", err)
	}
}
