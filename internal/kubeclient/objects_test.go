package kubeclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestObject: an object is read whole; a name the server does not have is ErrNotFound, a
// resource it does not serve ErrNotInstalled, a forbidden read names the RBAC rule.
func TestObject(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/apis/karpenter.sh/v1/nodepools/general":
			_, _ = w.Write([]byte(`{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"general"},"spec":{"weight":10}}`))
		case "/apis/karpenter.sh/v1/nodepools/gone":
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","reason":"NotFound","message":"nodepools.karpenter.sh \"gone\" not found","details":{"name":"gone"}}`))
		case "/apis/karpenter.k8s.aws/v1/ec2nodeclasses/secret", "/apis/eks.amazonaws.com/v1/nodeclasses/secret":
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"kind":"Status","message":"forbidden"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","reason":"NotFound","message":"the server could not find the requested resource"}`))
		}
	}))
	defer srv.Close()
	c, ctx := newClient(t, srv), context.Background()
	obj, err := c.Object(ctx, "karpenter.sh/v1", "nodepools", "general")
	if err != nil || obj["spec"].(map[string]any)["weight"] != float64(10) {
		t.Errorf("Object(general) = %v, %v", obj, err)
	}
	if _, err := c.Object(ctx, "karpenter.sh/v1", "nodepools", "gone"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `no nodepools named "gone"`) {
		t.Errorf("Object(gone) = %v", err)
	}
	if _, err := c.Object(ctx, "karpenter.sh/v1alpha5", "provisioners", "x"); !errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrNotFound) {
		t.Errorf("Object(provisioners) = %v", err)
	}
	if _, err := c.Object(ctx, "karpenter.k8s.aws/v1", "ec2nodeclasses", "secret"); err == nil || !strings.Contains(err.Error(), "get/list on ec2nodeclasses.karpenter.k8s.aws") {
		t.Errorf("Object(secret) = %v", err)
	}
	if _, err := c.Object(ctx, "eks.amazonaws.com/v1", "nodeclasses", "secret"); err == nil || !strings.Contains(err.Error(), "get/list on nodeclasses.eks.amazonaws.com") {
		t.Errorf("Object(Auto Mode secret) = %v", err)
	}
}

// TestObjects: a list is read page by page with the label selector, its items keep (or get) their
// apiVersion and kind, and a resource the server does not serve has none.
func TestObjects(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/karpenter.sh/v1/nodepools" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if r.URL.Query().Get("labelSelector") != "team=web" {
			t.Errorf("query %v", r.URL.Query())
		}
		if r.URL.Query().Get("continue") == "" {
			_, _ = w.Write([]byte(`{"kind":"NodePoolList","metadata":{"continue":"c2"},"items":[{"metadata":{"name":"a"}}]}`))
			return
		}
		_, _ = w.Write([]byte(`{"kind":"NodePoolList","metadata":{},"items":[{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"b"}}]}`))
	}))
	defer srv.Close()
	c, ctx := newClient(t, srv), context.Background()
	got, err := c.Objects(ctx, "karpenter.sh/v1", "nodepools", "team=web")
	if err != nil || len(got) != 2 || got[0]["kind"] != "NodePool" || got[0]["apiVersion"] != "karpenter.sh/v1" ||
		got[1]["metadata"].(map[string]any)["name"] != "b" {
		t.Errorf("Objects = %v, %v", got, err)
	}
	if got, err := c.Objects(ctx, "karpenter.k8s.aws/v1", "ec2nodeclasses", "team=web"); err != nil || got != nil {
		t.Errorf("Objects(unserved) = %v, %v", got, err)
	}
}
