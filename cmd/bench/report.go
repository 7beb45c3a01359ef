package main

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"
)

// table renders the report as one Markdown table: measure, result, target, met.
func (r *report) table() string {
	var rows [][4]string
	add := func(measure, result, target string, ok *bool) {
		met := ""
		if ok != nil {
			if *ok {
				met, r.met = "yes", r.met+1
			} else {
				met, r.missed = "**no**", r.missed+1
			}
		}
		rows = append(rows, [4]string{measure, result, target, met})
	}
	check := func(b bool) *bool { return &b }

	for _, b := range goBenches {
		if b.name == "BenchmarkBuildScaling" {
			if result, ok := r.scaling(b.pkg + "." + b.name); ok {
				add(fmt.Sprintf("Go: %s (`%s`)", b.what, b.name), result, "linear in catalog size", check(r.linear))
			}
			continue
		}
		res, ok := r.goRes[b.pkg+"."+b.name]
		if !ok {
			continue
		}
		target, met := "", (*bool)(nil)
		if b.target > 0 {
			target, met = "< "+fmtDur(b.target), check(res.nsPerOp < float64(b.target))
		}
		add(fmt.Sprintf("Go: %s (`%s`)", b.what, b.name), fmtBench(res), target, met)
	}
	if lc := r.live; lc != nil {
		add(fmt.Sprintf("Go: planning one node pool over the emulator's full catalog (%d types, %d eligible), in process", lc.types, lc.eligible),
			fmtBench(lc.build), "< 2 ms", check(lc.build.nsPerOp < 2e6))
		add(fmt.Sprintf("Catalog load: DescribeInstanceTypes and DescribeInstanceTypeOfferings, concurrently (%d types, %d zones)", lc.types, len(lc.zones)),
			fmtDur(lc.loadWall)+" wall", "once per provider process", nil)
	}

	if len(r.ours) > 0 {
		maxN := r.o.pools[len(r.o.pools)-1]
		for _, n := range r.o.pools {
			ours, floor, null := medianDur(r.ours[n]), medianDur(r.floor[n]), medianDur(r.null[n])
			ratio := float64(ours) / float64(floor)
			// The targets are against the do-nothing provider (issue 17): what a provider on
			// this framework cannot avoid is not counted against the planning.
			target, met := "", (*bool)(nil)
			vsNull := float64(ours) / float64(null)
			switch n {
			case 10:
				target, met = "≤ 2× the do-nothing provider", check(vsNull <= 2)
			case 100:
				target, met = "≤ 3× the do-nothing provider", check(vsNull <= 3)
			}
			add(fmt.Sprintf("`terraform plan`, 1 node class + %d pools vs %d `terraform_data` (median of %d)", n, n+1, len(r.ours[n])),
				fmt.Sprintf("%s vs %s: **%.1f×** (vs the do-nothing provider's %s: %.1f×)", fmtDur(ours), fmtDur(floor), ratio, fmtDur(null), float64(ours)/float64(null)), target, met)
		}
		for _, n := range r.o.pools {
			if len(r.kube[n]) == 0 {
				continue
			}
			ours, kube := medianDur(r.ours[n]), medianDur(r.kube[n])
			add(fmt.Sprintf("`terraform plan`, 1 node class + %d pools vs the same as `kubernetes_manifest` against the local API server (median of %d)", n, len(r.kube[n])),
				fmt.Sprintf("%s vs %s: **%.2f×**", fmtDur(ours), fmtDur(kube), float64(ours)/float64(kube)), "< 1× (ahead of it)", check(ours < kube))
		}
		for _, n := range r.o.pools {
			null, floor := medianDur(r.null[n]), medianDur(r.floor[n])
			add(fmt.Sprintf("`terraform plan`, %d resources of a provider that does nothing (`cmd/bench/nullprovider`, same framework) vs %d `terraform_data`", n+1, n+1),
				fmt.Sprintf("%s vs %s: %.1f×", fmtDur(null), fmtDur(floor), float64(null)/float64(floor)), "", nil)
		}
		if cw := r.cold.wall; cw > 0 {
			n0 := r.o.pools[0]
			add(fmt.Sprintf("`terraform plan`, 1 node class + %d pools, catalog cache off (every plan reads EC2)", n0),
				fmt.Sprintf("%s (%s with the cache)", fmtDur(cw), fmtDur(medianDur(r.ours[n0]))), "", nil)
		}
		nr := medianDur(r.narrow)
		eligible := ""
		if r.live != nil {
			eligible = fmt.Sprintf(", %d eligible types each vs %d", r.live.narrowEligible, r.live.eligible)
		}
		add(fmt.Sprintf("`terraform plan`, %d narrow pools (2 families%s) vs %d `terraform_data`", maxN, eligible, maxN+1),
			fmt.Sprintf("%s vs %s: %.1f×", fmtDur(nr), fmtDur(medianDur(r.floor[maxN])), float64(nr)/float64(medianDur(r.floor[maxN]))), "", nil)

		for _, n := range r.o.pools {
			c := r.counted[n]
			target, met := "", (*bool)(nil)
			if n == maxN && n != r.o.pools[0] {
				target = fmt.Sprintf("= N = %d", r.o.pools[0])
				met = check(maps.Equal(c.calls, r.counted[r.o.pools[0]].calls))
			}
			add(fmt.Sprintf("API calls, first plan (empty state; catalog from the disk cache), N = %d", n), fmtCalls(c.calls), target, met)
		}
		c := r.counted[maxN]
		its, offs := 0, 0
		for _, n := range r.o.pools {
			its = max(its, r.counted[n].calls["EC2.DescribeInstanceTypes"])
			offs = max(offs, r.counted[n].calls["EC2.DescribeInstanceTypeOfferings"])
		}
		coldIts, coldOffs := r.cold.calls["EC2.DescribeInstanceTypes"], r.cold.calls["EC2.DescribeInstanceTypeOfferings"]
		add("Catalog calls per plan (one configured provider process; the emulator answers in one page)",
			fmt.Sprintf("cache off: DescribeInstanceTypes %d, DescribeInstanceTypeOfferings %d; fresh cache file: %d and %d; %d provider processes per plan (schema, validate, plan)",
				coldIts, coldOffs, its, offs, c.procs),
			"once per process; none with a fresh cache", check(coldIts == 1 && coldOffs == 1 && its == 0 && offs == 0))
		d := r.dup.calls
		add("Two node classes with the same selectors, one pool each",
			fmt.Sprintf("DescribeSubnets %d, DescribeSecurityGroups %d", d["EC2.DescribeSubnets"], d["EC2.DescribeSecurityGroups"]),
			"1 each (once per distinct selector set)", check(d["EC2.DescribeSubnets"] == 1 && d["EC2.DescribeSecurityGroups"] == 1))

		added := map[string]int{}
		total := 0
		for k, v := range r.refresh.calls {
			if dlt := v - r.refreshBase.calls[k]; dlt != 0 {
				added[k] = dlt
				total += dlt
			}
		}
		for k, v := range r.refreshBase.calls {
			if _, ok := r.refresh.calls[k]; !ok {
				added[k] = -v
				total -= v
			}
		}
		changes := "plan shows changes"
		if strings.Contains(r.refresh.output, "No changes.") {
			changes = "plan: no changes"
		}
		add(fmt.Sprintf("Refresh: plan after applying N = %d (%d launch templates), calls added over the first plan", r.refreshN, launchTemplates(r.applyRun)),
			fmt.Sprintf("%s (%+d); %s", fmtDelta(added), total, changes),
			fmt.Sprintf("≤ %d (one read per pool)", r.refreshN), check(total <= r.refreshN))

		add(fmt.Sprintf("Peak RSS of a provider process, N = %d", maxN), fmtMB(c.peakRSSKB), "< 150 MB", check(float64(c.peakRSSKB)*1024 < 150e6))
		add(fmt.Sprintf("Provider CPU (all processes, user+system), N = %d", maxN),
			fmt.Sprintf("%s (%s per pool); narrow pools: %s", fmtDur(c.cpu), fmtDur(c.cpu/time.Duration(maxN)), fmtDur(r.narrowRun.cpu)), "", nil)
		add(fmt.Sprintf("`terraform plan` output, N = %d", maxN),
			fmt.Sprintf("%s (%s per pool); narrow pools: %s", fmtMB(c.outBytes/1024), fmtMB(c.outBytes/1024/int64(maxN)), fmtMB(r.narrowRun.outBytes/1024)),
			"≤ 8 kB per pool", check(c.outBytes/int64(maxN) <= 8*1024))
	}
	if r.latency != nil {
		r.latency.rows(add)
	}

	var b strings.Builder
	b.WriteString("| Measure | Result | Target | Met |\n|---|---|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
	}
	fmt.Fprintf(&b, "\n%s/%s, %d CPUs, %s; targets met: %d, missed: %d.\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), r.met, r.missed)
	return b.String()
}

// scaling formats the sub-benchmarks key/types=N as time per op and per type at each N, and
// sets r.linear when the time grows at most linearly: from the smallest to the largest
// catalog, the time per type may not rise by more than a quarter (noise).
func (r *report) scaling(key string) (string, bool) {
	type point struct {
		n  int
		ns float64
	}
	var pts []point
	for k, v := range r.goRes {
		if rest, ok := strings.CutPrefix(k, key+"/types="); ok {
			var n int
			if _, err := fmt.Sscan(rest, &n); err == nil && n > 0 {
				pts = append(pts, point{n, v.nsPerOp})
			}
		}
	}
	if len(pts) < 2 {
		return "", false
	}
	slices.SortFunc(pts, func(a, b point) int { return a.n - b.n })
	var parts []string
	for _, p := range pts {
		parts = append(parts, fmt.Sprintf("%d types %s (%s per type)", p.n, fmtNs(p.ns), fmtNs(p.ns/float64(p.n))))
	}
	first, last := pts[0], pts[len(pts)-1]
	r.linear = last.ns/float64(last.n) <= 1.25*first.ns/float64(first.n)
	return strings.Join(parts, "; "), true
}

func medianDur(ds []time.Duration) time.Duration {
	return time.Duration(median(ds, func(d time.Duration) float64 { return float64(d) }))
}

func fmtDur(d time.Duration) string { return fmtNs(float64(d)) }

func fmtNs(ns float64) string {
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	case ns < 1e8:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns < 1e9:
		return fmt.Sprintf("%.0f ms", ns/1e6)
	default:
		return fmt.Sprintf("%.2f s", ns/1e9)
	}
}

func fmtBench(r benchResult) string {
	return fmt.Sprintf("%s/op, %s/op, %.0f allocs/op", fmtNs(r.nsPerOp), fmtMB(int64(r.bytesPerOp)/1024), r.allocsPerOp)
}

// fmtMB formats KiB as decimal megabytes (or kilobytes when small).
func fmtMB(kib int64) string {
	b := float64(kib) * 1024
	if b < 1e6 {
		return fmt.Sprintf("%.0f kB", b/1e3)
	}
	return fmt.Sprintf("%.1f MB", b/1e6)
}

func fmtCalls(calls map[string]int) string {
	var parts []string
	total := 0
	for _, k := range slices.Sorted(maps.Keys(calls)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, calls[k]))
		if strings.HasPrefix(k, "EC2.") {
			total += calls[k]
		}
	}
	return fmt.Sprintf("%s (EC2 total %d)", strings.Join(parts, ", "), total)
}

func fmtDelta(d map[string]int) string {
	if len(d) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(d)) {
		parts = append(parts, fmt.Sprintf("%s %+d", k, d[k]))
	}
	return strings.Join(parts, ", ")
}

// launchTemplates is how many templates an apply created.
func launchTemplates(r run) int { return r.calls["EC2.CreateLaunchTemplate"] }
