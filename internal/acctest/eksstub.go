package acctest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	// AutoMode is the cluster's computeConfig (nil: none, as of a cluster without EKS Auto Mode).
	AutoMode *EKSAutoMode
	// AccessEntries are the cluster's EKS access entries.
	AccessEntries []AccessEntry
}

// EKSAutoMode is a cluster's computeConfig.
type EKSAutoMode struct {
	Enabled     bool
	NodePools   []string
	NodeRoleARN string
}

// AccessEntry is one EKS access entry: its principal, type ("EC2", "STANDARD", ...) and the
// access policies associated with it at cluster scope.
type AccessEntry struct {
	PrincipalARN, Type string
	ClusterPolicies    []string
}

// PodIdentity is one EKS Pod Identity association: the role a service account's pods get.
type PodIdentity struct {
	Namespace, ServiceAccount, RoleARN string
}

// StubAccount is the account of the stub's cluster ARNs, LocalStack's.
const StubAccount = "000000000000"

// NewEKSStub serves, for the given clusters, EKS's DescribeCluster (GET /clusters/{name}), the
// Pod Identity reads (GET /clusters/{name}/pod-identity-associations[/{id}]) and the access
// entry reads (GET /clusters/{name}/access-entries[/{principalArn}[/access-policies]]) over EKS's
// REST-JSON wire, answered by internal/awsfake's EKS fake (its ResourceNotFoundException for any
// other cluster, association or entry): LocalStack has no EKS. The clusters' ARNs are in
// StubAccount and Region.
func NewEKSStub(t testing.TB, clusters ...EKSCluster) *httptest.Server {
	t.Helper()
	fake := &awsfake.EKS{AccessPolicies: map[awsfake.AccessPolicyKey][]ekstypes.AssociatedAccessPolicy{}}
	for _, c := range clusters {
		addStubCluster(fake, c)
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

// addStubCluster puts c into the fake.
func addStubCluster(fake *awsfake.EKS, c EKSCluster) {
	cl := ekstypes.Cluster{Name: aws.String(c.Name), Endpoint: aws.String(c.Endpoint),
		Arn:     aws.String(fmt.Sprintf("arn:aws:eks:%s:%s:cluster/%s", Region(), StubAccount, c.Name)),
		Version: aws.String(c.Version), Status: ekstypes.ClusterStatusActive, CertificateAuthority: &ekstypes.Certificate{Data: aws.String(c.CAData)},
		KubernetesNetworkConfig: &ekstypes.KubernetesNetworkConfigResponse{ServiceIpv4Cidr: aws.String(c.ServiceCIDR), IpFamily: ekstypes.IpFamilyIpv4}}
	if a := c.AutoMode; a != nil {
		cl.ComputeConfig = &ekstypes.ComputeConfigResponse{Enabled: aws.Bool(a.Enabled), NodePools: a.NodePools, NodeRoleArn: aws.String(a.NodeRoleARN)}
	}
	fake.Clusters = append(fake.Clusters, cl)
	for i, p := range c.PodIdentities {
		fake.PodIdentityAssociations = append(fake.PodIdentityAssociations, ekstypes.PodIdentityAssociation{ClusterName: aws.String(c.Name),
			AssociationId: aws.String(fmt.Sprintf("a-%s%d", c.Name, i)), Namespace: aws.String(p.Namespace),
			ServiceAccount: aws.String(p.ServiceAccount), RoleArn: aws.String(p.RoleARN)})
	}
	for _, e := range c.AccessEntries {
		fake.AccessEntries = append(fake.AccessEntries, ekstypes.AccessEntry{ClusterName: aws.String(c.Name), PrincipalArn: aws.String(e.PrincipalARN),
			Type: aws.String(e.Type)})
		key := awsfake.AccessPolicyKey{Cluster: c.Name, Principal: e.PrincipalARN}
		for _, p := range e.ClusterPolicies {
			fake.AccessPolicies[key] = append(fake.AccessPolicies[key], ekstypes.AssociatedAccessPolicy{PolicyArn: aws.String(p),
				AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeCluster}})
		}
	}
}

// eksAnswer calls the fake for the request and renders its answer as EKS's JSON. The path's
// labels are escaped (a principal ARN's slashes among them): it is split before unescaping.
func eksAnswer(ctx context.Context, fake *awsfake.EKS, r *http.Request) (any, error) {
	rest, _ := strings.CutPrefix(r.URL.EscapedPath(), "/clusters/")
	segments := strings.Split(rest, "/")
	for i, s := range segments {
		if u, err := url.PathUnescape(s); err == nil {
			segments[i] = u
		}
	}
	name := segments[0]
	switch {
	case len(segments) == 1:
		return describeClusterAnswer(ctx, fake, name)
	case segments[1] == "pod-identity-associations":
		return podIdentityAnswer(ctx, fake, r, name, segments[2:])
	case segments[1] == "access-entries":
		return accessEntryAnswer(ctx, fake, name, segments[2:])
	}
	return nil, fmt.Errorf("the EKS stub does not serve %s", r.URL.Path)
}

func describeClusterAnswer(ctx context.Context, fake *awsfake.EKS, name string) (any, error) {
	out, err := fake.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		return nil, err
	}
	c := out.Cluster
	cluster := map[string]any{"name": c.Name, "arn": c.Arn, "endpoint": c.Endpoint, "version": c.Version, "status": c.Status,
		"certificateAuthority":    map[string]any{"data": c.CertificateAuthority.Data},
		"kubernetesNetworkConfig": map[string]any{"serviceIpv4Cidr": c.KubernetesNetworkConfig.ServiceIpv4Cidr, "ipFamily": c.KubernetesNetworkConfig.IpFamily}}
	if cc := c.ComputeConfig; cc != nil {
		cluster["computeConfig"] = map[string]any{"enabled": cc.Enabled, "nodePools": cc.NodePools, "nodeRoleArn": cc.NodeRoleArn}
	}
	return map[string]any{"cluster": cluster}, nil
}

func podIdentityAnswer(ctx context.Context, fake *awsfake.EKS, r *http.Request, name string, sub []string) (any, error) {
	if len(sub) == 0 {
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
	}
	out, err := fake.DescribePodIdentityAssociation(ctx, &eks.DescribePodIdentityAssociationInput{ClusterName: aws.String(name),
		AssociationId: aws.String(sub[0])})
	if err != nil {
		return nil, err
	}
	a := out.Association
	return map[string]any{"association": map[string]any{"associationId": a.AssociationId, "clusterName": a.ClusterName,
		"namespace": a.Namespace, "serviceAccount": a.ServiceAccount, "roleArn": a.RoleArn}}, nil
}

// accessEntryAnswer serves ListAccessEntries (no sub), DescribeAccessEntry (the principal) and
// ListAssociatedAccessPolicies (the principal, then access-policies).
func accessEntryAnswer(ctx context.Context, fake *awsfake.EKS, name string, sub []string) (any, error) {
	switch {
	case len(sub) == 0:
		out, err := fake.ListAccessEntries(ctx, &eks.ListAccessEntriesInput{ClusterName: aws.String(name)})
		if err != nil {
			return nil, err
		}
		return map[string]any{"accessEntries": out.AccessEntries}, nil
	case len(sub) == 1:
		out, err := fake.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String(name), PrincipalArn: aws.String(sub[0])})
		if err != nil {
			return nil, err
		}
		e := out.AccessEntry
		return map[string]any{"accessEntry": map[string]any{"clusterName": e.ClusterName, "principalArn": e.PrincipalArn, "type": e.Type}}, nil
	}
	out, err := fake.ListAssociatedAccessPolicies(ctx, &eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String(name),
		PrincipalArn: aws.String(sub[0])})
	if err != nil {
		return nil, err
	}
	list := []map[string]any{}
	for _, p := range out.AssociatedAccessPolicies {
		list = append(list, map[string]any{"policyArn": p.PolicyArn, "accessScope": map[string]any{"type": p.AccessScope.Type,
			"namespaces": p.AccessScope.Namespaces}})
	}
	return map[string]any{"clusterName": name, "principalArn": sub[0], "associatedAccessPolicies": list}, nil
}
