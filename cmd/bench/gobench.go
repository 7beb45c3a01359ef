package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// goBench is one `go test -bench` benchmark of a pure package.
type goBench struct {
	pkg, name, what string
	target          time.Duration // 0: no target
}

var goBenches = []goBench{
	{"internal/requirements", "BenchmarkFilter", "requirements.Filter: 10 requirements over 1,000 label sets", 0},
	{"internal/catalog", "BenchmarkSelect", "catalog.Select: 4 requirements (arch, cpu, capacity type, zone with min_values), 1,400 types", 0},
	{"internal/catalog", "BenchmarkCapacityAllTypes", "pod capacity of all 1,400 types, 2 CNI settings", 0},
	{"internal/launchplan", "BenchmarkBuild", "planning one node pool (launchplan.Build), 800 types", 2 * time.Millisecond},
	{"internal/launchplan", "BenchmarkBuildScaling", "planning one node pool over 200, 400, 800 and 1,600 types", 0},
	{"internal/manifest", "BenchmarkRenderNodePool", "manifest rendering: NodePool, every field set", 0},
	{"internal/manifest", "BenchmarkRenderEC2NodeClass", "manifest rendering: EC2NodeClass, every field set", 0},
	{"internal/manifest", "BenchmarkAdmitNodePool", "manifest admission (API server CRD validation): NodePool, every field set", 0},
	{"internal/manifest", "BenchmarkAdmitEC2NodeClass", "manifest admission (API server CRD validation): EC2NodeClass, every field set", 0},
	{"internal/manifest", "BenchmarkCompileCRDs", "compiling the embedded CRDs (once per process)", 0},
	{"internal/awsclient", "BenchmarkLoadCatalog", "catalog conversion: 800 types in 8 pages (once per process)", 0},
}

// benchResult is the median of the -count runs of one benchmark.
type benchResult struct {
	nsPerOp, bytesPerOp, allocsPerOp float64
}

var benchLine = regexp.MustCompile(`^(Benchmark[\w/=]+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// runGoBenchmarks runs the benchmarks of goBenches with -benchmem and returns the median of count
// runs of each, keyed by "pkg.Name".
func runGoBenchmarks(root string, count int, benchtime string) (map[string]benchResult, error) {
	var pkgs, names []string
	for _, b := range goBenches {
		if !slices.Contains(pkgs, "./"+b.pkg) {
			pkgs = append(pkgs, "./"+b.pkg)
		}
		names = append(names, b.name)
	}
	args := []string{"test", "-run", "^$", "-bench", "^(" + strings.Join(names, "|") + ")$", "-benchmem",
		"-count", strconv.Itoa(count), "-benchtime", benchtime}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	samples := map[string][]benchResult{}
	pkg := ""
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimPrefix(strings.TrimSpace(p), modulePath+"/")
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var r benchResult
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				r.nsPerOp = v
			case "B/op":
				r.bytesPerOp = v
			case "allocs/op":
				r.allocsPerOp = v
			}
		}
		key := pkg + "." + m[1]
		samples[key] = append(samples[key], r)
	}
	res := map[string]benchResult{}
	for k, s := range samples {
		res[k] = benchResult{
			nsPerOp:     median(s, func(r benchResult) float64 { return r.nsPerOp }),
			bytesPerOp:  median(s, func(r benchResult) float64 { return r.bytesPerOp }),
			allocsPerOp: median(s, func(r benchResult) float64 { return r.allocsPerOp }),
		}
	}
	for _, b := range goBenches {
		if _, ok := res[b.pkg+"."+b.name]; !ok && !hasSub(res, b.pkg+"."+b.name) {
			return nil, fmt.Errorf("benchmark %s of %s did not run:\n%s", b.name, b.pkg, out.String())
		}
	}
	return res, nil
}

// hasSub reports whether res holds sub-benchmarks of key (key/...).
func hasSub(res map[string]benchResult, key string) bool {
	for k := range res {
		if strings.HasPrefix(k, key+"/") {
			return true
		}
	}
	return false
}

func median[T any](xs []T, f func(T) float64) float64 {
	vs := make([]float64, len(xs))
	for i, x := range xs {
		vs[i] = f(x)
	}
	slices.Sort(vs)
	if len(vs) == 0 {
		return 0
	}
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// liveCatalog is what the in-process measurements against the emulator found.
type liveCatalog struct {
	loadWall time.Duration // awsclient Catalog: DescribeInstanceTypes and DescribeInstanceTypeOfferings, concurrently
	types    int
	zones    []string
	build    benchResult // launchplan.Build of the bench pool over this catalog
	eligible int         // instance types the bench pool plans
	// narrowEligible is the same for the narrow pools.
	narrowEligible int
}

// measureLiveCatalog loads the region's catalog from the EC2 endpoint the environment names (as
// the provider does, once) and benchmarks planning the bench pool over it in process.
func measureLiveCatalog(ctx context.Context, region string) (liveCatalog, error) {
	var lc liveCatalog
	client, err := awsclient.New(ctx, awsclient.Settings{Region: region, SkipCredentialsValidation: true, SkipRequestingAccountID: true})
	if err != nil {
		return lc, err
	}
	start := time.Now()
	cat, err := client.Catalog(ctx)
	if err != nil {
		return lc, err
	}
	lc.loadWall, lc.types, lc.zones = time.Since(start), cat.Len(), cat.Zones()

	in := benchPoolInput(cat, client.Region, lc.zones, broadReqs)
	p, errs := launchplan.Build(in)
	if len(errs) > 0 {
		return lc, fmt.Errorf("planning the bench pool over the live catalog: %v", errs)
	}
	lc.eligible = len(p.InstanceTypes)
	if p, errs = launchplan.Build(benchPoolInput(cat, client.Region, lc.zones, narrowReqs)); len(errs) > 0 {
		return lc, fmt.Errorf("planning the narrow pool over the live catalog: %v", errs)
	}
	lc.narrowEligible = len(p.InstanceTypes)
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			launchplan.Build(in)
		}
	})
	lc.build = benchResult{nsPerOp: float64(r.NsPerOp()), bytesPerOp: float64(r.AllocedBytesPerOp()), allocsPerOp: float64(r.AllocsPerOp())}
	return lc, nil
}

// benchPoolInput is a pool of the generated configurations on a node class like the bench one:
// AL2023, one subnet per zone, default metadata options.
func benchPoolInput(cat *catalog.Catalog, region string, zones []string, reqs []benchReq) launchplan.Input {
	var subnets []launchplan.Subnet
	for i, z := range zones {
		subnets = append(subnets, launchplan.Subnet{ID: fmt.Sprintf("subnet-bench%d", i), Zone: z, ZoneID: fmt.Sprintf("zone-%d", i), AvailableIPs: 4091})
	}
	return launchplan.Input{
		PoolName: "bench-0", ClusterName: clusterName, Region: region,
		Class: launchplan.Class{
			Name: "bench", AMIFamily: capacity.FamilyAL2023, Subnets: subnets,
			SecurityGroupIDs: []string{"sg-bench"},
			MetadataOptions:  launchplan.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPTokens: "required", HTTPPutResponseHopLimit: 1},
			InstanceProfile:  "bench-node",
		},
		Requirements: poolRequirements(reqs),
		Limits:       map[string]string{"cpu": "1000", "memory": "1000Gi"},
		Catalog:      cat,
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
