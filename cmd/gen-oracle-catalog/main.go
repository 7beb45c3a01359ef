// Command gen-oracle-catalog writes the raw instance-type catalog the Karpenter oracles compare
// labels over (internal/karpenteroracle/oraclegen/testdata/zz_generated_describe_instance_types.json):
// every type of a region as EC2's DescribeInstanceTypes describes it, read from the EC2
// emulator's own copy of that answer (LocalStack's moto keeps AWS's DescribeInstanceTypes
// output in moto/ec2/resources/instance_types.json.gz), decoded into the SDK's
// ec2types.InstanceTypeInfo and written back one type per line, sorted by name, with the fields
// the provider's catalog and Karpenter's instance types read (keep) and none that is empty. The
// source file, its SHA-256 and the emulator's version are recorded in the output's first line.
//
//	go run ./cmd/gen-oracle-catalog -moto <site-packages>/moto/ec2/resources/instance_types.json.gz -source "moto-ext 5.1.54 (LocalStack 4.14.0)"
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// catalogFile is what the output holds.
type catalogFile struct {
	Source string            `json:"source"`
	SHA256 string            `json:"sha256"`
	Types  []json.RawMessage `json:"types"`
}

func main() {
	moto := flag.String("moto", "", "moto's instance_types.json.gz (required)")
	source := flag.String("source", "", "what the file is from, e.g. \"moto-ext 5.1.54 (LocalStack 4.14.0)\" (required)")
	out := flag.String("out", "internal/karpenteroracle/oraclegen/testdata/zz_generated_describe_instance_types.json", "file to write")
	flag.Parse()
	if *moto == "" || *source == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gen-oracle-catalog -moto FILE -source TEXT [-out FILE]")
		os.Exit(2)
	}
	raw, err := os.ReadFile(*moto)
	if err != nil {
		fail(err)
	}
	data, n, err := convert(raw, *source)
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil { // testdata/ holds nothing tracked
		fail(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("%s: %d instance types, %d bytes\n", *out, n, len(data))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen-oracle-catalog:", err)
	os.Exit(1)
}

// convert reads moto's gzipped map of type name to DescribeInstanceTypes entry and returns the
// catalog file and the count of types.
func convert(gz []byte, source string) ([]byte, int, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, 0, err
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		return nil, 0, err
	}
	var byName map[string]ec2types.InstanceTypeInfo
	if err := json.Unmarshal(plain, &byName); err != nil {
		return nil, 0, err
	}
	if len(byName) == 0 {
		return nil, 0, fmt.Errorf("no instance types")
	}
	sum := sha256.Sum256(gz)
	f := catalogFile{Source: source, SHA256: hex.EncodeToString(sum[:])}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		info := byName[name]
		if string(info.InstanceType) != name {
			return nil, 0, fmt.Errorf("entry %q describes %q", name, info.InstanceType)
		}
		b, err := json.Marshal(info)
		if err != nil {
			return nil, 0, err
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, 0, err
		}
		if b, err = json.Marshal(prune(only(v, keep))); err != nil {
			return nil, 0, err
		}
		f.Types = append(f.Types, b)
	}
	var buf bytes.Buffer
	header, err := json.Marshal(map[string]string{"source": f.Source, "sha256": f.SHA256})
	if err != nil {
		return nil, 0, err
	}
	buf.Write(append(header, '\n'))
	for _, t := range f.Types {
		buf.Write(append(t, '\n'))
	}
	return buf.Bytes(), len(f.Types), nil
}

// keep are the fields written, nested where only some of an object's are (true: all of it).
var keep = map[string]any{
	"InstanceType": true, "BareMetal": true, "Hypervisor": true, "CurrentGeneration": true, "BurstablePerformanceSupported": true,
	"SupportedUsageClasses": true, "SupportedVirtualizationTypes": true, "SupportedArchitectures": true,
	"VCpuInfo":   map[string]any{"DefaultVCpus": true, "DefaultCores": true, "DefaultThreadsPerCore": true},
	"MemoryInfo": true, "ProcessorInfo": true, "GpuInfo": true, "InferenceAcceleratorInfo": true, "NeuronInfo": true,
	"FpgaInfo": true, "NitroEnclavesSupport": true, "PlacementGroupInfo": true,
	"EbsInfo":             map[string]any{"EbsOptimizedSupport": true, "EbsOptimizedInfo": map[string]any{"MaximumBandwidthInMbps": true}},
	"InstanceStorageInfo": map[string]any{"NvmeSupport": true, "TotalSizeInGB": true},
	"NetworkInfo": map[string]any{
		"MaximumNetworkInterfaces": true, "MaximumNetworkCards": true, "DefaultNetworkCardIndex": true,
		"Ipv4AddressesPerInterface": true, "Ipv6AddressesPerInterface": true, "Ipv6Supported": true,
		"EfaSupported": true, "EfaInfo": true, "EnaSupport": true, "EncryptionInTransitSupported": true, "NetworkPerformance": true,
		"NetworkCards": map[string]any{"NetworkCardIndex": true, "MaximumNetworkInterfaces": true, "NetworkPerformance": true,
			"BaselineBandwidthInGbps": true, "PeakBandwidthInGbps": true},
	},
}

// only keeps the fields of v that spec names (spec true: all of v).
func only(v any, spec any) any {
	sub, ok := spec.(map[string]any)
	if !ok {
		return v
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, named := sub[k]; named {
				v[k] = only(e, s)
			} else {
				delete(v, k)
			}
		}
	case []any:
		for i, e := range v {
			v[i] = only(e, spec)
		}
	}
	return v
}

// prune drops nulls, empty strings, lists and objects (what the SDK's zero values marshal to).
func prune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e = prune(e); empty(e) {
				delete(v, k)
			} else {
				v[k] = e
			}
		}
		return v
	case []any:
		out := v[:0]
		for _, e := range v {
			if e = prune(e); !empty(e) {
				out = append(out, e)
			}
		}
		return out
	}
	return v
}

func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}
