package kubeclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCRD(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodepools.karpenter.sh" ||
			r.Header.Get("Authorization") != "Bearer "+testToken {
			t.Errorf("request %s %s %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"metadata": {"name": "nodepools.karpenter.sh"}, "message": "denied", "spec": {"versions": [
			{"name": "v1beta1", "served": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
			{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}}}]}}`))
	}))
	defer srv.Close()
	c := newClient(t, srv)
	crd, err := c.CRD(context.Background(), "nodepools.karpenter.sh")
	if err != nil || crd == nil || crd.Name != "nodepools.karpenter.sh" || len(crd.Versions) != 2 {
		t.Fatalf("CRD = %+v, %v", crd, err)
	}
	if v := crd.Versions[1]; v.Name != "v1" || !v.Served || !strings.Contains(string(v.Schema), `"spec": {"type": "object"}`) {
		t.Errorf("version %+v (schema %s)", v, v.Schema)
	}
	if v := crd.Versions[0]; v.Name != "v1beta1" || v.Served {
		t.Errorf("an unserved version read as %+v", v)
	}
	status = http.StatusNotFound
	if crd, err := c.CRD(context.Background(), "nodepools.karpenter.sh"); err != nil || crd != nil {
		t.Errorf("a missing CRD: %+v, %v; want nil, nil", crd, err)
	}
	status = http.StatusForbidden
	if _, err := c.CRD(context.Background(), "nodepools.karpenter.sh"); err == nil ||
		!strings.Contains(err.Error(), "get/list on customresourcedefinitions.apiextensions.k8s.io") || !strings.Contains(err.Error(), "denied") {
		t.Errorf("forbidden: %v", err)
	}
	status = http.StatusInternalServerError
	if _, err := c.CRD(context.Background(), "nodepools.karpenter.sh"); err == nil {
		t.Error("a server error read as no error")
	}
}
