package awsclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// LocalStack's community edition has no EKS. eksServer answers DescribeCluster (GET
// /clusters/<name>) as EKS does, errors in the x-amzn-ErrorType header, so the SDK's own
// deserializers produce the errors DescribeClusterFacts classifies.
func eksServer(t *testing.T, routes map[string]func(http.ResponseWriter)) *eks.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := routes[r.URL.Path]
		if r.Method != http.MethodGet || !ok {
			w.Header().Set("x-amzn-ErrorType", "ResourceNotFoundException")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"No cluster found for name: ` + strings.TrimPrefix(r.URL.Path, "/clusters/") + `."}`))
			return
		}
		h(w)
	}))
	t.Cleanup(srv.Close)
	return eks.New(eks.Options{
		Region:           "eu-west-1",
		BaseEndpoint:     aws.String(srv.URL),
		Credentials:      credentials.NewStaticCredentialsProvider("a", "b", ""),
		RetryMaxAttempts: 1,
	})
}

func answer(status int, errType, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		if errType != "" {
			w.Header().Set("x-amzn-ErrorType", errType)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func TestDescribeClusterFacts(t *testing.T) {
	const active = `{"cluster":{"name":"prod","status":"ACTIVE","version":"1.33",
		"endpoint":"https://ABCDEF0123456789.gr7.eu-west-1.eks.amazonaws.com",
		"certificateAuthority":{"data":"LS0tLS1CRUdJTg=="},
		"kubernetesNetworkConfig":{"serviceIpv4Cidr":"172.20.0.0/16","ipFamily":"ipv4"}}}`
	const autoMode = `{"cluster":{"name":"auto","arn":"arn:aws:eks:eu-west-1:111122223333:cluster/auto","version":"1.34",
		"computeConfig":{"enabled":true,"nodePools":["general-purpose","system"],"nodeRoleArn":"arn:aws:iam::111122223333:role/AutoNode"}}}`
	const autoModeOff = `{"cluster":{"name":"off","version":"1.34","computeConfig":{"enabled":false}}}`
	const creating = `{"cluster":{"name":"new","status":"CREATING","version":"1.34",
		"kubernetesNetworkConfig":{"serviceIpv6Cidr":"fd00:1::/108","ipFamily":"ipv6"}}}`
	api := eksServer(t, map[string]func(http.ResponseWriter){
		"/clusters/prod":   answer(http.StatusOK, "", active),
		"/clusters/new":    answer(http.StatusOK, "", creating),
		"/clusters/auto":   answer(http.StatusOK, "", autoMode),
		"/clusters/off":    answer(http.StatusOK, "", autoModeOff),
		"/clusters/secret": answer(http.StatusForbidden, "AccessDeniedException", `{"message":"User: arn:aws:iam::111122223333:user/x is not authorized to perform: eks:DescribeCluster"}`),
		"/clusters/broken": answer(http.StatusBadRequest, "InvalidParameterException", `{"message":"bad"}`),
	})
	cases := []struct {
		name        string
		cluster     string
		want        settings.ClusterFacts
		wantSetting string // "" when no error
		wantText    string
	}{
		{name: "active cluster", cluster: "prod", want: settings.ClusterFacts{
			Endpoint:                 "https://ABCDEF0123456789.gr7.eu-west-1.eks.amazonaws.com",
			CertificateAuthorityData: "LS0tLS1CRUdJTg==", ServiceIPv4CIDR: "172.20.0.0/16", KubernetesVersion: "1.33"}},
		{name: "creating IPv6 cluster leaves the missing facts empty", cluster: "new", want: settings.ClusterFacts{KubernetesVersion: "1.34"}},
		{name: "EKS Auto Mode's computeConfig and the cluster's ARN", cluster: "auto", want: settings.ClusterFacts{KubernetesVersion: "1.34",
			ARN: "arn:aws:eks:eu-west-1:111122223333:cluster/auto", AutoMode: &settings.AutoModeFacts{Enabled: true,
				NodePools: []string{"general-purpose", "system"}, NodeRoleARN: "arn:aws:iam::111122223333:role/AutoNode"}}},
		{name: "computeConfig off", cluster: "off", want: settings.ClusterFacts{KubernetesVersion: "1.34", AutoMode: &settings.AutoModeFacts{}}},
		{name: "not found", cluster: "nope", wantSetting: "cluster_name", wantText: `EKS cluster "nope" not found in region eu-west-1`},
		{name: "access denied", cluster: "secret", wantSetting: "lookup_cluster", wantText: "may not call eks:DescribeCluster"},
		{name: "other error", cluster: "broken", wantSetting: "lookup_cluster", wantText: `cannot describe EKS cluster "broken"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client := &Client{EKS: api, Region: "eu-west-1"}
			got, err := client.DescribeClusterFacts(context.Background(), c.cluster)
			if c.wantSetting == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Fatalf("facts = %+v, want %+v", got, c.want)
				}
				return
			}
			var se *SettingError
			if !errors.As(err, &se) || se.Setting != c.wantSetting {
				t.Fatalf("error = %v, want a SettingError on %s", err, c.wantSetting)
			}
			if !strings.Contains(err.Error(), c.wantText) {
				t.Fatalf("error %q does not mention %q", err, c.wantText)
			}
			if got != (settings.ClusterFacts{}) {
				t.Fatalf("facts = %+v on error, want none", got)
			}
		})
	}
}

func TestDescribeClusterFacts_withoutEKSClient(t *testing.T) {
	_, err := (&Client{}).DescribeClusterFacts(context.Background(), "prod")
	var se *SettingError
	if !errors.As(err, &se) || se.Setting != "lookup_cluster" {
		t.Fatalf("error = %v, want a SettingError on lookup_cluster", err)
	}
}

// New sends EKS calls to Settings.EKSEndpoint, as it does EC2, SSM and IAM calls to theirs.
func TestNew_eksEndpoint(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_EKS", "")
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		answer(http.StatusOK, "", `{"cluster":{"name":"prod","version":"1.33"}}`)(w)
	}))
	t.Cleanup(srv.Close)
	c, err := New(context.Background(), Settings{Region: "eu-west-1", AccessKey: "a", SecretKey: "b", EKSEndpoint: srv.URL,
		SkipCredentialsValidation: true, SkipRequestingAccountID: true, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.DescribeClusterFacts(context.Background(), "prod")
	if err != nil || f.KubernetesVersion != "1.33" {
		t.Fatalf("facts = %+v, err = %v", f, err)
	}
	if len(paths) != 1 || paths[0] != "/clusters/prod" {
		t.Fatalf("EKS endpoint got %v, want one DescribeCluster of prod", paths)
	}
	if n := c.Calls.Snapshot()["EKS.DescribeCluster"]; n != 1 {
		t.Fatalf("calls = %v, want EKS.DescribeCluster counted once", c.Calls.Snapshot())
	}
}
