package acctest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// EKSCluster is what the EKS stub answers for one cluster.
type EKSCluster struct {
	Name, Endpoint, CAData, Version, ServiceCIDR string
}

// NewEKSStub serves EKS's DescribeCluster (GET /clusters/{name}, REST-JSON) for the given
// clusters, and EKS's ResourceNotFoundException for any other name: LocalStack has no EKS.
func NewEKSStub(t testing.TB, clusters ...EKSCluster) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/clusters/")
		w.Header().Set("Content-Type", "application/json")
		for _, c := range clusters {
			if ok && r.Method == http.MethodGet && name == c.Name {
				_ = json.NewEncoder(w).Encode(map[string]any{"cluster": map[string]any{
					"name": c.Name, "endpoint": c.Endpoint, "version": c.Version, "status": "ACTIVE",
					"certificateAuthority":    map[string]string{"data": c.CAData},
					"kubernetesNetworkConfig": map[string]string{"serviceIpv4Cidr": c.ServiceCIDR, "ipFamily": "ipv4"},
				}})
				return
			}
		}
		w.Header().Set("X-Amzn-Errortype", "ResourceNotFoundException")
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "No cluster found for name: " + name + "."})
	}))
	t.Cleanup(srv.Close)
	return srv
}
