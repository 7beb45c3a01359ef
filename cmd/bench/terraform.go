package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

const (
	clusterName  = "my-cluster" // what cmd/seed tags
	providerName = "terraform-provider-karpenter"
)

// benchReq is one requirement of the generated pools.
type benchReq struct {
	key, op string
	values  []string
}

// broadReqs are the pools of the generated configurations: the README's general-purpose pool
// (several hundred eligible types). narrowReqs pick two families (a few dozen types), to show
// how much of the cost is the size of each pool's planned value.
var (
	broadReqs = []benchReq{
		{"karpenter.k8s.aws/instance-category", "In", []string{"c", "m", "r"}},
		{"karpenter.k8s.aws/instance-generation", "Gt", []string{"2"}},
		{"kubernetes.io/arch", "In", []string{"amd64"}},
		{"karpenter.sh/capacity-type", "In", []string{"on-demand"}},
	}
	narrowReqs = []benchReq{
		{"karpenter.k8s.aws/instance-family", "In", []string{"m5", "c5"}},
		{"kubernetes.io/arch", "In", []string{"amd64"}},
		{"karpenter.sh/capacity-type", "In", []string{"on-demand"}},
	}
)

func poolRequirements(reqs []benchReq) []requirements.Requirement {
	var out []requirements.Requirement
	for _, r := range reqs {
		out = append(out, requirements.Requirement{Key: r.key, Operator: requirements.Operator(r.op), Values: r.values})
	}
	return out
}

// hclRequirements writes reqs as HCL list elements, each line after prefix.
func hclRequirements(reqs []benchReq, prefix string) string {
	var b strings.Builder
	for _, r := range reqs {
		fmt.Fprintf(&b, "%s{ key = %q, operator = %q, values = [%s] },\n", prefix, r.key, r.op, quoteJoin(r.values))
	}
	return b.String()
}

func quoteJoin(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// oursConfig is one node class and n node pools on it; classes > 1 adds classes with the same
// (default discovery) selectors, one pool on each extra class.
func oursConfig(n, classes int, prefix string, reqs []benchReq) string {
	var b strings.Builder
	fmt.Fprintf(&b, `terraform {
  required_providers {
    karpenter = { source = "nodeplane/karpenter" }
  }
}

provider "karpenter" {
  cluster_name = %q
}

resource "karpenter_node_class" "bench" {
  count              = %d
  name               = "%s-${count.index}"
  role               = "KarpenterNodeRole-%s"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "bench" {
  count      = %d
  name       = "%s-${count.index}"
  node_class = karpenter_node_class.bench[count.index %% %d].resolved
  template = {
    requirements = [
%s    ]
  }
  limits = { cpu = "1000", memory = "1000Gi" }
}
`, clusterName, classes, prefix, clusterName, n, prefix, classes, hclRequirements(reqs, "      "))
	return b.String()
}

// floorConfig has the same shape with terraform_data: one "class" and n "pools" that depend on it.
func floorConfig(n int) string {
	return fmt.Sprintf(`resource "terraform_data" "class" {
  input = { name = "bench" }
}

resource "terraform_data" "pool" {
  count = %d
  input = { name = "bench-${count.index}", class = terraform_data.class.output }
}
`, n)
}

// kubeManifestConfig is the same class and n pools (broadReqs) written as kubernetes_manifest resources
// against the local API server (make k8s-up): the path users take without this provider.
func kubeManifestConfig(n int, kubeconfig string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    kubernetes = { source = "hashicorp/kubernetes" }
  }
}

provider "kubernetes" {
  config_path = %q
}

resource "kubernetes_manifest" "class" {
  manifest = {
    apiVersion = "karpenter.k8s.aws/v1"
    kind       = "EC2NodeClass"
    metadata   = { name = "bench-manifest" }
    spec = {
      role                       = "KarpenterNodeRole-bench"
      amiSelectorTerms           = [{ alias = "al2023@latest" }]
      subnetSelectorTerms        = [{ tags = { "karpenter.sh/discovery" = "bench" } }]
      securityGroupSelectorTerms = [{ tags = { "karpenter.sh/discovery" = "bench" } }]
    }
  }
}

resource "kubernetes_manifest" "pool" {
  count = %d
  manifest = {
    apiVersion = "karpenter.sh/v1"
    kind       = "NodePool"
    metadata   = { name = "bench-manifest-${count.index}" }
    spec = {
      template = {
        spec = {
          nodeClassRef = { group = "karpenter.k8s.aws", kind = "EC2NodeClass", name = kubernetes_manifest.class.manifest.metadata.name }
          requirements = [
%s          ]
        }
      }
      limits = { cpu = "1000", memory = "1000Gi" }
    }
  }
}
`, kubeconfig, n, hclRequirements(broadReqs, "            "))
}

// kubectlManifestConfig is the same class and n pools again as gavinbunney/kubectl's
// kubectl_manifest resources (the provider make k8s-up builds), written as its users write them:
// YAML bodies, each pool naming the class through the class resource's name, so that the pools
// depend on it as the kubernetes_manifest peer's do.
func kubectlManifestConfig(n int, kubeconfig string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    kubectl = { source = "gavinbunney/kubectl" }
  }
}

provider "kubectl" {
  config_path      = %q
  load_config_file = true
}

resource "kubectl_manifest" "class" {
  yaml_body = <<-YAML
    apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata:
      name: bench-kubectl
    spec:
      role: KarpenterNodeRole-bench
      amiSelectorTerms:
        - alias: al2023@latest
      subnetSelectorTerms:
        - tags:
            karpenter.sh/discovery: bench
      securityGroupSelectorTerms:
        - tags:
            karpenter.sh/discovery: bench
  YAML
}

resource "kubectl_manifest" "pool" {
  count     = %d
  yaml_body = <<-YAML
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: bench-kubectl-${count.index}
    spec:
      template:
        spec:
          nodeClassRef:
            group: karpenter.k8s.aws
            kind: EC2NodeClass
            name: ${kubectl_manifest.class.name}
          requirements:
%s      limits:
        cpu: "1000"
        memory: 1000Gi
  YAML
}
`, kubeconfig, n, yamlRequirements(broadReqs, "            "))
}

// yamlRequirements writes reqs as a YAML list, each line after prefix.
func yamlRequirements(reqs []benchReq, prefix string) string {
	var b strings.Builder
	for _, r := range reqs {
		fmt.Fprintf(&b, "%s- key: %s\n%s  operator: %s\n%s  values: [%s]\n", prefix, r.key, prefix, r.op, prefix, quoteJoin(r.values))
	}
	return b.String()
}

// tfEnv runs Terraform in generated directories with the provider under dev_overrides.
type tfEnv struct {
	terraform string
	work      string // temp dir: plugins/, terraformrc, one dir per configuration
	plugin    string // the provider binary
	rc        string
	nullRC    string // CLI configuration serving cmd/bench/nullprovider instead (directories named null-*)
	kubeRC    string // CLI configuration serving the hashicorp/kubernetes provider of make k8s-up ("" without it)
	kubectlRC string // CLI configuration serving the gavinbunney/kubectl provider of make k8s-up ("" without it)
	profile   bool   // the binary is cmd/bench/profprovider: counted runs write CPU and heap profiles
}

// nullConfig is n resources of the do-nothing provider plus one they depend on: what any
// plugin provider built on the same framework costs Terraform.
func nullConfig(n int) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    karpenter = { source = "nodeplane/karpenter" }
  }
}

resource "karpenter_null" "class" {
  name = "bench"
}

resource "karpenter_null" "pool" {
  count = %d
  name  = "bench-${count.index}"
  class = karpenter_null.class.name
}
`, n)
}

func newTFEnv(root, terraform, work string, profile bool) (*tfEnv, error) {
	e := &tfEnv{terraform: terraform, work: work, plugin: filepath.Join(work, "plugins", providerName), rc: filepath.Join(work, "terraformrc"), profile: profile}
	pkg := "."
	if profile {
		pkg = "./cmd/bench/profprovider"
	}
	nullPlugin := filepath.Join(work, "nullplugins", providerName)
	e.nullRC = filepath.Join(work, "terraformrc-null")
	for bin, p := range map[string]string{e.plugin: pkg, nullPlugin: "./cmd/bench/nullprovider"} {
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, p)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building %s: %v\n%s", p, err, out)
		}
	}
	for rc, bin := range map[string]string{e.rc: e.plugin, e.nullRC: nullPlugin} {
		if err := writeOverrideRC(rc, "nodeplane/karpenter", filepath.Dir(bin)); err != nil {
			return nil, err
		}
	}
	return e, e.peerRCs(os.Getenv("KARPENTER_TEST_KUBERNETES_PROVIDER_DIR"))
}

// peerRCs writes the CLI configurations of the manifest peers for the providers make k8s-up
// built into dir (scripts/k8s.sh env); a peer whose provider is missing is left out.
func (e *tfEnv) peerRCs(dir string) error {
	if dir == "" {
		return nil
	}
	for _, p := range []struct {
		rc     *string
		source string
	}{{&e.kubeRC, "hashicorp/kubernetes"}, {&e.kubectlRC, "gavinbunney/kubectl"}} {
		bin := "terraform-provider-" + p.source[strings.IndexByte(p.source, '/')+1:]
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			say("no %s in %s (make k8s-up builds it): its manifest peer is left out", bin, dir)
			continue
		}
		*p.rc = filepath.Join(e.work, "terraformrc-"+bin)
		if err := writeOverrideRC(*p.rc, p.source, dir); err != nil {
			return err
		}
	}
	return nil
}

// writeOverrideRC writes a Terraform CLI configuration that serves the provider source
// (namespace/type) from the binary in dir.
func writeOverrideRC(path, source, dir string) error {
	text := fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/%s" = %q
  }
  direct {}
}
`, source, dir)
	return os.WriteFile(path, []byte(text), 0o644)
}

// dir writes a configuration into work/name.
func (e *tfEnv) dir(name, config string) (string, error) {
	d := filepath.Join(e.work, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	return d, os.WriteFile(filepath.Join(d, "main.tf"), []byte(config), 0o644)
}

// run is one Terraform command's measurements.
type run struct {
	wall     time.Duration
	outBytes int64
	output   string // the last part of stdout/stderr, for errors and checks

	// With logging (counted runs) only.
	calls      map[string]int // "EC2.DescribeSubnets" -> n
	callsBy    map[string]int // "EC2.DescribeSubnets PlanResourceChange karpenter_node_class" -> n
	procs      int            // provider processes Terraform started (from its log)
	peakRSSKB  int64          // largest VmHWM of those processes (sampled every 10 ms)
	peakAnonKB int64          // largest RssAnon seen in those processes: their own memory, without the binary's file pages
	cpu        time.Duration  // user+system CPU of those processes, summed (sampled)
}

// terraformCmd runs terraform args in dir. With counted, the provider logs at debug into a file
// that is parsed for the API calls, and the provider processes are sampled for memory and CPU.
func (e *tfEnv) terraformCmd(ctx context.Context, dir string, counted bool, args ...string) (run, error) {
	return e.terraformCmdEnv(ctx, dir, counted, nil, args...)
}

// terraformCmdEnv is terraformCmd with extra environment variables (NAME=value).
func (e *tfEnv) terraformCmdEnv(ctx context.Context, dir string, counted bool, extra []string, args ...string) (run, error) {
	var r run
	logPath := filepath.Join(dir, "provider.log")
	rc := e.rc
	switch {
	case strings.HasPrefix(filepath.Base(dir), "null-"):
		rc = e.nullRC
	case strings.HasPrefix(filepath.Base(dir), "k8sm-"):
		rc = e.kubeRC
	case strings.HasPrefix(filepath.Base(dir), "kubectl-"):
		rc = e.kubectlRC
	}
	env := []string{"TF_CLI_CONFIG_FILE=" + rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") {
			env = append(env, kv)
		}
	}
	env = append(env, extra...)
	if counted {
		_ = os.Remove(logPath)
		// The provider's own debug lines carry the API calls; the SDK's TRACE lines would only
		// inflate the CPU and memory being measured, as they are off in a normal run.
		env = append(env, "TF_LOG_PROVIDER=DEBUG", "TF_LOG_PATH="+logPath,
			"TF_LOG_SDK=OFF", "TF_LOG_SDK_PROTO=OFF", "TF_LOG_SDK_FRAMEWORK=OFF")
		if e.profile {
			env = append(env, "KARPENTER_CPU_PROFILE="+filepath.Join(dir, "cpu.pprof"), "KARPENTER_HEAP_PROFILE="+filepath.Join(dir, "heap.pprof"))
		}
	}
	cmd := exec.CommandContext(ctx, e.terraform, append(args, "-input=false", "-no-color")...)
	cmd.Dir, cmd.Env = dir, env
	out := &tailCounter{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out

	var sampler *procSampler
	if counted {
		sampler = startSampler(e.plugin, 10*time.Millisecond)
	}
	start := time.Now()
	err := cmd.Run()
	r.wall = time.Since(start)
	if sampler != nil {
		_, r.peakRSSKB, r.peakAnonKB, r.cpu = sampler.stop()
	}
	r.outBytes, r.output = out.n, string(out.tail())
	if err != nil {
		return r, fmt.Errorf("terraform %s in %s: %v\n%s", strings.Join(args, " "), dir, err, lastLines(r.output, 30))
	}
	if counted {
		if r.calls, r.callsBy, r.procs, err = parseLog(logPath, e.plugin); err != nil {
			return r, err
		}
	}
	return r, nil
}

var (
	opRE   = regexp.MustCompile(`\baws_operation=(\S+)`)
	rpcRE  = regexp.MustCompile(`\btf_rpc=(\S+)`)
	typeRE = regexp.MustCompile(`\btf_resource_type=(\S+)`)
)

// parseLog reads the "aws api call" lines that awsclient's call counter writes at debug, and
// counts the provider processes Terraform started.
func parseLog(path, plugin string) (calls, by map[string]int, procs int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	calls, by = map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "plugin started: path="+plugin+" ") {
			procs++
			continue
		}
		if !strings.Contains(line, "aws api call:") {
			continue
		}
		m := opRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		calls[m[1]]++
		key := m[1]
		if rm := rpcRE.FindStringSubmatch(line); rm != nil {
			key += " " + rm[1]
		}
		if tm := typeRE.FindStringSubmatch(line); tm != nil {
			key += " " + tm[1]
		}
		by[key]++
	}
	return calls, by, procs, sc.Err()
}

// tailCounter counts what is written and keeps the last max bytes.
type tailCounter struct {
	mu  sync.Mutex
	n   int64
	max int
	buf []byte
}

func (t *tailCounter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n += int64(len(p))
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailCounter) tail() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) > t.max {
		return t.buf[len(t.buf)-t.max:]
	}
	return t.buf
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// procSampler polls /proc for processes running the provider binary and records each one's
// VmHWM (peak resident set), the largest RssAnon it saw and CPU time, the last values seen
// before it exits. VmHWM counts the pages of the binary's file the process touched, which the
// kernel may map in large folios or not depending on the page cache: byte-identical builds idled
// at 54–57 MB and a build with two environment checks added at 44 MB, each with 10.8–10.9 MB of
// anonymous memory. RssAnon is what the process itself allocated.
type procSampler struct {
	exe  string
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	seen map[int]procStat
}

type procStat struct {
	hwmKB    int64
	anonKB   int64
	cpuTicks int64
}

func startSampler(exe string, every time.Duration) *procSampler {
	s := &procSampler{exe: exe, done: make(chan struct{}), seen: map[int]procStat{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *procSampler) sample() {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", ent.Name(), "exe"))
		if err != nil || strings.TrimSuffix(exe, " (deleted)") != s.exe {
			continue
		}
		st, ok := readProcStat(pid)
		if !ok {
			continue
		}
		s.mu.Lock()
		prev := s.seen[pid]
		s.seen[pid] = procStat{hwmKB: max(prev.hwmKB, st.hwmKB), anonKB: max(prev.anonKB, st.anonKB), cpuTicks: max(prev.cpuTicks, st.cpuTicks)}
		s.mu.Unlock()
	}
}

// clockTicks is USER_HZ, 100 on every Linux architecture Go supports.
const clockTicks = 100

func readProcStat(pid int) (procStat, bool) {
	var st procStat
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return st, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			st.hwmKB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			st.anonKB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return st, false
	}
	// Fields after the command name (which may hold spaces) start at state, field 3.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
		f := strings.Fields(string(stat)[i+1:])
		if len(f) > 12 {
			utime, _ := strconv.ParseInt(f[11], 10, 64)
			stime, _ := strconv.ParseInt(f[12], 10, 64)
			st.cpuTicks = utime + stime
		}
	}
	return st, true
}

func (s *procSampler) stop() (procs int, peakKB, anonKB int64, cpu time.Duration) {
	close(s.done)
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var ticks int64
	for _, st := range s.seen {
		peakKB = max(peakKB, st.hwmKB)
		anonKB = max(anonKB, st.anonKB)
		ticks += st.cpuTicks
	}
	return len(s.seen), peakKB, anonKB, time.Duration(ticks) * time.Second / clockTicks
}
