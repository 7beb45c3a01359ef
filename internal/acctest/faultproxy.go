package acctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault is one kind of injected failure.
type Fault int

// The faults the proxy injects. FaultResetAfterForward is the nasty one: the call reaches
// LocalStack and takes effect, but the client never hears back, so its retry meets the result
// of its own first attempt (AlreadyExists after a create, NotFound after a delete).
const (
	FaultNone              Fault = iota
	FaultThrottle                // HTTP 400 RequestLimitExceeded (Throttling for non-EC2 services)
	FaultInternalError           // HTTP 500 InternalError
	FaultUnavailable             // HTTP 503 Unavailable
	FaultReset                   // connection reset before the request is forwarded
	FaultResetAfterForward       // request forwarded, then the connection is reset instead of answering
	FaultAccessDenied            // HTTP 403 AccessDenied: the caller's policy does not allow the action
	faultKinds
)

var faultNames = [...]string{"none", "throttle", "internal_error", "unavailable", "reset", "reset_after_forward", "access_denied"}

func (f Fault) String() string {
	if f >= 0 && int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// FaultRates are probabilities in [0, 1] per request. The failure rates are exclusive (their
// sum is the chance a request fails, at most 1); Latency is drawn independently and delays a
// request (failed or not) by FaultConfig.Latency.
type FaultRates struct {
	Throttle          float64
	InternalError     float64
	Unavailable       float64
	Reset             float64
	ResetAfterForward float64
	AccessDenied      float64
	Latency           float64
}

// FailureRate is the chance that a request fails.
func (r FaultRates) FailureRate() float64 {
	return r.Throttle + r.InternalError + r.Unavailable + r.Reset + r.ResetAfterForward + r.AccessDenied
}

// FaultConfig configures a FaultProxy.
type FaultConfig struct {
	// Target is the upstream endpoint; it must be on a loopback address. Default: Endpoint().
	Target string
	// Seed makes the fault sequence reproducible for a given request order.
	Seed uint64
	// Services limits faults to requests signed for these SigV4 service names ("ec2", "sts");
	// requests of other services are forwarded untouched (and still counted). Empty: all.
	Services []string
	// Default applies to every action without an entry in Actions.
	Default FaultRates
	// Actions overrides Default per API action ("CreateLaunchTemplate").
	Actions map[string]FaultRates
	// Script forces faults on the first requests of an action, in order, before the rates take
	// over (FaultNone lets a request through): deterministic coverage of a path that a random
	// draw might miss in a short run.
	Script map[string][]Fault
	// Latency is the delay a latency draw adds. Default 50ms.
	Latency time.Duration
	// ServiceLatency delays every request signed for a service ("ec2", "pricing") by its
	// duration, before any drawn fault or latency, while the proxy is enabled: an emulator on
	// loopback answers in a millisecond, AWS in tens (cmd/bench's plan at AWS-like latency).
	ServiceLatency map[string]time.Duration
	// ClientTokens makes the proxy honour EC2's ClientToken on CreateFleet, which LocalStack
	// ignores: a token is bound to the first successful answer for it; a later request with the
	// same token and the same parameters gets that answer again without reaching the upstream
	// (no new instances), one with other parameters gets IdempotentParameterMismatch. A lost
	// answer (FaultResetAfterForward) still binds the token, so the SDK's retry gets the
	// original instances, as on AWS. SetEnabled does not switch it off. See clienttoken.go.
	ClientTokens bool
}

// ActionStats counts what the proxy saw and did for one action.
type ActionStats struct {
	Service  string
	Requests int // every request, including retries
	// Retries are requests the SDK marked as a retry (amz-sdk-request attempt > 1).
	Retries   int
	Forwarded int // requests that reached the upstream
	Delayed   int
	// Busy is the time the proxy spent on these requests, from reading each request to its
	// answer (delays and the upstream's time included): their serial sum.
	Busy   time.Duration
	Faults [faultKinds]int // by Fault; Faults[FaultNone] stays 0
	// With FaultConfig.ClientTokens: client tokens bound to an answer, requests answered with
	// the stored answer of their token (not forwarded), and requests refused with
	// IdempotentParameterMismatch (not forwarded).
	TokensBound     int
	TokenReplays    int
	TokenMismatches int
}

// Injected is the number of requests this action failed on purpose.
func (a ActionStats) Injected() int {
	n := 0
	for _, v := range a.Faults {
		n += v
	}
	return n
}

// FaultStats is a snapshot of the proxy's counters, by action.
type FaultStats struct {
	Actions map[string]ActionStats
}

// Total sums the counters over every action of the given services (all when none are given).
func (s FaultStats) Total(services ...string) ActionStats {
	var t ActionStats
	for _, a := range s.Actions {
		if len(services) > 0 && !containsFold(services, a.Service) {
			continue
		}
		t.Requests += a.Requests
		t.Retries += a.Retries
		t.Forwarded += a.Forwarded
		t.Delayed += a.Delayed
		t.Busy += a.Busy
		t.TokensBound += a.TokensBound
		t.TokenReplays += a.TokenReplays
		t.TokenMismatches += a.TokenMismatches
		for i, v := range a.Faults {
			t.Faults[i] += v
		}
	}
	return t
}

// String is a one-line-per-action summary, for t.Log.
func (s FaultStats) String() string {
	names := make([]string, 0, len(s.Actions))
	for n := range s.Actions {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		a := s.Actions[n]
		fmt.Fprintf(&b, "%-4s %-34s requests %4d  retries %3d  faults %3d", a.Service, n, a.Requests, a.Retries, a.Injected())
		for k := FaultThrottle; k < faultKinds; k++ {
			if a.Faults[k] > 0 {
				fmt.Fprintf(&b, "  %s %d", k, a.Faults[k])
			}
		}
		if a.Delayed > 0 {
			fmt.Fprintf(&b, "  delayed %d", a.Delayed)
		}
		if a.TokensBound+a.TokenReplays+a.TokenMismatches > 0 {
			fmt.Fprintf(&b, "  tokens bound %d replayed %d mismatched %d", a.TokensBound, a.TokenReplays, a.TokenMismatches)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// FaultProxy is a loopback reverse proxy in front of LocalStack that fails AWS query-protocol
// calls (EC2, STS) on purpose, per action, with a seeded random source.
type FaultProxy struct {
	cfg      FaultConfig
	target   *url.URL
	listener net.Listener
	server   *http.Server
	client   *http.Client

	mu      sync.Mutex
	rng     *rand.Rand
	enabled bool
	stats   map[string]*ActionStats

	tokens *tokenStore // nil unless cfg.ClientTokens
}

// NewFaultProxy starts a proxy for the test and closes it when the test ends.
func NewFaultProxy(t testing.TB, cfg FaultConfig) *FaultProxy {
	t.Helper()
	p, err := StartFaultProxy(cfg)
	if err != nil {
		t.Fatalf("starting the fault proxy: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// StartFaultProxy starts a proxy on 127.0.0.1 with a free port.
func StartFaultProxy(cfg FaultConfig) (*FaultProxy, error) {
	if cfg.Target == "" {
		cfg.Target = Endpoint()
	}
	if cfg.Latency == 0 {
		cfg.Latency = 50 * time.Millisecond
	}
	target, err := url.Parse(cfg.Target)
	if err != nil || target.Scheme == "" || target.Host == "" {
		return nil, fmt.Errorf("fault proxy target %q is not a URL", cfg.Target)
	}
	if err := requireLoopback(target.Hostname()); err != nil {
		return nil, err
	}
	check := func(name string, r FaultRates) error {
		for _, v := range []float64{r.Throttle, r.InternalError, r.Unavailable, r.Reset, r.ResetAfterForward, r.AccessDenied, r.Latency} {
			if v < 0 || v > 1 {
				return fmt.Errorf("fault proxy: %s rates must be within [0, 1]: %+v", name, r)
			}
		}
		if r.FailureRate() > 1 {
			return fmt.Errorf("fault proxy: %s failure rates add up to more than 1: %+v", name, r)
		}
		return nil
	}
	if err := check("default", cfg.Default); err != nil {
		return nil, err
	}
	for a, r := range cfg.Actions {
		if err := check(a, r); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	p := &FaultProxy{
		cfg:      cfg,
		target:   target,
		listener: ln,
		client: &http.Client{
			Timeout:   2 * time.Minute,
			Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 32, IdleConnTimeout: 30 * time.Second},
		},
		rng:     rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		enabled: true,
		stats:   map[string]*ActionStats{},
	}
	if cfg.ClientTokens {
		p.tokens = &tokenStore{m: map[tokenKey]*tokenEntry{}}
	}
	p.server = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = p.server.Serve(ln) }()
	return p, nil
}

func requireLoopback(host string) error {
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil {
		ips, err := net.LookupIP(host)
		if err != nil || len(ips) == 0 {
			return fmt.Errorf("fault proxy target host %q does not resolve", host)
		}
		ip = ips[0]
	}
	if !ip.IsLoopback() {
		return fmt.Errorf("fault proxy target %s: %w: the proxy only fronts a local emulator", host, ErrNotLoopback)
	}
	return nil
}

// URL is the proxy's endpoint, for the provider's `endpoints`.
func (p *FaultProxy) URL() string { return "http://" + p.listener.Addr().String() }

// SetEnabled turns fault injection and the service latency on or off; requests are forwarded and
// counted either way.
func (p *FaultProxy) SetEnabled(on bool) {
	p.mu.Lock()
	p.enabled = on
	p.mu.Unlock()
}

// Stats returns a snapshot of the counters.
func (p *FaultProxy) Stats() FaultStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := FaultStats{Actions: make(map[string]ActionStats, len(p.stats))}
	for k, v := range p.stats {
		out.Actions[k] = *v
	}
	return out
}

// Close stops the proxy.
func (p *FaultProxy) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.server.Shutdown(ctx)
	p.client.CloseIdleConnections()
}

// serviceOf reads the SigV4 credential scope: Credential=AKID/date/region/service/aws4_request.
func serviceOf(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(cred, "/")
	if len(parts) < 5 {
		return ""
	}
	return strings.ToLower(parts[len(parts)-2])
}

// attemptOf reads the SDK's retry header: amz-sdk-request: attempt=2; max=25.
func attemptOf(r *http.Request) int {
	for _, part := range strings.Split(r.Header.Get("Amz-Sdk-Request"), ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "attempt="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// actionOf is the query-protocol Action of a form body (or of the URL query).
func actionOf(r *http.Request, body []byte) string {
	if a := r.URL.Query().Get("Action"); a != "" {
		return a
	}
	// AWS JSON protocols (Pricing): X-Amz-Target: AWSPriceListService.GetProducts.
	if t := r.Header.Get("X-Amz-Target"); t != "" {
		return t[strings.LastIndex(t, ".")+1:]
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if v, err := url.ParseQuery(string(body)); err == nil {
			return v.Get("Action")
		}
	}
	return ""
}

// decide counts the request and draws its fault and latency.
func (p *FaultProxy) decide(service, action string, attempt int) (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := action
	if key == "" {
		key = "(no action)"
	}
	st := p.stats[key]
	if st == nil {
		st = &ActionStats{Service: service}
		p.stats[key] = st
	}
	n := st.Requests
	st.Requests++
	if attempt > 1 {
		st.Retries++
	}
	if !p.enabled || action == "" || (len(p.cfg.Services) > 0 && !containsFold(p.cfg.Services, service)) {
		return FaultNone, false
	}
	rates, ok := p.cfg.Actions[action]
	if !ok {
		rates = p.cfg.Default
	}
	// Draw both numbers for every request, so the sequence does not depend on the script.
	x, y := p.rng.Float64(), p.rng.Float64()
	fault := FaultNone
	if script := p.cfg.Script[action]; n < len(script) {
		fault = script[n]
	} else {
		for _, c := range []struct {
			f    Fault
			rate float64
		}{
			{FaultThrottle, rates.Throttle}, {FaultInternalError, rates.InternalError}, {FaultUnavailable, rates.Unavailable},
			{FaultReset, rates.Reset}, {FaultResetAfterForward, rates.ResetAfterForward}, {FaultAccessDenied, rates.AccessDenied},
		} {
			if x < c.rate {
				fault = c.f
				break
			}
			x -= c.rate
		}
	}
	delay := y < rates.Latency
	if fault != FaultNone {
		st.Faults[fault]++
	}
	if delay {
		st.Delayed++
	}
	return fault, delay
}

// serviceLatency is the delay of every request of service, none while the proxy is disabled.
func (p *FaultProxy) serviceLatency(service string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.enabled {
		return 0
	}
	return p.cfg.ServiceLatency[service]
}

// busy adds the time since start to action's Busy.
func (p *FaultProxy) busy(action string, start time.Time) {
	if action == "" {
		action = "(no action)"
	}
	p.mu.Lock()
	p.stats[action].Busy += time.Since(start)
	p.mu.Unlock()
}

func (p *FaultProxy) forwarded(action string) {
	if action == "" {
		action = "(no action)"
	}
	p.mu.Lock()
	p.stats[action].Forwarded++
	p.mu.Unlock()
}

// ServeHTTP implements the proxy.
func (p *FaultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "fault proxy: reading the request: "+err.Error(), http.StatusBadGateway)
		return
	}
	service, action := serviceOf(r), actionOf(r, body)
	fault, delay := p.decide(service, action, attemptOf(r))
	defer p.busy(action, time.Now())
	if d := p.serviceLatency(service); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if delay {
		select {
		case <-time.After(p.cfg.Latency):
		case <-r.Context().Done():
			return
		}
	}
	switch fault {
	case FaultThrottle:
		code, msg := "RequestLimitExceeded", "Request limit exceeded."
		if service != "ec2" {
			code, msg = "Throttling", "Rate exceeded"
		}
		writeAWSError(w, service, http.StatusBadRequest, code, msg)
		return
	case FaultInternalError:
		writeAWSError(w, service, http.StatusInternalServerError, "InternalError", "An internal error has occurred.")
		return
	case FaultUnavailable:
		writeAWSError(w, service, http.StatusServiceUnavailable, "Unavailable", "The server is overloaded or is not accepting requests.")
		return
	case FaultAccessDenied:
		code := "AccessDenied"
		if service != "ec2" && service != "iam" && service != "sts" { // JSON protocols
			code = "AccessDeniedException"
		}
		writeAWSError(w, service, http.StatusForbidden, code, "User is not authorized to perform this action (injected by the fault proxy)")
		return
	case FaultReset:
		resetConn(w)
		return
	}
	// A request with a bound client token is answered here, without reaching the upstream.
	done, release := p.honourToken(w, r, service, action, body, fault)
	if done {
		return
	}
	defer release(0, nil, nil) // frees a held token when the upstream did not answer

	resp, err := p.forward(r, body)
	if err != nil {
		http.Error(w, "fault proxy: upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(resp.Body)
	p.forwarded(action)
	if err == nil {
		// Bind the token before the answer is written or lost: the SDK's retry after a lost
		// answer must meet this answer (the original instances), not launch again.
		release(resp.StatusCode, resp.Header, respBody)
	}
	if fault == FaultResetAfterForward || err != nil {
		resetConn(w)
		return
	}
	writeAnswer(w, resp.StatusCode, resp.Header, respBody)
}

// writeAnswer writes an upstream answer, without its hop-by-hop headers.
func writeAnswer(w http.ResponseWriter, status int, header http.Header, body []byte) {
	for k, vs := range header {
		if strings.EqualFold(k, "Content-Length") || strings.EqualFold(k, "Connection") || strings.EqualFold(k, "Transfer-Encoding") {
			continue
		}
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (p *FaultProxy) forward(r *http.Request, body []byte) (*http.Response, error) {
	u := *p.target
	u.Path = singleJoin(p.target.Path, r.URL.Path)
	u.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		if strings.EqualFold(k, "Connection") || strings.EqualFold(k, "Proxy-Connection") || strings.EqualFold(k, "Keep-Alive") {
			continue
		}
		out.Header[k] = append([]string(nil), vs...)
	}
	out.Host = r.Host // the request was signed for the proxy's host; LocalStack does not check signatures
	out.ContentLength = int64(len(body))
	return p.client.Do(out)
}

func singleJoin(a, b string) string {
	switch {
	case a == "" || a == "/":
		if b == "" {
			return "/"
		}
		return b
	case b == "" || b == "/":
		return a
	}
	return strings.TrimSuffix(a, "/") + "/" + strings.TrimPrefix(b, "/")
}

// resetConn aborts the connection with a TCP RST (SO_LINGER 0), so the client reads
// "connection reset by peer" rather than a clean EOF.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// writeAWSError writes the error document of the service's protocol: EC2's <Response><Errors>
// form, or the awsQuery <ErrorResponse> form of STS and others.
func writeAWSError(w http.ResponseWriter, service string, status int, code, msg string) {
	if jsonProtocol[service] { // the services whose SDK clients speak an AWS JSON protocol
		body := fmt.Sprintf(`{"__type":%q,"message":%q}`, code, msg)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.Header().Set("X-Amzn-Errortype", code)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("X-Fault-Proxy", code)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
		return
	}
	var body string
	if service == "ec2" || service == "" {
		body = fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
			`<Response><Errors><Error><Code>%s</Code><Message>%s</Message></Error></Errors><RequestID>x</RequestID></Response>`, code, msg)
	} else {
		typ := "Receiver"
		if status < 500 {
			typ = "Sender"
		}
		body = fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
			`<ErrorResponse><Error><Type>%s</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>x</RequestId></ErrorResponse>`, typ, code, msg)
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("X-Fault-Proxy", code)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// jsonProtocol are the SigV4 service names whose clients use an AWS JSON protocol (errors as
// {"__type": …}); EC2, IAM and STS use the query protocol (errors in XML).
var jsonProtocol = map[string]bool{"sqs": true, "events": true, "pricing": true, "eks": true, "ssm": true}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// ErrNotLoopback is returned for a non-loopback target.
var ErrNotLoopback = errors.New("not a loopback address")
