package main

import (
	"slices"
	"strings"
	"testing"
)

const sample = `Resources:
  KarpenterNodeRole:
    Type: "AWS::IAM::Role"
  NodePolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      ManagedPolicyName: !Sub "SomethingElse-${ClusterName}"
      PolicyDocument: {"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}
  NodeLifecyclePolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      ManagedPolicyName: !Sub "KarpenterControllerNodeLifecyclePolicy-${ClusterName}"
      PolicyDocument: !Sub |
        {
          "Version": "2012-10-17",
          "Statement": [
            {"Sid": "Launch", "Effect": "Allow", "Resource": "arn:${AWS::Partition}:ec2:${AWS::Region}::image/*",
             "Action": ["ec2:RunInstances", "ec2:CreateFleet"]},
            {"Sid": "NoDeny", "Effect": "Deny", "Resource": "*", "Action": "ec2:TerminateInstances"}
          ]
        }
  DiscoveryPolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      ManagedPolicyName: KarpenterControllerResourceDiscoveryPolicy
      PolicyDocument:
        Statement:
          - Sid: Read
            Effect: Allow
            Resource: "*"
            Action: ssm:GetParameter
`

func TestControllerStatements(t *testing.T) {
	got, err := controllerStatements([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Policy != "KarpenterControllerNodeLifecyclePolicy" || got[0].Sid != "Launch" ||
		!slices.Equal(got[0].Actions, []string{"ec2:RunInstances", "ec2:CreateFleet"}) ||
		got[1].Policy != "KarpenterControllerResourceDiscoveryPolicy" || !slices.Equal(got[1].Actions, []string{"ssm:GetParameter"}) {
		t.Fatalf("statements %+v", got)
	}
	if _, err := controllerStatements([]byte("Resources: {}\n")); err == nil || !strings.Contains(err.Error(), "no KarpenterController") {
		t.Errorf("a template without the controller's policies: %v", err)
	}
	code, err := render([]release{{Minor: "1.9", Rev: "v1.12.2", Commit: "abc", Statements: got}}, "-repo x 1.9=v1.12.2")
	if err != nil || !strings.Contains(string(code), `{Policy: "KarpenterControllerNodeLifecyclePolicy", Sid: "Launch", Actions: []string{"ec2:RunInstances", "ec2:CreateFleet"}}`) {
		t.Errorf("render: %v\n%s", err, code)
	}
}
