// Command bench is `make bench`: it measures the provider against the cost model of the
// performance guide (templates/guides/performance.md.tmpl) and prints one Markdown table.
//
//   - Go benchmarks of the pure packages (go test -bench, median of -count runs), and
//     launchplan.Build over the emulator's full instance-type catalog, in process.
//   - `terraform plan` wall time (empty state) of generated configurations, one node class and
//     N node pools, beside N terraform_data resources of the same shape (Terraform's floor), a
//     do-nothing provider on the same framework (cmd/bench/nullprovider), and, with make k8s-up's
//     API server, the same class and pools as kubernetes_manifest and as kubectl_manifest
//     resources, run interleaved; the median of -reps runs and the ratios per N.
//   - API calls per plan by action, from the debug line awsclient's call counter writes per call
//     (TF_LOG_PROVIDER=DEBUG into a log file), with the peak RSS and CPU of the provider
//     processes (sampled from /proc); the calls a refresh adds after an apply; the calls of two
//     node classes with the same selectors.
//
// It needs an EC2 endpoint with the tutorial VPC (LocalStack: make localstack-up; it seeds the
// VPC itself) and Terraform >= 1.5 (scripts/terraform-path.sh). The refresh measurement creates
// launch templates and destroys them again.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const modulePath = "github.com/nodeplane/terraform-provider-karpenter"

type options struct {
	root      string
	reps      int
	pools     []int
	goCount   int
	benchtime string
	skipGo    bool
	skipTF    bool
	skipLat   bool
	keep      bool
	profile   bool
	strict    bool
	out       string
}

func main() {
	var o options
	var pools string
	flag.IntVar(&o.reps, "reps", 5, "timed terraform plan runs per configuration (median reported)")
	flag.StringVar(&pools, "pools", "1,10,100", "node pool counts N")
	flag.IntVar(&o.goCount, "count", 3, "go test -count for the Go benchmarks (median reported)")
	flag.StringVar(&o.benchtime, "benchtime", "1s", "go test -benchtime")
	flag.BoolVar(&o.skipGo, "skip-go", false, "skip the Go benchmarks")
	flag.BoolVar(&o.skipTF, "skip-terraform", false, "skip everything that needs Terraform and the EC2 endpoint")
	flag.BoolVar(&o.skipLat, "skip-latency", false, "skip the plans at AWS-like latency")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (configurations, logs, profiles)")
	flag.BoolVar(&o.profile, "profile", false, "serve the provider from cmd/bench/profprovider and keep CPU and heap profiles of the counted runs (implies -keep)")
	flag.BoolVar(&o.strict, "strict", false, "exit 1 when a target is missed")
	flag.StringVar(&o.out, "o", "", "also write the table to this file")
	flag.Parse()
	for _, f := range strings.Split(pools, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fatalf("-pools: %q is not a positive count", f)
		}
		o.pools = append(o.pools, n)
	}
	slices.Sort(o.pools)
	if o.reps < 1 || o.goCount < 1 {
		fatalf("-reps and -count must be at least 1")
	}
	o.keep = o.keep || o.profile
	root, err := findRoot()
	if err != nil {
		fatalf("%v", err)
	}
	o.root = root

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := measure(ctx, o)
	if err != nil {
		fatalf("%v", err)
	}
	table := rep.table()
	fmt.Print(table)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(table), 0o644); err != nil {
			fatalf("%v", err)
		}
	}
	if o.strict && rep.missed > 0 {
		os.Exit(1)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(1)
}

var started = time.Now()

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "==> [%5.0fs] %s\n", time.Since(started).Seconds(), fmt.Sprintf(format, args...))
}

func findRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module "+modulePath+"\n") {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("run from inside the %s checkout", modulePath)
		}
		d = parent
	}
}

// report is everything measured.
type report struct {
	o      options
	goRes  map[string]benchResult
	live   *liveCatalog
	region string

	ours, floor map[int][]time.Duration // timed plan runs by N
	kube        map[int][]time.Duration // the same class and pools as kubernetes_manifest resources (make k8s-up)
	kubectl     map[int][]time.Duration // the same class and pools as kubectl_manifest resources (make k8s-up)
	null        map[int][]time.Duration // timed plan runs of the do-nothing provider by N
	cold        run                     // counted plan at the smallest N with the catalog cache off
	narrow      []time.Duration         // timed plan runs of N = max with narrow pools
	counted     map[int]run             // counted plan by N
	narrowRun   run
	dup         run // two classes with the same selectors, one pool each
	refreshN    int
	applyRun    run
	refresh     run // plan after apply
	latency     *latencyReport
	refreshBase run // counted first plan of the same configuration before apply

	missed, met int
	linear      bool // planning time grows at most linearly with the catalog (BenchmarkBuildScaling)
}

func measure(ctx context.Context, o options) (*report, error) {
	r := &report{o: o, ours: map[int][]time.Duration{}, floor: map[int][]time.Duration{}, null: map[int][]time.Duration{},
		kube: map[int][]time.Duration{}, kubectl: map[int][]time.Duration{}, counted: map[int]run{}}
	if !o.skipGo {
		say("Go benchmarks of the pure packages (-count %d, -benchtime %s)", o.goCount, o.benchtime)
		res, err := runGoBenchmarks(o.root, o.goCount, o.benchtime)
		if err != nil {
			return nil, err
		}
		r.goRes = res
	}
	if o.skipTF {
		return r, nil
	}
	ep, tf, err := r.prepareEndpoint(ctx)
	if err != nil {
		return nil, err
	}

	work, err := os.MkdirTemp("", "karpenter-bench-")
	if err != nil {
		return nil, err
	}
	cleanup := true
	defer func() {
		if cleanup && !o.keep {
			os.RemoveAll(work)
		} else {
			say("work directory kept: %s", work)
		}
	}()
	say("building the provider into %s", work)
	e, err := newTFEnv(o.root, tf, work, o.profile)
	if err != nil {
		return nil, err
	}
	// The catalog's disk cache lives in the work directory: the warm-up plan fills it, as a
	// user's first plan does, and the timed and counted plans read it.
	os.Setenv("KARPENTER_CATALOG_CACHE_DIR", filepath.Join(work, "catalog-cache"))
	os.Unsetenv("KARPENTER_CATALOG_CACHE_TTL")

	cleanup = false // keep the directory for inspection when a run fails
	s := &tfSession{ctx: ctx, e: e, ep: ep}
	for _, step := range []func(*tfSession) error{r.timedPlans, r.countedPlans, r.refreshPlans} {
		if err := step(s); err != nil {
			return nil, err
		}
	}
	if !o.skipLat {
		n := 10
		say("plans at AWS-like latency, N = %d: cold cache, then warm", n)
		if r.latency, err = measureLatency(ctx, e, ep, r.region, n); err != nil {
			return nil, err
		}
	}
	cleanup = true
	if o.profile {
		say("CPU and heap profiles: %s/*/{cpu,heap}.pprof.<pid> (go tool pprof %s <file>)", work, e.plugin)
	}
	return r, nil
}

// prepareEndpoint points the AWS SDK at the EC2 endpoint (LocalStack unless set), waits for it
// and seeds it, finds Terraform and loads the catalog in process; it returns the endpoint and
// the Terraform binary.
func (r *report) prepareEndpoint(ctx context.Context) (*endpoint, string, error) {
	os.Setenv("AWS_ENDPOINT_URL", envOr("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"))
	os.Setenv("AWS_REGION", envOr("AWS_REGION", "ap-southeast-1"))
	os.Setenv("AWS_ACCESS_KEY_ID", envOr("AWS_ACCESS_KEY_ID", "test"))
	os.Setenv("AWS_SECRET_ACCESS_KEY", envOr("AWS_SECRET_ACCESS_KEY", "test"))
	r.region = os.Getenv("AWS_REGION")
	ep := &endpoint{root: r.o.root, url: os.Getenv("AWS_ENDPOINT_URL")}
	if err := ep.ensure(ctx); err != nil {
		return nil, "", err
	}
	tf, err := exec.Command(filepath.Join(r.o.root, "scripts", "terraform-path.sh")).Output()
	if err != nil {
		return nil, "", fmt.Errorf("no terraform >= 1.5 (make tools): %v", err)
	}
	say("loading the catalog from %s and planning one pool over it in process", ep.url)
	err = ep.do(ctx, func() error {
		lc, err := measureLiveCatalog(ctx, r.region)
		r.live = &lc
		return err
	})
	return ep, strings.TrimSpace(string(tf)), err
}

// tfSession runs Terraform commands on a healthy endpoint, and holds the directories of our
// configuration that the timed plans wrote for the counted ones.
type tfSession struct {
	ctx       context.Context
	e         *tfEnv
	ep        *endpoint
	oursDir   map[int]string // ours-N
	narrowDir string         // narrow pools at N = max
}

func (s *tfSession) run(ctx context.Context, dir string, counted bool, args ...string) (run, error) {
	var res run
	err := s.ep.do(ctx, func() error {
		var err error
		res, err = s.e.terraformCmd(ctx, dir, counted, args...)
		return err
	})
	return res, err
}

func (s *tfSession) plan(dir string, counted bool) (run, error) {
	return s.run(s.ctx, dir, counted, "plan")
}

// countedPlans plans ours once more per N with the provider's debug log and /proc sampling,
// with the catalog cache off, with narrow pools, and with two classes of the same selectors.
func (r *report) countedPlans(s *tfSession) error {
	var err error
	for _, n := range r.o.pools {
		say("counted plan, N = %d (provider debug log, /proc sampling)", n)
		if r.counted[n], err = s.plan(s.oursDir[n], true); err != nil {
			return err
		}
	}
	say("counted plan, N = %d, catalog cache off (KARPENTER_CATALOG_CACHE_TTL=0)", r.o.pools[0])
	if err := s.ep.do(s.ctx, func() error {
		var err error
		r.cold, err = s.e.terraformCmdEnv(s.ctx, s.oursDir[r.o.pools[0]], true, []string{"KARPENTER_CATALOG_CACHE_TTL=0"}, "plan")
		return err
	}); err != nil {
		return err
	}
	say("counted plan, N = %d, narrow pools", r.o.pools[len(r.o.pools)-1])
	if r.narrowRun, err = s.plan(s.narrowDir, true); err != nil {
		return err
	}
	dupDir, err := s.e.dir("two-classes", oursConfig(2, 2, "bench", narrowReqs))
	if err != nil {
		return err
	}
	say("counted plan, two node classes with the same selectors")
	r.dup, err = s.plan(dupDir, true)
	return err
}

// refreshPlans counts the calls a refresh adds: a counted first plan, apply, a counted plan,
// and destroy (which runs even when a step before it failed).
func (r *report) refreshPlans(s *tfSession) error {
	r.refreshN = 10
	if !slices.Contains(r.o.pools, r.refreshN) {
		r.refreshN = r.o.pools[0]
	}
	refreshDir, err := s.e.dir(fmt.Sprintf("refresh-%d", r.refreshN), oursConfig(r.refreshN, 1, "bench-refresh", broadReqs))
	if err != nil {
		return err
	}
	say("refresh: counted first plan, apply, counted plan, destroy (N = %d)", r.refreshN)
	if r.refreshBase, err = s.plan(refreshDir, true); err != nil {
		return err
	}
	r.applyRun, err = s.run(s.ctx, refreshDir, true, "apply", "-auto-approve")
	if err == nil {
		r.refresh, err = s.plan(refreshDir, true)
	}
	if _, derr := s.run(context.WithoutCancel(s.ctx), refreshDir, false, "destroy", "-auto-approve"); derr != nil && err == nil {
		err = derr
	}
	return err
}

// endpoint guards the runs against the emulator being stopped and started by another process
// (a shared LocalStack): it waits for it, starts it after a while (scripts/localstack.sh up
// leaves a running one alone), and seeds the VPC again after it was down.
type endpoint struct {
	root, url string
	seeded    bool
}

func (ep *endpoint) seed(ctx context.Context) error {
	say("seeding the tutorial VPC (go run ./cmd/seed)")
	cmd := exec.CommandContext(ctx, "go", "run", "./cmd/seed")
	cmd.Dir = ep.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("seed: %v\n%s", err, out)
	}
	ep.seeded = true
	return nil
}

// ensure returns once the endpoint is healthy and seeded.
func (ep *endpoint) ensure(ctx context.Context) error {
	deadline := time.Now().Add(3 * time.Minute)
	started := false
	for {
		err := checkEndpoint(ep.url)
		if err == nil {
			break
		}
		ep.seeded = false
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		if !started && time.Until(deadline) < 150*time.Second {
			say("the EC2 endpoint is down; starting it (scripts/localstack.sh up)")
			up := exec.CommandContext(ctx, filepath.Join(ep.root, "scripts", "localstack.sh"), "up")
			up.Dir = ep.root
			if out, uerr := up.CombinedOutput(); uerr != nil {
				say("scripts/localstack.sh up: %v: %s", uerr, lastLines(string(out), 5))
			}
			started = true
		}
		time.Sleep(2 * time.Second)
	}
	if !ep.seeded {
		return ep.seed(ctx)
	}
	return nil
}

// do runs f on a healthy endpoint, and once more when f failed while the endpoint went down
// meanwhile (a run that failed for another reason is not repeated).
func (ep *endpoint) do(ctx context.Context, f func() error) error {
	for attempt := 0; ; attempt++ {
		if err := ep.ensure(ctx); err != nil {
			return err
		}
		err := f()
		if err == nil || attempt > 0 || checkEndpoint(ep.url) == nil {
			return err
		}
		say("the EC2 endpoint went down during the run; running it again")
		ep.seeded = false
	}
}

func checkEndpoint(url string) error {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(strings.TrimRight(url, "/") + "/_localstack/health")
	if err != nil {
		return fmt.Errorf("EC2 endpoint %s does not answer (make localstack-up): %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"ec2"`) {
		return fmt.Errorf("EC2 endpoint %s is not a healthy LocalStack with EC2 (make localstack-up): %s %s", url, resp.Status, b)
	}
	return nil
}
