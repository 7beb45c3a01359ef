package provider

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
)

// kubeFault is what the cluster fault proxy answers for a resource kind instead of the server.
type kubeFault struct {
	status int  // an HTTP status with a Kubernetes Status body
	hang   bool // no answer until the client gives up
}

// kubeFaultProxy stands between the provider and the test API server: requests for a resource
// kind with a fault ("*" for every kind) get the fault; a list of the chart's controller label
// gets two controllers when twoControllers is set; the rest reach the server.
type kubeFaultProxy struct {
	srv            *httptest.Server
	caPEM          string
	faults         map[string]kubeFault
	twoControllers bool
	mu             sync.Mutex
	seen           map[string]int // requests by resource kind
}

// kubeResources are the resource kinds the provider reads from a cluster.
var kubeResources = []string{"deployments", "serviceaccounts", "customresourcedefinitions", "nodeclaims", "nodeoverlays", "nodepools",
	"ec2nodeclasses", "nodeclasses"}

func newKubeFaultProxy(t *testing.T, api *kubeAPI, faults map[string]kubeFault, twoControllers bool) *kubeFaultProxy {
	t.Helper()
	upstream, err := url.Parse(api.Server)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(api.CAPEM)
	forward := httputil.NewSingleHostReverseProxy(upstream)
	forward.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	p := &kubeFaultProxy{faults: faults, twoControllers: twoControllers, seen: map[string]int{}}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := ""
		for _, seg := range strings.Split(r.URL.Path, "/") {
			if slices.Contains(kubeResources, seg) {
				kind = seg
				break
			}
		}
		p.mu.Lock()
		p.seen[kind]++
		p.mu.Unlock()
		f, ok := faults[kind]
		if !ok {
			f, ok = faults["*"]
		}
		switch {
		case ok && f.hang:
			<-r.Context().Done()
			return
		case ok:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.status)
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": f.status,
				"message": fmt.Sprintf("%s is refused by the test's fault proxy", kind)})
			return
		case twoControllers && r.URL.Path == "/apis/apps/v1/deployments" && r.URL.Query().Get("labelSelector") == installation.StandardSelector:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "DeploymentList", "apiVersion": "apps/v1", "items": []any{
				controllerItem("karpenter", "karpenter"), controllerItem("kube-system", "karpenter")}})
			return
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	p.caPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw}))
	return p
}

// controllerItem is a Deployment of the chart's controller as the API server lists it.
func controllerItem(namespace, name string) map[string]any {
	return map[string]any{"metadata": map[string]any{"namespace": namespace, "name": name,
		"labels": map[string]string{"app.kubernetes.io/name": "karpenter"}},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "controller", "image": "public.ecr.aws/karpenter/controller:1.15.2"}}}}}}
}

// asked is how many requests the proxy saw for a resource kind.
func (p *kubeFaultProxy) asked(kind string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[kind]
}

// planFindings plans cfg once (PlanOnly: the plan must succeed) with the in-process provider
// and returns every warning of the provider's calls as "rpc path: summary: detail".
func planFindings(t *testing.T, cfg string) []string {
	t.Helper()
	var out []string
	for _, w := range recordedPlanWarnings(t, cfg, &suiteCalls) {
		out = append(out, w.rpc+" "+w.path+": "+w.text+": "+strings.Join(strings.Fields(w.detail), " "))
	}
	return out
}

// The cluster side of a plan fails in many ways a plan must survive: each fault below leaves the
// plan going on (it succeeds and plans the class and the pool) with a warning on the attribute
// whose check it skipped, naming what could not be read. Without faults none of those warnings
// appear. The API server faults come from a proxy in front of the test API server; the AWS ones
// from acctest's fault proxy in front of LocalStack.
func TestAccProvider_clusterSideFaults(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	suffix := strings.TrimPrefix(cluster, "cluster-")
	controller, role, queue := "karpenter-faults-"+suffix, "karpenter-faults-"+suffix, "karpenter-faults-"+suffix
	acctest.NewRole(t, role)
	acctest.PutRolePolicy(t, role, "controller", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Resource":"*","Action":"*"}]}`)
	acctest.NewQueue(t, queue, "")
	putObject(t, api, "/api/v1/namespaces/default/serviceaccounts", map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
		"metadata": map[string]any{"name": controller, "annotations": map[string]string{
			"eks.amazonaws.com/role-arn": "arn:aws:iam::000000000000:role/" + role}}})
	putControllerDeploymentAs(t, api, controller, "public.ecr.aws/karpenter/controller:1.15.2", controller, map[string]string{
		"CLUSTER_NAME": cluster, "FEATURE_GATES": "NodeOverlay=true", "INTERRUPTION_QUEUE": queue})

	config := func(kube *kubeFaultProxy, aws *acctest.FaultProxy, named bool) string {
		provider := strings.ReplaceAll(providerConfig(cluster), acctest.Endpoint(), aws.URL())
		setting := fmt.Sprintf("  karpenter_controller = \"default/%s\"\n", controller)
		if !named {
			setting = ""
		}
		return strings.Replace(provider, "provider \"karpenter\" {\n", fmt.Sprintf(`provider "karpenter" {
%s  karpenter_feature_gates = ["NodeOverlay"]
  kubernetes = {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = %q
  }
`, setting, kube.srv.URL, kube.caPEM, api.Token()), 1) + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "faults"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "test" {
  name       = "faults-%s"
  node_class = karpenter_node_class.test.resolved
  template = {
    requirements = [{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["m5"] }]
  }
}
`, suffix)
	}
	// The warnings a fault may cause, each a check the plan skipped.
	skipped := []string{"Karpenter installation not checked", "Karpenter CRDs not checked", "Cannot read the cluster's NodeOverlays",
		"Interruption queue not checked", "Controller permissions not checked"}
	throttled := acctest.FaultRates{Throttle: 1}
	cases := []struct {
		name string
		kube map[string]kubeFault
		two  bool // the chart's label lists two controllers (karpenter_controller unset)
		aws  map[string]acctest.FaultRates
		want []string // "<path>: <summary>: <detail part>", each found in one warning
	}{
		{name: "no faults"},
		{name: "API server 503 on every read", kube: map[string]kubeFault{"*": {status: http.StatusServiceUnavailable}}, want: []string{
			"karpenter_controller: Karpenter installation not checked: cannot read deployment default/" + controller,
			"kubernetes: Karpenter CRDs not checked: 503 Service Unavailable",
			"node_overlays: Cannot read the cluster's NodeOverlays: 503 Service Unavailable"}},
		{name: "API server does not answer", kube: map[string]kubeFault{"*": {hang: true}}, want: []string{
			"karpenter_controller: Karpenter installation not checked: cannot read deployment default/" + controller,
			"kubernetes: Karpenter CRDs not checked: an earlier request got no answer",
			"node_overlays: Cannot read the cluster's NodeOverlays: an earlier request got no answer"}},
		{name: "RBAC denies deployments", kube: map[string]kubeFault{"deployments": {status: http.StatusForbidden}}, want: []string{
			"karpenter_controller: Karpenter installation not checked: the token cannot read deployments (RBAC: get/list on deployments.apps)"}},
		{name: "RBAC denies service accounts", kube: map[string]kubeFault{"serviceaccounts": {status: http.StatusForbidden}}, want: []string{
			"karpenter_controller: Controller permissions not checked: cannot read service account default/" + controller}},
		{name: "RBAC denies CRDs", kube: map[string]kubeFault{"customresourcedefinitions": {status: http.StatusForbidden}}, want: []string{
			"kubernetes: Karpenter CRDs not checked: RBAC: get/list on customresourcedefinitions.apiextensions.k8s.io"}},
		{name: "RBAC denies NodeOverlays", kube: map[string]kubeFault{"nodeoverlays": {status: http.StatusForbidden}}, want: []string{
			"node_overlays: Cannot read the cluster's NodeOverlays: RBAC: get/list on nodeoverlays.karpenter.sh"}},
		{name: "two controllers", two: true, want: []string{
			"karpenter_controller: Karpenter installation not checked: 2 deployments carry app.kubernetes.io/name=karpenter " +
				"(karpenter/karpenter, kube-system/karpenter): set karpenter_controller"}},
		{name: "SQS throttled", aws: map[string]acctest.FaultRates{"GetQueueUrl": throttled, "GetQueueAttributes": throttled}, want: []string{
			"karpenter_controller: Interruption queue not checked: Throttling"}},
		{name: "EventBridge throttled", aws: map[string]acctest.FaultRates{"ListRuleNamesByTarget": throttled, "DescribeRule": throttled},
			want: []string{"karpenter_controller: Interruption queue not checked: Throttling"}},
		{name: "IAM read denied mid-plan", aws: map[string]acctest.FaultRates{"ListAttachedRolePolicies": {AccessDenied: 1}}, want: []string{
			"karpenter_controller: Controller permissions not checked: cannot read the policies of the controller's role " +
				"arn:aws:iam::000000000000:role/" + role}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kube := newKubeFaultProxy(t, api, tc.kube, tc.two)
			aws := acctest.NewFaultProxy(t, acctest.FaultConfig{Actions: tc.aws})
			start := time.Now()
			got := planFindings(t, config(kube, aws, !tc.two))
			took := time.Since(start)
			for _, want := range tc.want {
				path, rest, _ := strings.Cut(want, ": ")
				summary, detail, _ := strings.Cut(rest, ": ")
				if !slices.ContainsFunc(got, func(g string) bool {
					return strings.Contains(g, " "+path+": "+summary+": ") && strings.Contains(g, detail)
				}) {
					t.Errorf("no warning on %s %q containing %q; the warnings:\n%s", path, summary, detail, strings.Join(got, "\n"))
				}
			}
			for _, g := range got {
				for _, s := range skipped {
					if strings.Contains(g, ": "+s+": ") && !slices.ContainsFunc(tc.want, func(w string) bool { return strings.Contains(w, s) }) {
						t.Errorf("a check skipped that this fault does not touch: %s", g)
					}
				}
			}
			if tc.name == "API server does not answer" {
				// One timeout per provider process, not one per read: the reads after the first
				// never reach the server.
				if n := kube.asked("customresourcedefinitions") + kube.asked("nodeoverlays"); n > 0 {
					t.Errorf("after the first unanswered request the provider still asked the server %d times (took %v)", n, took)
				}
			}
		})
	}
}
