package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
)

// awsLatency is what the latency plans add to each call: about what EC2, IAM, SSM and STS take
// from a machine in the same region, and what one page of the Pricing API's GetProducts takes.
var awsLatency = map[string]time.Duration{
	"ec2": 50 * time.Millisecond, "iam": 50 * time.Millisecond, "ssm": 50 * time.Millisecond, "sts": 50 * time.Millisecond,
	"pricing": 300 * time.Millisecond,
}

// latencyRun is one plan at AWS-like latency.
type latencyRun struct {
	wall, serial time.Duration  // the plan's wall time; the sum of its calls' times at the proxy
	calls        map[string]int // by action
}

// latencyReport is a cold-cache and a warm-cache plan of one class and n pools.
type latencyReport struct {
	n          int
	cold, warm latencyRun
	direct     latencyRun // the warm plan again with the latency off
}

// measureLatency plans one class and n pools with every AWS call going through acctest's fault
// proxy, which delays each call by awsLatency for its service, in front of acctest's pricing
// stub (the Pricing API answered from Karpenter's embedded on-demand table in pages of 100, as
// AWS pages it; everything else goes on to the emulator). The first plan starts with an empty
// catalog and price cache, the second reads them.
func measureLatency(ctx context.Context, e *tfEnv, ep *endpoint, region string, n int) (*latencyReport, error) {
	stub, err := acctest.StartPricingStub()
	if err != nil {
		return nil, err
	}
	defer stub.Close()
	prices, _ := pricing.FallbackOnDemand(region)
	if len(prices) == 0 {
		return nil, fmt.Errorf("no embedded on-demand prices for %s to serve", region)
	}
	stub.SetOnDemand(region, prices)
	stub.SetPageSize(100)
	proxy, err := acctest.StartFaultProxy(acctest.FaultConfig{Target: stub.URL(), ServiceLatency: awsLatency})
	if err != nil {
		return nil, err
	}
	defer proxy.Close()

	dir, err := e.dir(fmt.Sprintf("latency-%d", n), oursConfig(n, 1, "bench", broadReqs))
	if err != nil {
		return nil, err
	}
	cache := filepath.Join(e.work, "latency-cache")
	if err := os.RemoveAll(cache); err != nil {
		return nil, err
	}
	env := []string{"AWS_ENDPOINT_URL=" + proxy.URL(), "KARPENTER_CATALOG_CACHE_DIR=" + cache}
	rep := &latencyReport{n: n}
	for _, out := range []*latencyRun{&rep.cold, &rep.warm, &rep.direct} {
		proxy.SetEnabled(out != &rep.direct)
		before := proxy.Stats()
		err := ep.do(ctx, func() error {
			r, err := e.terraformCmdEnv(ctx, dir, false, env, "plan")
			out.wall = r.wall
			return err
		})
		if err != nil {
			return nil, err
		}
		out.serial, out.calls = statsSince(before, proxy.Stats())
	}
	return rep, nil
}

// statsSince is the calls and their summed time between two snapshots of the proxy.
func statsSince(before, after acctest.FaultStats) (time.Duration, map[string]int) {
	calls := map[string]int{}
	var busy time.Duration
	for action, a := range after.Actions {
		b := before.Actions[action]
		if d := a.Requests - b.Requests; d > 0 {
			calls[action] = d
		}
		busy += a.Busy - b.Busy
	}
	return busy, calls
}

// rows are the report's lines for the latency plans.
func (l *latencyReport) rows(add func(measure, result, target string, ok *bool)) {
	var lat []string
	for _, s := range slices.Sorted(maps.Keys(awsLatency)) {
		lat = append(lat, fmt.Sprintf("%s %s", s, fmtDur(awsLatency[s])))
	}
	for _, c := range []struct {
		name string
		r    latencyRun
	}{{"cold cache (catalog and prices read from AWS)", l.cold}, {"warm cache (catalog and prices from the disk cache)", l.warm}} {
		total := 0
		for _, v := range c.r.calls {
			total += v
		}
		add(fmt.Sprintf("`terraform plan` at AWS-like latency (%s per call; Pricing per page), 1 node class + %d pools, %s",
			strings.Join(lat, ", "), l.n, c.name),
			fmt.Sprintf("%s wall; %d calls taking %s in series: wall / serial sum **%.2f** (%s)", fmtDur(c.r.wall), total, fmtDur(c.r.serial),
				float64(c.r.wall)/float64(max(c.r.serial, 1)), fmtActions(c.r.calls)), "", nil)
	}
	added, addedSerial := l.warm.wall-l.direct.wall, l.warm.serial-l.direct.serial
	add(fmt.Sprintf("What the latency adds to the warm plan of 1 node class + %d pools (the same plan with the latency off: %s wall, its calls %s in series)",
		l.n, fmtDur(l.direct.wall), fmtDur(l.direct.serial)),
		fmt.Sprintf("%s of wall for %s more of calls in series: **%.2f**", fmtDur(added), fmtDur(addedSerial), float64(added)/float64(max(addedSerial, 1))),
		"", nil)
}

// fmtActions lists calls by action, most first.
func fmtActions(calls map[string]int) string {
	names := slices.SortedFunc(maps.Keys(calls), func(a, b string) int {
		if calls[a] != calls[b] {
			return calls[b] - calls[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, a := range names {
		parts[i] = fmt.Sprintf("%s %d", a, calls[a])
	}
	return strings.Join(parts, ", ")
}
