package acctest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithy "github.com/aws/smithy-go"
)

// fakeUpstream answers DescribeRegions (EC2) and GetCallerIdentity (STS) and counts what it
// received by action.
func fakeUpstream(t *testing.T) (*httptest.Server, *upstreamCounts) {
	counts := &upstreamCounts{m: map[string]*atomic.Int64{"DescribeRegions": {}, "GetCallerIdentity": {}, "CreateTags": {}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		v, _ := url.ParseQuery(string(b))
		action := v.Get("Action")
		if c, ok := counts.m[action]; ok {
			c.Add(1)
		}
		w.Header().Set("Content-Type", "text/xml")
		switch action {
		case "DescribeRegions":
			_, _ = io.WriteString(w, `<DescribeRegionsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId>`+
				`<regionInfo><item><regionName>ap-southeast-1</regionName><regionEndpoint>ec2.ap-southeast-1.amazonaws.com</regionEndpoint></item></regionInfo></DescribeRegionsResponse>`)
		case "CreateTags":
			_, _ = io.WriteString(w, `<CreateTagsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId><return>true</return></CreateTagsResponse>`)
		case "GetCallerIdentity":
			_, _ = io.WriteString(w, `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>`+
				`<Arn>arn:aws:iam::000000000000:root</Arn><UserId>AKIA</UserId><Account>000000000000</Account></GetCallerIdentityResult>`+
				`<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></GetCallerIdentityResponse>`)
		default:
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `<Response><Errors><Error><Code>InvalidAction</Code><Message>`+action+`</Message></Error></Errors><RequestID>r</RequestID></Response>`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, counts
}

type upstreamCounts struct{ m map[string]*atomic.Int64 }

func (c *upstreamCounts) get(a string) int64 { return c.m[a].Load() }

func testEC2(endpoint string, attempts int) *ec2.Client {
	return ec2.New(ec2.Options{
		Region: "ap-southeast-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.RateLimiter = ratelimit.None
			o.MaxBackoff = 5 * time.Millisecond
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
		}),
	})
}

func TestFaultProxyForwardsAndCounts(t *testing.T) {
	up, counts := fakeUpstream(t)
	p := NewFaultProxy(t, FaultConfig{Target: up.URL})
	c := testEC2(p.URL(), 1)
	for i := 0; i < 3; i++ {
		out, err := c.DescribeRegions(context.Background(), &ec2.DescribeRegionsInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Regions) != 1 || aws.ToString(out.Regions[0].RegionName) != "ap-southeast-1" {
			t.Fatalf("response not forwarded intact: %+v", out.Regions)
		}
	}
	st := p.Stats().Actions["DescribeRegions"]
	if st.Requests != 3 || st.Forwarded != 3 || st.Injected() != 0 || st.Retries != 0 || st.Service != "ec2" {
		t.Fatalf("stats %+v", st)
	}
	if counts.get("DescribeRegions") != 3 {
		t.Fatalf("upstream saw %d", counts.get("DescribeRegions"))
	}
}

func TestFaultProxyErrorsAreTheSDKsRetryableErrors(t *testing.T) {
	up, counts := fakeUpstream(t)
	for _, tc := range []struct {
		rates  FaultRates
		status int
		code   string
	}{
		{FaultRates{Throttle: 1}, 400, "RequestLimitExceeded"},
		{FaultRates{InternalError: 1}, 500, "InternalError"},
		{FaultRates{Unavailable: 1}, 503, "Unavailable"},
	} {
		p := NewFaultProxy(t, FaultConfig{Target: up.URL, Default: tc.rates})
		_, err := testEC2(p.URL(), 1).DescribeRegions(context.Background(), &ec2.DescribeRegionsInput{})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != tc.code {
			t.Fatalf("%s: want API error %s, got %v", tc.code, tc.code, err)
		}
		var re interface{ HTTPStatusCode() int }
		if !errors.As(err, &re) || re.HTTPStatusCode() != tc.status {
			t.Fatalf("%s: want HTTP %d, got %v", tc.code, tc.status, err)
		}
		if !retry.NewStandard().IsErrorRetryable(err) {
			t.Fatalf("%s: the SDK does not retry %v", tc.code, err)
		}
	}
	if n := counts.get("DescribeRegions"); n != 0 {
		t.Fatalf("failed requests reached the upstream %d times", n)
	}
}

func TestFaultProxyResets(t *testing.T) {
	up, counts := fakeUpstream(t)
	p := NewFaultProxy(t, FaultConfig{Target: up.URL, Script: map[string][]Fault{"CreateTags": {FaultReset, FaultResetAfterForward}}})
	c := testEC2(p.URL(), 1)
	in := &ec2.CreateTagsInput{Resources: []string{"subnet-1"}, Tags: []ec2types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}
	for i, want := range []int64{0, 1} {
		_, err := c.CreateTags(context.Background(), in)
		if err == nil || !strings.Contains(err.Error(), "connection reset") {
			t.Fatalf("call %d: want a connection reset, got %v", i, err)
		}
		if !retry.NewStandard().IsErrorRetryable(err) {
			t.Fatalf("call %d: the SDK does not retry %v", i, err)
		}
		if got := counts.get("CreateTags"); got != want {
			t.Fatalf("call %d: upstream saw %d CreateTags, want %d", i, got, want)
		}
	}
	// The script is used up: the third call goes through.
	if _, err := c.CreateTags(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	st := p.Stats().Actions["CreateTags"]
	if st.Faults[FaultReset] != 1 || st.Faults[FaultResetAfterForward] != 1 || st.Forwarded != 2 || st.Requests != 3 {
		t.Fatalf("stats %+v", st)
	}
}

func TestFaultProxyRetriesConvergeAndAreCounted(t *testing.T) {
	up, _ := fakeUpstream(t)
	p := NewFaultProxy(t, FaultConfig{Target: up.URL, Seed: 7,
		Default: FaultRates{Throttle: 0.2, InternalError: 0.1, Unavailable: 0.1, Reset: 0.05, Latency: 0.1}, Latency: time.Millisecond})
	c := testEC2(p.URL(), 30)
	for i := 0; i < 100; i++ {
		if _, err := c.DescribeRegions(context.Background(), &ec2.DescribeRegionsInput{}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	st := p.Stats().Total()
	if st.Injected() == 0 || st.Retries != st.Injected() || st.Requests != 100+st.Retries || st.Delayed == 0 {
		t.Fatalf("every injected fault should cost exactly one retry: %+v", st)
	}
	if rate := float64(st.Injected()) / float64(st.Requests); rate < 0.3 || rate > 0.6 {
		t.Fatalf("fault rate %.2f far from the configured 0.45", rate)
	}
	t.Logf("\n%s", p.Stats())
}

func TestFaultProxySeededSequenceIsReproducible(t *testing.T) {
	up, _ := fakeUpstream(t)
	run := func() [faultKinds]int {
		p := NewFaultProxy(t, FaultConfig{Target: up.URL, Seed: 42, Default: FaultRates{Throttle: 0.3, Unavailable: 0.2}})
		c := testEC2(p.URL(), 1)
		for i := 0; i < 50; i++ {
			_, _ = c.DescribeRegions(context.Background(), &ec2.DescribeRegionsInput{})
		}
		return p.Stats().Actions["DescribeRegions"].Faults
	}
	if a, b := run(), run(); a != b {
		t.Fatalf("same seed, same requests, different faults: %v vs %v", a, b)
	}
}

func TestFaultProxyServicesAndActions(t *testing.T) {
	up, _ := fakeUpstream(t)
	p := NewFaultProxy(t, FaultConfig{Target: up.URL, Services: []string{"ec2"}, Default: FaultRates{Throttle: 1},
		Actions: map[string]FaultRates{"CreateTags": {}}})
	// STS is not in Services: untouched, but counted.
	s := sts.New(sts.Options{Region: "ap-southeast-1", BaseEndpoint: aws.String(p.URL()),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""), Retryer: aws.NopRetryer{}})
	if _, err := s.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatalf("sts: %v", err)
	}
	c := testEC2(p.URL(), 1)
	if _, err := c.CreateTags(context.Background(), &ec2.CreateTagsInput{Resources: []string{"x"}, Tags: []ec2types.Tag{{Key: aws.String("k")}}}); err != nil {
		t.Fatalf("per-action override: %v", err)
	}
	if _, err := c.DescribeRegions(context.Background(), &ec2.DescribeRegionsInput{}); err == nil {
		t.Fatal("default rate 1 did not fail DescribeRegions")
	}
	st := p.Stats()
	if g := st.Actions["GetCallerIdentity"]; g.Service != "sts" || g.Requests != 1 || g.Injected() != 0 {
		t.Fatalf("sts stats %+v", g)
	}
	if st.Total("sts").Requests != 1 || st.Total("ec2").Requests != 2 || st.Total("ec2").Injected() != 1 {
		t.Fatalf("totals %+v / %+v", st.Total("sts"), st.Total("ec2"))
	}
	p.SetEnabled(false)
	if _, err := c.DescribeRegions(context.Background(), &ec2.DescribeRegionsInput{}); err != nil {
		t.Fatalf("disabled proxy still fails: %v", err)
	}
}

func TestFaultProxyRefusesNonLoopbackTargets(t *testing.T) {
	for _, target := range []string{"https://ec2.ap-southeast-1.amazonaws.com", "http://10.1.2.3:4566", "not a url"} {
		if p, err := StartFaultProxy(FaultConfig{Target: target}); err == nil {
			p.Close()
			t.Fatalf("target %q accepted", target)
		}
	}
	if _, err := StartFaultProxy(FaultConfig{Target: "http://127.0.0.1:1", Default: FaultRates{Throttle: 0.7, Reset: 0.5}}); err == nil {
		t.Fatal("failure rates above 1 accepted")
	}
}

func TestFaultProxyServiceLatencyDelaysOnlyItsService(t *testing.T) {
	up, _ := fakeUpstream(t)
	const d = 80 * time.Millisecond
	p := NewFaultProxy(t, FaultConfig{Target: up.URL, ServiceLatency: map[string]time.Duration{"ec2": d}})
	c := testEC2(p.URL(), 1)
	start := time.Now()
	for range 2 {
		if _, err := c.DescribeRegions(context.Background(), &ec2.DescribeRegionsInput{}); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 2*d {
		t.Fatalf("two EC2 calls took %v, under twice the service latency %v", took, d)
	}
	s := sts.New(sts.Options{Region: "ap-southeast-1", BaseEndpoint: aws.String(p.URL()),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""), Retryer: aws.NopRetryer{}})
	if _, err := s.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	if b := st.Actions["DescribeRegions"].Busy; b < 2*d {
		t.Fatalf("DescribeRegions busy %v, want at least %v (two delayed requests)", b, 2*d)
	}
	if b := st.Actions["GetCallerIdentity"].Busy; b <= 0 || b >= d {
		t.Fatalf("GetCallerIdentity busy %v: STS has no service latency, so it should be under %v and counted", b, d)
	}
	if tot := st.Total().Busy; tot != st.Actions["DescribeRegions"].Busy+st.Actions["GetCallerIdentity"].Busy {
		t.Fatalf("total busy %v is not the sum of the actions'", tot)
	}
	p.SetEnabled(false)
	start = time.Now()
	if _, err := c.DescribeRegions(context.Background(), &ec2.DescribeRegionsInput{}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took >= d {
		t.Fatalf("a disabled proxy still delays EC2: %v", took)
	}
}
