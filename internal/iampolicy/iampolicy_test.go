package iampolicy

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		json string
		want Policy
	}{
		{
			name: "statement as an object, action as a string",
			json: `{"Version":"2012-10-17","Statement":{"Sid":"One","Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}}`,
			want: Policy{Source: "src", Version: "2012-10-17", Statements: []Statement{
				{Sid: "One", Effect: EffectAllow, Actions: []string{"ec2:DescribeInstances"}, Resources: []string{"*"}},
			}},
		},
		{
			name: "statement as an array, action as an array",
			json: `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Action":["ec2:DescribeInstances","ec2:DescribeVpcs"],"Resource":["*"]},
				{"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`,
			want: Policy{Source: "src", Version: "2012-10-17", Statements: []Statement{
				{Effect: EffectAllow, Actions: []string{"ec2:DescribeInstances", "ec2:DescribeVpcs"}, Resources: []string{"*"}},
				{Effect: EffectDeny, Actions: []string{"iam:*"}, Resources: []string{"*"}},
			}},
		},
		{
			name: "NotAction and NotResource",
			json: `{"Statement":[{"Effect":"Deny","NotAction":["iam:*","sts:*"],"NotResource":"arn:aws:s3:::logs/*"}]}`,
			want: Policy{Source: "src", Statements: []Statement{
				{Effect: EffectDeny, Actions: []string{"iam:*", "sts:*"}, IsNotAction: true,
					Resources: []string{"arn:aws:s3:::logs/*"}, IsNotResource: true},
			}},
		},
		{
			name: "condition kept, operators and keys in order, values as text",
			json: `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:CreateTags","Resource":"*",
				"Condition":{"StringEquals":{"ec2:CreateAction":"CreateNetworkInterface","aws:RequestedRegion":["eu-west-1","us-east-1"]},
				"Bool":{"aws:SecureTransport":true}}}]}`,
			want: Policy{Source: "src", Version: "2012-10-17", Statements: []Statement{
				{Effect: EffectAllow, Actions: []string{"ec2:CreateTags"}, Resources: []string{"*"}, HasCondition: true, Conditions: []Condition{
					{Operator: "Bool", Key: "aws:SecureTransport", Values: []string{"true"}},
					{Operator: "StringEquals", Key: "aws:RequestedRegion", Values: []string{"eu-west-1", "us-east-1"}},
					{Operator: "StringEquals", Key: "ec2:CreateAction", Values: []string{"CreateNetworkInterface"}}}},
			}},
		},
		{
			name: "empty condition is no condition",
			json: `{"Statement":[{"Effect":"Allow","Action":"ec2:CreateTags","Resource":"*","Condition":{}}]}`,
			want: Policy{Source: "src", Statements: []Statement{
				{Effect: EffectAllow, Actions: []string{"ec2:CreateTags"}, Resources: []string{"*"}},
			}},
		},
		{
			name: "effect in another case, principal ignored, surrounding space",
			json: "\n  {\"Statement\":[{\"Effect\":\"allow\",\"Principal\":\"*\",\"Action\":\"*\",\"Resource\":\"*\"}]}  \n",
			want: Policy{Source: "src", Statements: []Statement{
				{Effect: EffectAllow, Actions: []string{"*"}, Resources: []string{"*"}},
			}},
		},
		{
			name: "URL-encoded, as GetPolicyVersion returns it",
			json: "%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%5B%7B%22Effect%22%3A%22Allow%22%2C" +
				"%22Action%22%3A%22ec2%3A%2A%22%2C%22Resource%22%3A%22%2A%22%7D%5D%7D",
			want: Policy{Source: "src", Version: "2012-10-17", Statements: []Statement{
				{Effect: EffectAllow, Actions: []string{"ec2:*"}, Resources: []string{"*"}},
			}},
		},
		{
			name: "URL-encoded in lower case, with encoded newlines and spaces",
			json: "%7b%0A%20%20%22Statement%22%3a%20%7b%22Effect%22%3a%20%22Deny%22%2c%20%22Action%22%3a%20%22ecr%3a%2a%22%2c" +
				"%20%22Resource%22%3a%20%22%2a%22%7d%0A%7d",
			want: Policy{Source: "src", Statements: []Statement{
				{Effect: EffectDeny, Actions: []string{"ecr:*"}, Resources: []string{"*"}},
			}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(Document{Source: "src", JSON: tc.json})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// Every managed-policy fixture parses, plain and URL-encoded the way IAM encodes it, to the same
// policy.
func TestParseFixturesURLEncoded(t *testing.T) {
	for _, doc := range append(managedDocs(), Document{Source: arnECRPull, JSON: fixtureECRPullOnly}) {
		plain, err := Parse(doc)
		if err != nil {
			t.Fatalf("%s: %v", doc.Source, err)
		}
		if len(plain.Statements) == 0 {
			t.Fatalf("%s: no statements", doc.Source)
		}
		enc := doc
		enc.JSON = url.PathEscape(doc.JSON)
		if !strings.HasPrefix(enc.JSON, "%7B") {
			t.Fatalf("%s: encoded text starts %q", doc.Source, enc.JSON[:6])
		}
		decoded, err := Parse(enc)
		if err != nil {
			t.Fatalf("%s encoded: %v", doc.Source, err)
		}
		if !reflect.DeepEqual(plain, decoded) {
			t.Errorf("%s: encoded parses to %+v, plain to %+v", doc.Source, decoded, plain)
		}
	}
}

func TestParseErrors(t *testing.T) {
	const allow = `"Effect":"Allow","Action":"ec2:*","Resource":"*"`
	cases := []struct {
		name, json, want string
	}{
		{"empty", "  ", "empty document"},
		{"truncated JSON", `{"Statement":[{"Effect":"Allow"`, "invalid JSON"},
		{"trailing garbage", `{"Statement":{` + allow + `}} x`, "invalid JSON"},
		{"not JSON nor URL-encoded", "%zz", "neither JSON nor URL-encoded JSON"},
		{"URL-encoded garbage", "%7B%22Statement", "invalid JSON"},
		{"a JSON array", `[{"Statement":{}}]`, "invalid JSON"},
		{"no statement", `{"Version":"2012-10-17"}`, "no Statement"},
		{"null statement", `{"Statement":null}`, "no Statement"},
		{"statement a string", `{"Statement":"Allow"}`, "statement 1: not an object"},
		{"statement array of strings", `{"Statement":["x"]}`, "statement 1: not an object"},
		{"version a number", `{"Version":2012,"Statement":{` + allow + `}}`, "invalid JSON"},
		{"no effect", `{"Statement":{"Action":"ec2:*","Resource":"*"}}`, "statement 1: no Effect"},
		{"bad effect", `{"Statement":[{` + allow + `},{"Effect":"Permit","Action":"ec2:*","Resource":"*"}]}`,
			`statement 2: Effect "Permit" is neither Allow nor Deny`},
		{"Action and NotAction", `{"Statement":{"Effect":"Allow","Action":"a:b","NotAction":"c:d","Resource":"*"}}`, "both Action and NotAction"},
		{"no action", `{"Statement":{"Effect":"Allow","Resource":"*"}}`, "neither Action nor NotAction"},
		{"action a number", `{"Statement":{"Effect":"Allow","Action":5,"Resource":"*"}}`, "Action must be a string or an array of strings"},
		{"action array of numbers", `{"Statement":{"Effect":"Allow","Action":[5],"Resource":"*"}}`, "Action must be a string or an array of strings"},
		{"NotAction an object", `{"Statement":{"Effect":"Allow","NotAction":{},"Resource":"*"}}`, "NotAction must be a string or an array of strings"},
		{"Resource and NotResource", `{"Statement":{"Effect":"Allow","Action":"a:b","Resource":"*","NotResource":"x"}}`, "both Resource and NotResource"},
		{"no resource", `{"Statement":{"Effect":"Allow","Action":"a:b"}}`, "neither Resource nor NotResource"},
		{"resource a bool", `{"Statement":{"Effect":"Allow","Action":"a:b","Resource":true}}`, "Resource must be a string or an array of strings"},
		{"condition a string", `{"Statement":{` + allow + `,"Condition":"yes"}}`, "the Condition element is not an object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(Document{Source: "inline:broken", JSON: tc.json})
			if err == nil {
				t.Fatal("Parse: no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Source != "inline:broken" {
				t.Fatalf("error %v (%T) is not a *ParseError naming the source", err, err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "policy inline:broken: ") || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q, want it to name the source and contain %q", msg, tc.want)
			}
		})
	}
}

func TestParseErrorUnnamed(t *testing.T) {
	_, err := Parse(Document{JSON: "{"})
	if err == nil || !strings.HasPrefix(err.Error(), "policy (unnamed): ") {
		t.Errorf("error %v", err)
	}
}
