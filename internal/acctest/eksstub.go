package acctest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
)

// EKSCluster is what the EKS stub answers for one cluster.
type EKSCluster struct {
	Name, Endpoint, CAData, Version, ServiceCIDR string
	// PodIdentities are the cluster's EKS Pod Identity associations.
	PodIdentities []PodIdentity
}

// PodIdentity is one EKS Pod Identity association: the role a service account's pods get.
type PodIdentity struct {
	Namespace, ServiceAccount, RoleARN string
}

// NewEKSStub serves, for the given clusters, EKS's DescribeCluster (GET /clusters/{name}) and
// the Pod Identity reads (GET /clusters/{name}/pod-identity-associations[/{id}]) over EKS's
// REST-JSON wire, answered by internal/awsfake's EKS fake (its ResourceNotFoundException for any
// other cluster or association): LocalStack has no EKS.
func NewEKSStub(t testing.TB, clusters ...EKSCluster) *httptest.Server {
	t.Helper()
	fake := &awsfake.EKS{}
	for _, c := range clusters {
		fake.Clusters = append(fake.Clusters, ekstypes.Cluster{Name: aws.String(c.Name), Endpoint: aws.String(c.Endpoint),
			Version: aws.String(c.Version), Status: ekstypes.ClusterStatusActive, CertificateAuthority: &ekstypes.Certificate{Data: aws.String(c.CAData)},
			KubernetesNetworkConfig: &ekstypes.KubernetesNetworkConfigResponse{ServiceIpv4Cidr: aws.String(c.ServiceCIDR), IpFamily: ekstypes.IpFamilyIpv4}})
		for i, p := range c.PodIdentities {
			fake.PodIdentityAssociations = append(fake.PodIdentityAssociations, ekstypes.PodIdentityAssociation{ClusterName: aws.String(c.Name),
				AssociationId: aws.String(fmt.Sprintf("a-%s%d", c.Name, i)), Namespace: aws.String(p.Namespace),
				ServiceAccount: aws.String(p.ServiceAccount), RoleArn: aws.String(p.RoleARN)})
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := eksAnswer(r.Context(), fake, r)
		if err != nil {
			var notFound *ekstypes.ResourceNotFoundException
			w.Header().Set("X-Amzn-Errortype", "ResourceNotFoundException")
			w.WriteHeader(http.StatusNotFound)
			body = map[string]string{"message": err.Error()}
			if errors.As(err, &notFound) {
				body = map[string]string{"message": aws.ToString(notFound.Message)}
			}
		}
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// eksAnswer calls the fake for the request and renders its answer as EKS's JSON.
func eksAnswer(ctx context.Context, fake *awsfake.EKS, r *http.Request) (any, error) {
	rest, _ := strings.CutPrefix(r.URL.Path, "/clusters/")
	name, sub, _ := strings.Cut(rest, "/pod-identity-associations")
	switch {
	case !strings.Contains(rest, "/pod-identity-associations"):
		out, err := fake.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
		if err != nil {
			return nil, err
		}
		c := out.Cluster
		return map[string]any{"cluster": map[string]any{"name": c.Name, "endpoint": c.Endpoint, "version": c.Version, "status": c.Status,
			"certificateAuthority":    map[string]any{"data": c.CertificateAuthority.Data},
			"kubernetesNetworkConfig": map[string]any{"serviceIpv4Cidr": c.KubernetesNetworkConfig.ServiceIpv4Cidr, "ipFamily": c.KubernetesNetworkConfig.IpFamily}}}, nil
	case sub == "":
		q := r.URL.Query()
		in := &eks.ListPodIdentityAssociationsInput{ClusterName: aws.String(name)}
		if q.Has("namespace") {
			in.Namespace = aws.String(q.Get("namespace"))
		}
		if q.Has("serviceAccount") {
			in.ServiceAccount = aws.String(q.Get("serviceAccount"))
		}
		out, err := fake.ListPodIdentityAssociations(ctx, in)
		if err != nil {
			return nil, err
		}
		list := []map[string]any{}
		for _, a := range out.Associations {
			list = append(list, map[string]any{"associationId": a.AssociationId, "clusterName": a.ClusterName, "namespace": a.Namespace,
				"serviceAccount": a.ServiceAccount})
		}
		return map[string]any{"associations": list}, nil
	default:
		out, err := fake.DescribePodIdentityAssociation(ctx, &eks.DescribePodIdentityAssociationInput{ClusterName: aws.String(name),
			AssociationId: aws.String(strings.TrimPrefix(sub, "/"))})
		if err != nil {
			return nil, err
		}
		a := out.Association
		return map[string]any{"association": map[string]any{"associationId": a.AssociationId, "clusterName": a.ClusterName,
			"namespace": a.Namespace, "serviceAccount": a.ServiceAccount, "roleArn": a.RoleArn}}, nil
	}
}
