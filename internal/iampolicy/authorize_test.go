package iampolicy

import "testing"

func TestAuthorizeResourcesAndConditions(t *testing.T) {
	policy, err := Parse(Document{Source: "p", JSON: `{"Version":"2012-10-17","Statement":[
	 {"Sid":"Pass","Effect":"Allow","Action":"iam:PassRole","Resource":"arn:aws-cn:iam::111122223333:role/nodes",
	  "Condition":{"StringEquals":{"iam:PassedToService":["ec2.amazonaws.com","ec2.amazonaws.com.cn"]}}},
	 {"Sid":"Create","Effect":"Allow","Action":["ec2:RunInstances"],"Resource":"arn:aws-cn:ec2:*:111122223333:instance/*",
	  "Condition":{"StringLike":{"aws:RequestTag/owner":["ab*"]},"ForAllValues:StringEquals":{"aws:TagKeys":["owner","Name"]}}},
	 {"Sid":"Tag","Effect":"Allow","Action":"ec2:CreateTags","Resource":"*","Condition":{"StringEquals":{"ec2:CreateAction":"RunInstances"}}},
	 {"Sid":"Kill","Effect":"Allow","Action":"ec2:TerminateInstances","Resource":"*","Condition":{"Null":{"aws:ResourceTag/owner":"false"}}},
	 {"Sid":"NoProd","Effect":"Deny","Action":"ec2:TerminateInstances","Resource":"*","Condition":{"StringEquals":{"aws:ResourceTag/env":"prod"}}},
	 {"Sid":"Other","Effect":"Allow","Action":"s3:GetObject","NotResource":"arn:aws-cn:s3:::secret/*","Condition":{"StringNotEquals":{"aws:ResourceTag/class":"secret"}}}
	]}`})
	if err != nil {
		t.Fatal(err)
	}
	role, inst := "arn:aws-cn:iam::111122223333:role/nodes", "arn:aws-cn:ec2:cn-north-1:111122223333:instance/i-1"
	for _, c := range []struct {
		name string
		req  Request
		want Decision
	}{
		{"pass the node role to EC2", Request{"iam:PassRole", role, map[string][]string{"iam:PassedToService": {"ec2.amazonaws.com.cn"}}}, Allowed},
		{"pass it to Lambda", Request{"iam:PassRole", role, map[string][]string{"iam:PassedToService": {"lambda.amazonaws.com"}}}, ImplicitDeny},
		{"pass it without a service", Request{"iam:PassRole", role, nil}, ImplicitDeny},
		{"pass another role", Request{"iam:PassRole", "arn:aws-cn:iam::111122223333:role/admin", map[string][]string{"iam:PassedToService": {"ec2.amazonaws.com"}}}, ImplicitDeny},
		{"pass it in another partition", Request{"iam:PassRole", "arn:aws:iam::111122223333:role/nodes", map[string][]string{"iam:PassedToService": {"ec2.amazonaws.com"}}}, ImplicitDeny},
		{"launch with the owner tag", Request{"ec2:RunInstances", inst, map[string][]string{"aws:RequestTag/owner": {"abc"}, "aws:TagKeys": {"owner", "Name"}}}, Allowed},
		{"launch with another owner", Request{"ec2:RunInstances", inst, map[string][]string{"aws:RequestTag/owner": {"ff"}, "aws:TagKeys": {"owner"}}}, ImplicitDeny},
		{"launch with an extra tag key", Request{"ec2:RunInstances", inst, map[string][]string{"aws:RequestTag/owner": {"abc"}, "aws:TagKeys": {"owner", "x"}}}, ImplicitDeny},
		{"launch untagged", Request{"ec2:RunInstances", inst, nil}, ImplicitDeny},
		{"tag while launching", Request{"ec2:CreateTags", inst, map[string][]string{"ec2:CreateAction": {"RunInstances"}}}, Allowed},
		{"tag an existing instance", Request{"ec2:CreateTags", inst, nil}, ImplicitDeny},
		{"terminate an owned instance", Request{"ec2:TerminateInstances", inst, map[string][]string{"aws:ResourceTag/owner": {"abc"}}}, Allowed},
		{"terminate an untagged instance", Request{"ec2:TerminateInstances", inst, nil}, ImplicitDeny},
		{"terminate a prod instance", Request{"ec2:TerminateInstances", inst, map[string][]string{"aws:ResourceTag/owner": {"abc"}, "aws:ResourceTag/env": {"prod"}}}, ExplicitDeny},
		{"read outside NotResource, key missing", Request{"s3:GetObject", "arn:aws-cn:s3:::public/a", nil}, Allowed},
		{"read inside NotResource", Request{"s3:GetObject", "arn:aws-cn:s3:::secret/a", nil}, ImplicitDeny},
		{"read a secret-class object", Request{"s3:GetObject", "arn:aws-cn:s3:::public/a", map[string][]string{"aws:ResourceTag/class": {"secret"}}}, ImplicitDeny},
	} {
		if got := Authorize([]Policy{policy}, c.req); got.Decision != c.want {
			t.Errorf("%s: %s, want %s (allowed by %v, denied by %v)", c.name, got.Decision, c.want, got.AllowedBy, got.DeniedBy)
		}
	}
}
