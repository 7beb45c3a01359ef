package awsclient

import (
	"encoding/json"
	"strings"
	"testing"
)

// The published policies filled for each partition name only that partition, and no
// placeholder is left.
func TestFilledPoliciesOfEveryPartition(t *testing.T) {
	for _, p := range []string{PartitionAWS, PartitionGov, PartitionChina} {
		v := Values{Partition: p, AccountID: "123456789012", Region: "r-1", ClusterName: "c", OwnerIDs: []string{"*"},
			NodeRoleARNs: []string{ARN(p, "iam", "", "123456789012", "role/nodes")}}
		for _, c := range Capabilities {
			doc, err := PolicyDocument(c.Name)
			if err != nil {
				t.Fatal(err)
			}
			filled, err := Fill(doc, v)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(filled), "${") {
				t.Errorf("%s/%s: a placeholder is left:\n%s", p, c.Name, filled)
			}
			var parsed struct{ Statement []struct{ Resource []string } }
			if err := json.Unmarshal(filled, &parsed); err != nil {
				t.Fatal(err)
			}
			for _, s := range parsed.Statement {
				for _, r := range s.Resource {
					if r != "*" && !strings.HasPrefix(r, "arn:"+p+":") {
						t.Errorf("%s/%s: resource %s is not in the partition", p, c.Name, r)
					}
				}
			}
		}
	}
}
