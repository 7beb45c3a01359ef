package acctest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithy "github.com/aws/smithy-go"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
)

// fleetUpstream is the shared EC2 fake served over HTTP: like LocalStack it launches new
// instances on every CreateFleet whatever the client token, and it records every action it
// receives. It holds the launch template lt-1 the requests name.
type fleetUpstream struct {
	*awsfake.EC2
	url string
}

// newFakeFleets starts the upstream; it answers every request after delay.
func newFakeFleets(t *testing.T, delay time.Duration) *fleetUpstream {
	f := &awsfake.EC2{
		LaunchTemplates: []ec2types.LaunchTemplate{{LaunchTemplateId: aws.String("lt-1"), LaunchTemplateName: aws.String("fleet"), DefaultVersionNumber: aws.Int64(1)}},
		LaunchTemplateVersions: []ec2types.LaunchTemplateVersion{{LaunchTemplateId: aws.String("lt-1"), LaunchTemplateName: aws.String("fleet"),
			VersionNumber: aws.Int64(1), LaunchTemplateData: &ec2types.ResponseLaunchTemplateData{}}},
		Hook: func(context.Context, string, any) (any, error) {
			time.Sleep(delay)
			return nil, nil
		},
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return &fleetUpstream{EC2: f, url: srv.URL}
}

// launches counts the CreateFleet calls answered with instances.
func (u *fleetUpstream) launches() int {
	n := 0
	for _, c := range u.Log() {
		if c.Op == "CreateFleet" && c.Err == nil {
			n++
		}
	}
	return n
}

func fleetInput(token string, count int32, tags ...string) *ec2.CreateFleetInput {
	in := &ec2.CreateFleetInput{
		Type: ec2types.FleetTypeInstant,
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateId: aws.String("lt-1"), Version: aws.String("$Default")},
			Overrides:                   []ec2types.FleetLaunchTemplateOverridesRequest{{InstanceType: ec2types.InstanceTypeT3Micro, SubnetId: aws.String("subnet-1")}},
		}},
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			TotalTargetCapacity: aws.Int32(count), DefaultTargetCapacityType: ec2types.DefaultTargetCapacityTypeOnDemand,
		},
	}
	if token != "" {
		in.ClientToken = aws.String(token)
	}
	var ts []ec2types.Tag
	for i := 0; i+1 < len(tags); i += 2 {
		ts = append(ts, ec2types.Tag{Key: aws.String(tags[i]), Value: aws.String(tags[i+1])})
	}
	if len(ts) > 0 {
		in.TagSpecifications = []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance, Tags: ts}}
	}
	return in
}

func fleetIDs(out *ec2.CreateFleetOutput) []string {
	var ids []string
	for _, i := range out.Instances {
		ids = append(ids, i.InstanceIds...)
	}
	return ids
}

// rawEC2 posts a query-protocol body to the proxy, signed-looking (the proxy reads the
// credential scope, nobody checks the signature), and returns the status and the body.
func rawEC2(t *testing.T, endpoint, accessKey, region, form string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, endpoint+"/", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+accessKey+"/20260101/"+region+"/ec2/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

const rawFleet = "Action=CreateFleet&ClientToken=tok-raw&LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId=lt-1&" +
	"TargetCapacitySpecification.TotalTargetCapacity=2&Type=instant&Version=2016-11-15"

func TestClientTokensBindAndReplay(t *testing.T) {
	up := newFakeFleets(t, 0)
	p := NewFaultProxy(t, FaultConfig{Target: up.url, ClientTokens: true})
	c := testEC2(p.URL(), 1)
	ctx := context.Background()

	first, err := c.CreateFleet(ctx, fleetInput("tok-1", 2, "team", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if up.launches() != 1 || len(fleetIDs(first)) != 2 {
		t.Fatalf("first request: %d launches, ids %v", up.launches(), fleetIDs(first))
	}
	again, err := c.CreateFleet(ctx, fleetInput("tok-1", 2, "team", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fleetIDs(again), fleetIDs(first)) || aws.ToString(again.FleetId) != aws.ToString(first.FleetId) {
		t.Fatalf("replay answered %s %v, want %s %v", aws.ToString(again.FleetId), fleetIDs(again), aws.ToString(first.FleetId), fleetIDs(first))
	}
	if n := up.launches(); n != 1 {
		t.Fatalf("the replay reached the upstream: %d launches", n)
	}
	// Another token launches anew.
	other, err := c.CreateFleet(ctx, fleetInput("tok-2", 2, "team", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(fleetIDs(other), fleetIDs(first)) || up.launches() != 2 {
		t.Fatalf("a new token was replayed: %v", fleetIDs(other))
	}
	st := p.Stats().Actions["CreateFleet"]
	if st.Requests != 3 || st.Forwarded != 2 || st.TokensBound != 2 || st.TokenReplays != 1 || st.TokenMismatches != 0 {
		t.Fatalf("stats %+v", st)
	}
	if tot := p.Stats().Total("ec2"); tot.TokenReplays != 1 || tot.TokensBound != 2 {
		t.Fatalf("totals %+v", tot)
	}
	if s := p.Stats().String(); !strings.Contains(s, "tokens bound 2 replayed 1 mismatched 0") {
		t.Fatalf("summary lacks the token counters:\n%s", s)
	}
}

func TestClientTokensReplayIsByteIdenticalAndScoped(t *testing.T) {
	up := newFakeFleets(t, 0)
	p := NewFaultProxy(t, FaultConfig{Target: up.url, ClientTokens: true})
	status1, body1 := rawEC2(t, p.URL(), "AKID1", "ap-southeast-1", rawFleet)
	status2, body2 := rawEC2(t, p.URL(), "AKID1", "ap-southeast-1", rawFleet)
	if status1 != 200 || status2 != 200 || body1 != body2 || up.launches() != 1 {
		t.Fatalf("replay differs or was forwarded (%d launches):\n%d %s\n%d %s", up.launches(), status1, body1, status2, body2)
	}
	// Parameter order does not matter: the fingerprint is canonical.
	reordered := "Version=2016-11-15&Type=instant&ClientToken=tok-raw&TargetCapacitySpecification.TotalTargetCapacity=2&Action=CreateFleet&" +
		"LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId=lt-1"
	if _, body := rawEC2(t, p.URL(), "AKID1", "ap-southeast-1", reordered); body != body1 || up.launches() != 1 {
		t.Fatalf("reordered parameters were not replayed: %s", body)
	}
	// Tokens are per account and region: the same token elsewhere is a new request.
	if _, body := rawEC2(t, p.URL(), "AKID1", "eu-west-1", rawFleet); body == body1 || up.launches() != 2 {
		t.Fatalf("a token of another region was replayed: %s", body)
	}
	if _, body := rawEC2(t, p.URL(), "AKID2", "ap-southeast-1", rawFleet); body == body1 || up.launches() != 3 {
		t.Fatalf("a token of another account was replayed: %s", body)
	}
}

func TestClientTokensMismatch(t *testing.T) {
	up := newFakeFleets(t, 0)
	p := NewFaultProxy(t, FaultConfig{Target: up.url, ClientTokens: true})
	c := testEC2(p.URL(), 3)
	ctx := context.Background()
	if _, err := c.CreateFleet(ctx, fleetInput("tok-1", 1, "team", "a")); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]*ec2.CreateFleetInput{
		"capacity": fleetInput("tok-1", 2, "team", "a"),
		"tags":     fleetInput("tok-1", 1, "team", "b"),
		"no tags":  fleetInput("tok-1", 1),
	} {
		_, err := c.CreateFleet(ctx, in)
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "IdempotentParameterMismatch" {
			t.Fatalf("%s: want IdempotentParameterMismatch, got %v", name, err)
		}
		var re interface{ HTTPStatusCode() int }
		if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusBadRequest {
			t.Fatalf("%s: want HTTP 400, got %v", name, err)
		}
		if retry.NewStandard().IsErrorRetryable(err) {
			t.Fatalf("%s: the SDK retries %v", name, err)
		}
	}
	st := p.Stats().Actions["CreateFleet"]
	if up.launches() != 1 || st.TokenMismatches != 3 || st.Retries != 0 || st.Forwarded != 1 {
		t.Fatalf("%d launches, stats %+v", up.launches(), st)
	}
}

func TestClientTokensLostAnswerRetryGetsTheOriginalInstances(t *testing.T) {
	for _, token := range []string{"tok-explicit", ""} { // "": the SDK fills in a token
		t.Run("token="+token, func(t *testing.T) {
			up := newFakeFleets(t, 0)
			p := NewFaultProxy(t, FaultConfig{Target: up.url, ClientTokens: true,
				Script: map[string][]Fault{"CreateFleet": {FaultResetAfterForward, FaultResetAfterForward}}})
			out, err := testEC2(p.URL(), 5).CreateFleet(context.Background(), fleetInput(token, 2))
			if err != nil {
				t.Fatal(err)
			}
			if len(up.Instances) != 2 {
				t.Fatalf("the upstream launched %d instances, want the first launch's 2", len(up.Instances))
			}
			if want := []string{aws.ToString(up.Instances[0].InstanceId), aws.ToString(up.Instances[1].InstanceId)}; !slices.Equal(fleetIDs(out), want) {
				t.Fatalf("ids %v, want the first launch's %v", fleetIDs(out), want)
			}
			// Attempt 1 launched and lost its answer, attempt 2 was replayed and lost, attempt
			// 3 was replayed and answered.
			st := p.Stats().Actions["CreateFleet"]
			if up.launches() != 1 || st.Requests != 3 || st.Retries != 2 || st.Forwarded != 1 || st.TokensBound != 1 || st.TokenReplays != 2 {
				t.Fatalf("%d launches, stats %+v", up.launches(), st)
			}
		})
	}
}

func TestClientTokensFaultsBeforeForwardingDoNotBind(t *testing.T) {
	up := newFakeFleets(t, 0)
	p := NewFaultProxy(t, FaultConfig{Target: up.url, ClientTokens: true,
		Script: map[string][]Fault{"CreateFleet": {FaultThrottle, FaultReset, FaultUnavailable}}})
	out, err := testEC2(p.URL(), 5).CreateFleet(context.Background(), fleetInput("tok-1", 1))
	if err != nil {
		t.Fatal(err)
	}
	st := p.Stats().Actions["CreateFleet"]
	if len(fleetIDs(out)) != 1 || up.launches() != 1 || st.Retries != 3 || st.TokensBound != 1 || st.TokenReplays != 0 {
		t.Fatalf("%d launches, stats %+v", up.launches(), st)
	}
}

func TestClientTokensFailedAnswerDoesNotBind(t *testing.T) {
	up := newFakeFleets(t, 0)
	up.FailNext = map[string][]error{"CreateFleet": {&smithy.GenericAPIError{Code: "Unavailable", Message: "down"}}} // HTTP 503
	p := NewFaultProxy(t, FaultConfig{Target: up.url, ClientTokens: true})
	c := testEC2(p.URL(), 1)
	ctx := context.Background()
	if _, err := c.CreateFleet(ctx, fleetInput("tok-1", 1)); err == nil {
		t.Fatal("the upstream's failure did not reach the client")
	}
	// The token is free: the next request with it is forwarded, even with other parameters.
	first, err := c.CreateFleet(ctx, fleetInput("tok-1", 2))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.CreateFleet(ctx, fleetInput("tok-1", 2))
	if err != nil {
		t.Fatal(err)
	}
	st := p.Stats().Actions["CreateFleet"]
	if !slices.Equal(fleetIDs(first), fleetIDs(again)) || up.Calls("CreateFleet") != 2 || st.TokensBound != 1 || st.TokenReplays != 1 {
		t.Fatalf("upstream saw %d, stats %+v", up.Calls("CreateFleet"), st)
	}
}

func TestClientTokensConcurrentRequestsLaunchOnce(t *testing.T) {
	up := newFakeFleets(t, 50*time.Millisecond)
	p := NewFaultProxy(t, FaultConfig{Target: up.url, ClientTokens: true})
	c := testEC2(p.URL(), 1)
	const n = 8
	ids := make([][]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := c.CreateFleet(context.Background(), fleetInput("tok-1", 1))
			errs[i] = err
			if err == nil {
				ids[i] = fleetIDs(out)
			}
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || !slices.Equal(ids[i], ids[0]) {
			t.Fatalf("request %d: %v %v, want %v", i, ids[i], errs[i], ids[0])
		}
	}
	if up.launches() != 1 || p.Stats().Actions["CreateFleet"].TokenReplays != n-1 {
		t.Fatalf("%d launches, stats %+v", up.launches(), p.Stats().Actions["CreateFleet"])
	}
}

func TestClientTokensOnlyWhereHonoured(t *testing.T) {
	up := newFakeFleets(t, 0)
	p := NewFaultProxy(t, FaultConfig{Target: up.url, ClientTokens: true})
	// No token: forwarded every time.
	noToken := "Action=CreateFleet&LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId=lt-1&" +
		"TargetCapacitySpecification.TotalTargetCapacity=1&Type=instant&Version=2016-11-15"
	for i := 0; i < 2; i++ {
		rawEC2(t, p.URL(), "AKID", "ap-southeast-1", noToken)
	}
	// Other actions keep LocalStack's behaviour, token or not.
	for i := 0; i < 2; i++ {
		rawEC2(t, p.URL(), "AKID", "ap-southeast-1", "Action=RunInstances&ClientToken=t&MinCount=1&MaxCount=1&Version=2016-11-15")
	}
	if up.Calls("CreateFleet") != 2 || up.Calls("RunInstances") != 2 || p.Stats().Total().TokensBound != 0 {
		t.Fatalf("upstream saw %d CreateFleet, %d RunInstances; stats %+v", up.Calls("CreateFleet"), up.Calls("RunInstances"), p.Stats().Total())
	}
}

func TestClientTokensOffForwardsEveryRequest(t *testing.T) {
	up := newFakeFleets(t, 0)
	p := NewFaultProxy(t, FaultConfig{Target: up.url})
	c := testEC2(p.URL(), 1)
	a, err := c.CreateFleet(context.Background(), fleetInput("tok-1", 1))
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.CreateFleet(context.Background(), fleetInput("tok-1", 2))
	if err != nil {
		t.Fatal(err)
	}
	st := p.Stats().Actions["CreateFleet"]
	if slices.Equal(fleetIDs(a), fleetIDs(b)) || up.launches() != 2 || st.Forwarded != 2 || st.TokensBound+st.TokenReplays+st.TokenMismatches != 0 {
		t.Fatalf("%d launches, stats %+v", up.launches(), st)
	}
}
