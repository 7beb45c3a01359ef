package awsclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestPartitionOfTheCallerOrTheRegion(t *testing.T) {
	for _, c := range []struct{ arn, region, want string }{
		{"arn:aws:sts::123456789012:assumed-role/tf/session", "us-east-1", "aws"},
		{"arn:aws-us-gov:iam::123456789012:user/tf", "us-gov-west-1", "aws-us-gov"},
		{"arn:aws-cn:sts::123456789012:assumed-role/tf/session", "cn-north-1", "aws-cn"},
		// The identity wins over the region (a LocalStack region name, say).
		{"arn:aws-cn:iam::123456789012:user/tf", "us-east-1", "aws-cn"},
		// Without an identity, the region decides.
		{"", "cn-northwest-1", "aws-cn"},
		{"", "us-gov-east-1", "aws-us-gov"},
		{"", "eu-west-1", "aws"},
		{"", "", "aws"},
		{"not-an-arn", "us-gov-west-1", "aws-us-gov"},
	} {
		if got := Partition(c.arn, c.region); got != c.want {
			t.Errorf("Partition(%q, %q) = %q, want %q", c.arn, c.region, got, c.want)
		}
	}
}

func TestARNsOfEveryPartition(t *testing.T) {
	for _, p := range []string{PartitionAWS, PartitionGov, PartitionChina} {
		if got, want := ManagedPolicyARN(p, "AmazonEKS_CNI_Policy"), "arn:"+p+":iam::aws:policy/AmazonEKS_CNI_Policy"; got != want {
			t.Errorf("ManagedPolicyARN(%s) = %s, want %s", p, got, want)
		}
		if got, want := ARN(p, "ec2", "r", "123456789012", "instance/i-1"), "arn:"+p+":ec2:r:123456789012:instance/i-1"; got != want {
			t.Errorf("ARN(%s) = %s, want %s", p, got, want)
		}
	}
}

// New takes the partition from STS GetCallerIdentity's ARN, and from the region when it does
// not ask STS.
func TestNewLearnsThePartition(t *testing.T) {
	for _, c := range []struct{ partition, region string }{
		{"aws", "us-west-2"}, {"aws-us-gov", "us-gov-west-1"}, {"aws-cn", "cn-north-1"},
	} {
		t.Run(c.partition, func(t *testing.T) {
			sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/xml")
				fmt.Fprintf(w, `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>`+
					`<Arn>arn:%s:iam::123456789012:user/tf</Arn><UserId>AIDA</UserId><Account>123456789012</Account>`+
					`</GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`, c.partition)
			}))
			defer sts.Close()
			s := Settings{Region: c.region, AccessKey: "AKIA", SecretKey: "secret", STSEndpoint: sts.URL, MaxRetries: 1}
			got, err := New(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if got.Partition != c.partition || got.AccountID != "123456789012" {
				t.Errorf("partition %q, account %q; want %q", got.Partition, got.AccountID, c.partition)
			}
			s.SkipCredentialsValidation, s.SkipRequestingAccountID = true, true
			if got, err = New(context.Background(), s); err != nil || got.Partition != c.partition {
				t.Errorf("without STS: partition %q (%v), want %q from region %s", got.Partition, err, c.partition, c.region)
			}
		})
	}
}
