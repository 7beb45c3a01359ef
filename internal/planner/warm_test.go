package planner

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
)

// scopeRecorder is a listing that reports the scope of each template listing.
type scopeRecorder struct {
	fleet.Listing
	scopes chan map[string]string
}

func (r scopeRecorder) ListTemplates(ctx context.Context, scope, _ map[string]string) ([]fleet.LaunchTemplate, error) {
	time.Sleep(10 * time.Millisecond) // after the class's request has ended
	if ctx.Err() != nil {
		scope = map[string]string{"cancelled": ctx.Err().Error()}
	}
	r.scopes <- scope
	return nil, ctx.Err()
}

// A class's plan starts the cluster's shared template listing that its new pools read, in the
// scope they read it in, and outlives the class's request; without a cluster name there is no
// shared listing to start.
func TestClassWarmsThePoolListing(t *testing.T) {
	rec := scopeRecorder{scopes: make(chan map[string]string, 2)}
	ctx, cancel := context.WithCancel(context.Background())
	warmPoolListing(ctx, rec, "my-cluster")
	cancel() // the class's request is over; the listing goes on
	select {
	case got := <-rec.scopes:
		if want := fleet.ReadScope("my-cluster"); !maps.Equal(got, want) {
			t.Errorf("listed in scope %v, pools read %v", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no listing started")
	}
	warmPoolListing(context.Background(), rec, "")
	warmPoolListing(context.Background(), nil, "my-cluster")
	select {
	case got := <-rec.scopes:
		t.Errorf("listed %v without a cluster name", got)
	case <-time.After(200 * time.Millisecond):
	}
}

// A class whose rules pass warms its pools' catalog and prices, once; one the rules refuse
// starts nothing (no read before the rules pass).
func TestClassWarmsThePoolInputs(t *testing.T) {
	f := newFixture()
	if res := f.plan(ClassInput{Config: testConfig()}); len(res.Errors) != 0 {
		t.Fatalf("errors %s", dump(res.Errors))
	}
	if n := f.warmed.count("warm"); n != 1 {
		t.Errorf("warmed %d times, want 1", n)
	}
	f = newFixture()
	bad := testConfig()
	bad.AMIFamily = "NotAFamily"
	if res := f.plan(ClassInput{Config: bad}); len(res.Errors) == 0 {
		t.Fatal("an unknown AMI family planned")
	}
	if n := f.warmed.count("warm"); n != 0 {
		t.Errorf("warmed %d times for a refused class, want 0", n)
	}
}
