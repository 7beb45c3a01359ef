package acctest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
)

// fakeFront is a loopback endpoint in front of the emulator (Endpoint()) for what the emulator
// cannot answer: the EC2 actions it serves (and, with a Pricing fake, every Pricing API call)
// are answered by internal/awsfake's fakes over their HTTP fronts, with the fakes' semantics
// (filters, explicit ids and their errors, pages); every other request is forwarded to the
// emulator. The stubs seed the fakes through their own setters.
type fakeFront struct {
	server *httptest.Server
	proxy  *httputil.ReverseProxy
	served map[string]bool // the EC2 actions the EC2 fake answers

	// mu is held while a fake answers and while a stub changes a fake's objects.
	mu      sync.Mutex
	ec2     *awsfake.EC2
	pricing *awsfake.Pricing // nil: Pricing API calls are forwarded too
	calls   map[string]int
	// observe sees every EC2 request (its action and form) before it is served or forwarded,
	// with mu held.
	observe func(action string, form url.Values)
}

// pricingTargetPrefix prefixes the X-Amz-Target header of the Pricing API's operations
// (AWS JSON 1.1).
const pricingTargetPrefix = "AWSPriceListService."

// newFakeFront starts a front for the test that answers the EC2 actions served from a fresh
// EC2 fake.
func newFakeFront(t testing.TB, stub string, served ...string) *fakeFront {
	t.Helper()
	f, err := startFakeFront(stub, served...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.server.Close)
	return f
}

// startFakeFront starts a front outside a test (a command such as cmd/bench); its owner closes
// f.server.
func startFakeFront(stub string, served ...string) (*fakeFront, error) {
	proxy, err := emulatorProxy(stub)
	if err != nil {
		return nil, err
	}
	f := &fakeFront{proxy: proxy, served: map[string]bool{}, ec2: &awsfake.EC2{}, calls: map[string]int{}}
	for _, a := range served {
		f.served[a] = true
	}
	f.server = httptest.NewServer(f)
	return f, nil
}

// URL is the front's endpoint.
func (f *fakeFront) URL() string { return f.server.URL }

// Calls is how many requests of action the front received, answered or forwarded.
func (f *fakeFront) Calls(action string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[action]
}

// change runs fn on the fakes between requests.
func (f *fakeFront) change(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

func (f *fakeFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	restore := func() {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	if op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), pricingTargetPrefix); ok && f.pricing != nil {
		restore()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls[op]++
		f.pricing.ServeHTTP(w, r)
		return
	}
	form, _ := url.ParseQuery(string(body))
	action := form.Get("Action")
	f.mu.Lock()
	f.calls[action]++
	if f.observe != nil {
		f.observe(action, form)
	}
	if f.served[action] {
		restore()
		f.ec2.ServeHTTP(w, r)
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	forward(f.proxy, w, r, body)
}

// emulatorProxy is a reverse proxy to Endpoint(), which must be on a loopback address: a stub
// answers what the emulator cannot and forwards the rest there.
func emulatorProxy(stub string) (*httputil.ReverseProxy, error) {
	target, err := url.Parse(Endpoint())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stub, err)
	}
	if err := requireLoopback(target.Hostname()); err != nil {
		return nil, fmt.Errorf("%s: %w", stub, err)
	}
	return httputil.NewSingleHostReverseProxy(target), nil
}

// forward sends a request whose body the stub has read on through proxy, body restored.
func forward(proxy *httputil.ReverseProxy, w http.ResponseWriter, r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	proxy.ServeHTTP(w, r)
}
