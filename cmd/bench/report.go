package main

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"
)

// addRow adds one row of the table; a non-nil ok makes it a target, met or missed.
type addRow func(measure, result, target string, ok *bool)

func checked(b bool) *bool { return &b }

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
	r.goRows(add)
	if len(r.ours) > 0 {
		r.planRows(add)
		r.callRows(add)
		r.resourceRows(add)
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

// goRows are the Go benchmarks' rows and the in-process plan over the emulator's catalog.
func (r *report) goRows(add addRow) {
	for _, b := range goBenches {
		if b.name == "BenchmarkBuildScaling" {
			if result, ok := r.scaling(b.pkg + "." + b.name); ok {
				add(fmt.Sprintf("Go: %s (`%s`)", b.what, b.name), result, "linear in catalog size", checked(r.linear))
			}
			continue
		}
		res, ok := r.goRes[b.pkg+"."+b.name]
		if !ok {
			continue
		}
		target, met := "", (*bool)(nil)
		if b.target > 0 {
			target, met = "< "+fmtDur(b.target), checked(res.nsPerOp < float64(b.target))
		}
		add(fmt.Sprintf("Go: %s (`%s`)", b.what, b.name), fmtBench(res), target, met)
	}
	if lc := r.live; lc != nil {
		add(fmt.Sprintf("Go: planning one node pool over the emulator's full catalog (%d types, %d eligible), in process, "+
			"again (a plan's later pools with the same requirements and class: the selection and capacity tables kept)", lc.types, lc.eligible),
			fmtBench(lc.build), "< 2 ms", checked(lc.build.nsPerOp < 2e6))
		add(fmt.Sprintf("Catalog load: DescribeInstanceTypes and DescribeInstanceTypeOfferings, concurrently (%d types, %d zones)", lc.types, len(lc.zones)),
			fmtDur(lc.loadWall)+" wall", "once per provider process", nil)
	}
}

// planRows are the timed plans of ours against the floor and the do-nothing provider, against
// the manifest peers, the do-nothing provider against the floor, the catalog cache off and the
// narrow pools.
func (r *report) planRows(add addRow) {
	maxN := r.o.pools[len(r.o.pools)-1]
	for _, n := range r.o.pools {
		ours, floor, null := medianDur(r.ours[n]), medianDur(r.floor[n]), medianDur(r.null[n])
		// The targets are against the do-nothing provider (issue 17): what a provider on
		// this framework cannot avoid is not counted against the planning.
		target, met := "", (*bool)(nil)
		vsNull := float64(ours) / float64(null)
		switch n {
		case 10:
			target, met = "≤ 2× the do-nothing provider", checked(vsNull <= 2)
		case 100:
			target, met = "≤ 3× the do-nothing provider", checked(vsNull <= 3)
		}
		add(fmt.Sprintf("`terraform plan`, 1 node class + %d pools vs %d `terraform_data` (median of %d)", n, n+1, len(r.ours[n])),
			fmt.Sprintf("%s vs %s: **%.1f×** (vs the do-nothing provider's %s: %.1f×)", fmtDur(ours), fmtDur(floor), float64(ours)/float64(floor), fmtDur(null), vsNull), target, met)
	}
	r.peerRows(add)
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
	nr, floor := medianDur(r.narrow), medianDur(r.floor[maxN])
	eligible := ""
	if r.live != nil {
		eligible = fmt.Sprintf(", %d eligible types each vs %d", r.live.narrowEligible, r.live.eligible)
	}
	add(fmt.Sprintf("`terraform plan`, %d narrow pools (2 families%s) vs %d `terraform_data`", maxN, eligible, maxN+1),
		fmt.Sprintf("%s vs %s: %.1f×", fmtDur(nr), fmtDur(floor), float64(nr)/float64(floor)), "", nil)
}

// peerRows compare ours with the same class and pools written as kubernetes_manifest and as
// kubectl_manifest resources against the local API server, at every N: the paths users take
// without this provider. A peer that was not measured (no make k8s-up) gets one row saying so.
func (r *report) peerRows(add addRow) {
	for _, p := range []struct {
		kind, target string
		times        map[int][]time.Duration
		ok           func(ratio float64) bool
	}{
		{"`kubernetes_manifest`", "< 1× (ahead of it)", r.kube, func(x float64) bool { return x < 1 }},
		{"`kubectl_manifest`", "≤ 1.5×", r.kubectl, func(x float64) bool { return x <= 1.5 }},
	} {
		if len(p.times) == 0 {
			add(fmt.Sprintf("`terraform plan`, 1 node class + N pools vs the same as %s against the local API server", p.kind),
				`not measured: no API server or provider (make k8s-up; eval "$(scripts/k8s.sh env)")`, p.target, nil)
			continue
		}
		for _, n := range r.o.pools {
			ours, peer := medianDur(r.ours[n]), medianDur(p.times[n])
			ratio := float64(ours) / float64(peer)
			add(fmt.Sprintf("`terraform plan`, 1 node class + %d pools vs the same as %s against the local API server (median of %d)", n, p.kind, len(p.times[n])),
				fmt.Sprintf("%s vs %s: **%.2f×**", fmtDur(ours), fmtDur(peer), ratio), p.target, checked(p.ok(ratio)))
		}
	}
}

// callRows are the API calls of the counted plans, the catalog's calls, two classes with the
// same selectors, and what a refresh adds.
func (r *report) callRows(add addRow) {
	maxN := r.o.pools[len(r.o.pools)-1]
	for _, n := range r.o.pools {
		c := r.counted[n]
		target, met := "", (*bool)(nil)
		if n == maxN && n != r.o.pools[0] {
			target = fmt.Sprintf("= N = %d", r.o.pools[0])
			met = checked(maps.Equal(c.calls, r.counted[r.o.pools[0]].calls))
		}
		add(fmt.Sprintf("API calls, first plan (empty state; catalog from the disk cache), N = %d", n), fmtCalls(c.calls), target, met)
	}
	its, offs := 0, 0
	for _, n := range r.o.pools {
		its = max(its, r.counted[n].calls["EC2.DescribeInstanceTypes"])
		offs = max(offs, r.counted[n].calls["EC2.DescribeInstanceTypeOfferings"])
	}
	coldIts, coldOffs := r.cold.calls["EC2.DescribeInstanceTypes"], r.cold.calls["EC2.DescribeInstanceTypeOfferings"]
	add("Catalog calls per plan (one configured provider process; the emulator answers in one page)",
		fmt.Sprintf("cache off: DescribeInstanceTypes %d, DescribeInstanceTypeOfferings %d; fresh cache file: %d and %d; %d provider processes per plan (schema, validate, plan)",
			coldIts, coldOffs, its, offs, r.counted[maxN].procs),
		"once per process; none with a fresh cache", checked(coldIts == 1 && coldOffs == 1 && its == 0 && offs == 0))
	d := r.dup.calls
	add("Two node classes with the same selectors, one pool each",
		fmt.Sprintf("DescribeSubnets %d, DescribeSecurityGroups %d", d["EC2.DescribeSubnets"], d["EC2.DescribeSecurityGroups"]),
		"1 each (once per distinct selector set)", checked(d["EC2.DescribeSubnets"] == 1 && d["EC2.DescribeSecurityGroups"] == 1))

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
		fmt.Sprintf("≤ %d (one read per pool)", r.refreshN), checked(total <= r.refreshN))
}

// resourceRows are the provider's memory and CPU and the plan output at the largest N.
func (r *report) resourceRows(add addRow) {
	maxN := r.o.pools[len(r.o.pools)-1]
	c := r.counted[maxN]
	add(fmt.Sprintf("Peak RSS of a provider process, N = %d (VmHWM; in brackets its own memory, RssAnon, without the binary's file pages)", maxN),
		fmt.Sprintf("%s (%s)", fmtMB(c.peakRSSKB), fmtMB(c.peakAnonKB)), "< 150 MB", checked(float64(c.peakRSSKB)*1024 < 150e6))
	add(fmt.Sprintf("Provider CPU (all processes, user+system), N = %d", maxN),
		fmt.Sprintf("%s (%s per pool); narrow pools: %s", fmtDur(c.cpu), fmtDur(c.cpu/time.Duration(maxN)), fmtDur(r.narrowRun.cpu)), "", nil)
	add(fmt.Sprintf("`terraform plan` output, N = %d", maxN),
		fmt.Sprintf("%s (%s per pool); narrow pools: %s", fmtMB(c.outBytes/1024), fmtMB(c.outBytes/1024/int64(maxN)), fmtMB(r.narrowRun.outBytes/1024)),
		"≤ 8 kB per pool", checked(c.outBytes/int64(maxN) <= 8*1024))
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
