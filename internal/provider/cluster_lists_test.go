package provider

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
)

// Every pool plan of a process asks for the cluster's NodePools and NodeOverlays: the
// configured provider lists each once (a snapshot for the walk), however many pools ask, and a
// failed list is asked again.
func TestClusterListsOncePerProvider(t *testing.T) {
	var pools, overlays atomic.Int32
	fail := atomic.Bool{}
	fail.Store(true)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/nodepools"):
			pools.Add(1)
			if fail.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte(`{"kind":"NodePoolList","items":[{"metadata":{"name":"general"}}]}`))
		case strings.HasSuffix(r.URL.Path, "/nodeoverlays"):
			overlays.Add(1)
			_, _ = w.Write([]byte(`{"kind":"NodeOverlayList","items":[{"metadata":{"name":"cheap"}}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	kube, err := kubeclient.New(kubeclient.Config{Host: srv.URL,
		CACertificatePEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))})
	if err != nil {
		t.Fatal(err)
	}
	m := &Meta{Kube: kube}
	ctx := context.Background()
	if _, err := m.clusterNodePools(ctx); err == nil {
		t.Fatal("a failed list must fail")
	}
	fail.Store(false)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, err := m.clusterNodePools(ctx); err != nil || len(got) != 1 {
				t.Errorf("NodePools %v, %v", got, err)
			}
			if got, err := m.clusterNodeOverlays(ctx); err != nil || strings.Join(got, ",") != "cheap" {
				t.Errorf("NodeOverlays %v, %v", got, err)
			}
		}()
	}
	wg.Wait()
	if pools.Load() != 2 || overlays.Load() != 1 {
		t.Errorf("the server saw %d NodePool lists (want 2: the failed one, then one) and %d NodeOverlay lists (want 1)",
			pools.Load(), overlays.Load())
	}
}
