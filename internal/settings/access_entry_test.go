package settings

import "testing"

// A role is the same by name in the account and partition, whatever path either side gives.
func TestSameRole(t *testing.T) {
	for _, c := range []struct {
		principal, role string
		want            bool
	}{
		{"arn:aws:iam::111122223333:role/NodeRole", "NodeRole", true},
		{"arn:aws:iam::111122223333:role/nodes/NodeRole", "NodeRole", true},
		{"arn:aws:iam::111122223333:role/NodeRole", "nodes/NodeRole", true},
		{"arn:aws:iam::111122223333:role/NodeRole2", "NodeRole", false},
		{"arn:aws:iam::444455556666:role/NodeRole", "NodeRole", false},
		{"arn:aws-cn:iam::111122223333:role/NodeRole", "NodeRole", false},
		{"arn:aws:iam::111122223333:user/NodeRole", "NodeRole", false},
		{"arn:aws:sts::111122223333:assumed-role/NodeRole/i-1", "NodeRole", false},
		{"NodeRole", "NodeRole", false},
	} {
		if got := SameRole(c.principal, "aws", "111122223333", c.role); got != c.want {
			t.Errorf("SameRole(%s, %s) = %v", c.principal, c.role, got)
		}
	}
	if got := RoleARN("aws-us-gov", "111122223333", "nodes/NodeRole"); got != "arn:aws-us-gov:iam::111122223333:role/nodes/NodeRole" {
		t.Errorf("RoleARN = %s", got)
	}
	if a, ok := ParseARN("arn:aws:eks:eu-west-1:111122223333:cluster/prod"); !ok || a.Partition != "aws" || a.Account != "111122223333" ||
		a.Resource != "cluster/prod" {
		t.Errorf("ParseARN = %+v, %v", a, ok)
	}
}
