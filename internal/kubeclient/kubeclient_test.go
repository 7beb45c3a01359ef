package kubeclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testToken = "test-token-abc"

// caPEM is the PEM of the test server's certificate, which the client must trust.
func caPEM(srv *httptest.Server) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

func newClient(t *testing.T, srv *httptest.Server) *Client {
	t.Helper()
	c, err := New(Config{Host: srv.URL, CACertificatePEM: caPEM(srv), Token: testToken})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

const page1 = `{
  "apiVersion": "karpenter.sh/v1", "kind": "NodeClaimList",
  "metadata": {"continue": "tok-2"},
  "items": [
    {"metadata": {"name": "general-zz9k", "labels": {"karpenter.sh/nodepool": "general", "team": "a"},
       "annotations": {"karpenter.sh/nodepool-hash": "111", "karpenter.k8s.aws/ec2nodeclass-hash": "222"},
       "deletionTimestamp": "2025-01-02T03:04:05Z"},
     "status": {"imageID": "ami-0aaa", "providerID": "aws:///ap-southeast-1a/i-0123456789abcdef0", "nodeName": "ip-10-0-1-2.ec2.internal"}},
    {"metadata": {"name": "general-abcd", "labels": {"karpenter.sh/nodepool": "general"}},
     "status": {}}
  ]
}`

const page2 = `{
  "metadata": {},
  "items": [
    {"metadata": {"name": "general-mmmm", "labels": {"karpenter.sh/nodepool": "general"},
       "annotations": {"karpenter.sh/nodepool-hash": "333"}},
     "status": {"imageID": "ami-0bbb", "providerID": "aws:///ap-southeast-1b/i-0fedcba9876543210", "nodeName": "node-b"}}
  ]
}`

func TestNodeClaimsPaginates(t *testing.T) {
	var requests []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.URL.RequestURI())
		if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
			t.Errorf("Authorization = %q", got)
		}
		if r.Method != http.MethodGet || r.URL.Path != "/apis/karpenter.sh/v1/nodeclaims" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		if !strings.Contains(r.URL.RawQuery, "labelSelector=karpenter.sh%2Fnodepool%3Dgeneral") {
			t.Errorf("raw query %q lacks the encoded label selector", r.URL.RawQuery)
		}
		q := r.URL.Query()
		if q.Get("labelSelector") != "karpenter.sh/nodepool=general" || q.Get("limit") != "500" {
			t.Errorf("query %v", q)
		}
		switch q.Get("continue") {
		case "":
			fmt.Fprint(w, page1)
		case "tok-2":
			fmt.Fprint(w, page2)
		default:
			t.Errorf("continue = %q", q.Get("continue"))
			http.Error(w, "bad continue", http.StatusGone)
		}
	}))
	defer srv.Close()

	got, err := newClient(t, srv).NodeClaims(context.Background(), "general")
	if err != nil {
		t.Fatalf("NodeClaims: %v", err)
	}
	if len(requests) != 2 {
		t.Errorf("requests = %q, want two pages", requests)
	}
	want := []NodeClaim{
		{
			Name: "general-abcd", NodePool: "general",
			Labels: map[string]string{"karpenter.sh/nodepool": "general"},
		},
		{
			Name: "general-mmmm", NodePool: "general",
			Labels:       map[string]string{"karpenter.sh/nodepool": "general"},
			NodePoolHash: "333", ImageID: "ami-0bbb",
			ProviderID: "aws:///ap-southeast-1b/i-0fedcba9876543210", InstanceID: "i-0fedcba9876543210",
			NodeName: "node-b",
		},
		{
			Name: "general-zz9k", NodePool: "general",
			Labels:       map[string]string{"karpenter.sh/nodepool": "general", "team": "a"},
			NodePoolHash: "111", NodeClassHash: "222", ImageID: "ami-0aaa",
			ProviderID: "aws:///ap-southeast-1a/i-0123456789abcdef0", InstanceID: "i-0123456789abcdef0",
			NodeName: "ip-10-0-1-2.ec2.internal", Deleting: true,
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NodeClaims =\n%+v\nwant\n%+v", got, want)
	}
}

func TestNodeClaimsNoToken(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := r.Header["Authorization"]; ok {
			t.Errorf("Authorization sent without a token: %q", h)
		}
		fmt.Fprint(w, `{"items": []}`)
	}))
	defer srv.Close()
	c, err := New(Config{Host: srv.URL, CACertificatePEM: caPEM(srv)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.NodeClaims(context.Background(), "general")
	if err != nil || len(got) != 0 {
		t.Errorf("NodeClaims = %v, %v; want none, nil", got, err)
	}
}

func TestInstanceID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"aws:///ap-southeast-1a/i-0123456789abcdef0", "i-0123456789abcdef0"},
		{"aws:///us-east-1b/i-abc", "i-abc"},
		{"", ""},
		{"aws:///ap-southeast-1a/", ""},
		{"aws:///ap-southeast-1a/i-", ""},
		{"aws:///us-east-1a/fargate-ip-10-0-1-2.ec2.internal", ""},
		{"kind://docker/kind/kind-worker", ""},
		{"i-0123456789abcdef0", ""},
	} {
		if got := InstanceID(tc.in); got != tc.want {
			t.Errorf("InstanceID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNodeClaimsErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		want     error
		contains []string
	}{
		{
			name: "forbidden", status: http.StatusForbidden,
			body: `{"kind":"Status","message":"nodeclaims.karpenter.sh is forbidden: User \"x\" cannot list resource"}`,
			want: ErrForbidden, contains: []string{"cannot list nodeclaims", "get/list on nodeclaims.karpenter.sh", "User \"x\" cannot list"},
		},
		{
			name: "unauthorized", status: http.StatusUnauthorized, body: `{"kind":"Status","message":"Unauthorized"}`,
			want: ErrForbidden, contains: []string{"cannot list nodeclaims", "401"},
		},
		{
			name: "not installed", status: http.StatusNotFound, body: `404 page not found`,
			want: ErrNotInstalled, contains: []string{"NodeClaim CRD", "not installed", "404"},
		},
		{
			name: "server error", status: http.StatusInternalServerError, body: `{"message":"etcd timeout"}`,
			contains: []string{"500", "etcd timeout"},
		},
		{
			name: "not json", status: http.StatusOK, body: `<html>proxy login</html>`,
			contains: []string{"decoding"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			got, err := newClient(t, srv).NodeClaims(context.Background(), "general")
			if err == nil {
				t.Fatalf("NodeClaims = %v, want an error", got)
			}
			for _, sentinel := range []error{ErrForbidden, ErrNotInstalled, ErrUnreachable} {
				if is := errors.Is(err, sentinel); is != (sentinel == tc.want) {
					t.Errorf("errors.Is(%v, %v) = %v", err, sentinel, is)
				}
			}
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestNewBadCA(t *testing.T) {
	_, err := New(Config{Host: "https://example.invalid", CACertificatePEM: "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"})
	if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "cluster_ca_certificate") {
		t.Errorf("New with a bad PEM: err = %v, want an ErrConfig naming cluster_ca_certificate", err)
	}
	if _, err := New(Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("New with no host: err = %v, want ErrConfig", err)
	}
}

func TestNodeClaimsWrongCA(t *testing.T) {
	called := false
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		called = true
		fmt.Fprint(w, `{"items": []}`)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the rejected handshake is expected
	srv.StartTLS()
	defer srv.Close()
	// Every httptest server presents the same certificate, so the wrong CA is a fresh one.
	c, err := New(Config{Host: srv.URL, CACertificatePEM: otherCAPEM(t), Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.NodeClaims(context.Background(), "general")
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), srv.Listener.Addr().String()) || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("error %q should name the host and the certificate failure", err)
	}
	if called {
		t.Error("the handler ran although the server certificate is not trusted")
	}

	// The same server is reachable with its own CA, so the failure above is the CA's.
	if _, err := newClient(t, srv).NodeClaims(context.Background(), "general"); err != nil {
		t.Errorf("with the right CA: %v", err)
	}
}

func TestNodeClaimsUnreachable(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	c := newClient(t, srv)
	host := srv.Listener.Addr().String()
	srv.Close()
	_, err := c.NodeClaims(context.Background(), "general")
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), host) {
		t.Errorf("err = %v, want ErrUnreachable naming %s", err, host)
	}
}

// A server that does not answer costs one timeout: the next reads of the same client fail at
// once, naming what they did not ask, and never reach the server.
func TestUnansweredServerAskedOnce(t *testing.T) {
	var requests atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newClient(t, srv)
	c.http.Timeout = 200 * time.Millisecond
	if _, err := c.NodeClaims(context.Background(), "general"); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("first read: err = %v, want ErrUnreachable", err)
	}
	start := time.Now()
	_, err := c.Deployments(context.Background(), "app=karpenter")
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "not asked for deployments: an earlier request got no answer") {
		t.Errorf("second read: err = %v", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond || requests.Load() != 1 {
		t.Errorf("second read took %v and the server saw %d requests, want at once and 1", d, requests.Load())
	}
}

func TestNodeClaimsContextCanceled(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"items": []}`)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newClient(t, srv).NodeClaims(ctx, "general")
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnreachable) {
		t.Errorf("err = %v, want context.Canceled and not ErrUnreachable", err)
	}
}

// otherCAPEM is a freshly generated self-signed CA that did not sign the test server's certificate.
func otherCAPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(7),
		Subject:               pkix.Name{CommonName: "not-the-cluster-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestNodeOverlays(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/karpenter.sh/v1alpha1/nodeoverlays" || r.Header.Get("Authorization") != "Bearer "+testToken {
			t.Errorf("request %s %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"items": [{"metadata": {"name": "zeta"}}, {"metadata": {"name": "alpha"}}], "message": "denied"}`))
	}))
	defer srv.Close()
	c := newClient(t, srv)
	names, err := c.NodeOverlays(context.Background())
	if err != nil || strings.Join(names, ",") != "alpha,zeta" {
		t.Fatalf("NodeOverlays = %v, %v", names, err)
	}
	status = http.StatusNotFound
	if names, err := c.NodeOverlays(context.Background()); err != nil || names != nil {
		t.Errorf("without the CRD: %v, %v; want none", names, err)
	}
	status = http.StatusForbidden
	if _, err := c.NodeOverlays(context.Background()); err == nil || !strings.Contains(err.Error(), "get/list on nodeoverlays.karpenter.sh") {
		t.Errorf("forbidden: %v", err)
	}
}

// A service account's annotations; nil for one that does not exist; RBAC names the resource;
// the controller's service account is read from its Deployment ("default" when it names none).
func TestServiceAccountAnnotations(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/namespaces/kube-system/serviceaccounts/karpenter":
			_, _ = io.WriteString(w, `{"metadata":{"name":"karpenter","annotations":{"eks.amazonaws.com/role-arn":"arn:aws:iam::1:role/k"}}}`)
		case "/api/v1/namespaces/kube-system/serviceaccounts/plain":
			_, _ = io.WriteString(w, `{"metadata":{"name":"plain"}}`)
		case "/api/v1/namespaces/locked/serviceaccounts/karpenter":
			w.WriteHeader(http.StatusForbidden)
		case "/apis/apps/v1/namespaces/kube-system/deployments/karpenter":
			_, _ = io.WriteString(w, `{"metadata":{"namespace":"kube-system","name":"karpenter"},"spec":{"template":{"spec":{"serviceAccountName":"karpenter"}}}}`)
		case "/apis/apps/v1/namespaces/kube-system/deployments/bare":
			_, _ = io.WriteString(w, `{"metadata":{"namespace":"kube-system","name":"bare"}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"kind":"Status","reason":"NotFound","details":{"name":"gone"}}`)
		}
	}))
	defer srv.Close()
	c, ctx := newClient(t, srv), context.Background()
	if a, err := c.ServiceAccountAnnotations(ctx, "kube-system", "karpenter"); err != nil || a["eks.amazonaws.com/role-arn"] != "arn:aws:iam::1:role/k" {
		t.Errorf("annotated: %v %v", a, err)
	}
	if a, err := c.ServiceAccountAnnotations(ctx, "kube-system", "plain"); err != nil || a == nil || len(a) != 0 {
		t.Errorf("plain: %v %v", a, err)
	}
	if a, err := c.ServiceAccountAnnotations(ctx, "kube-system", "gone"); err != nil || a != nil {
		t.Errorf("gone: %v %v", a, err)
	}
	if _, err := c.ServiceAccountAnnotations(ctx, "locked", "karpenter"); err == nil || !strings.Contains(err.Error(), "get/list on serviceaccounts (core group)") {
		t.Errorf("forbidden: %v", err)
	}
	if d, err := c.Deployment(ctx, "kube-system", "karpenter"); err != nil || d.ServiceAccount != "karpenter" {
		t.Errorf("deployment: %+v %v", d, err)
	}
	if d, err := c.Deployment(ctx, "kube-system", "bare"); err != nil || d.ServiceAccount != "default" {
		t.Errorf("bare deployment: %+v %v", d, err)
	}
}
