package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestInitRunsBeforeTheDependencies runs this test binary (which links main's imports) with
// GODEBUG=inittrace=1 and checks that initgc turned the collector off before the packages whose
// initialization allocates (the AWS SDK's schemas, Kubernetes' registries, CEL): those that ran
// before it allocated less than 2 % of what all packages did.
func TestInitRunsBeforeTheDependencies(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	const initgc = "github.com/nodeplane/terraform-provider-karpenter/internal/pluginlog/initgc"
	seen, heavy := false, 0
	var before, all int
	for line := range strings.SplitSeq(string(out), "\n") {
		// init <package> @<t> ms, <t> ms clock, <n> bytes, <n> allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if f[1] == initgc {
			seen = true
		}
		if strings.HasPrefix(f[1], "github.com/aws/") || strings.HasPrefix(f[1], "k8s.io/") {
			heavy++
		}
		if all += n; !seen {
			before += n
		}
	}
	if !seen || heavy < 50 {
		t.Fatalf("inittrace listed initgc: %v, and %d AWS SDK and Kubernetes packages (want at least 50):\n%s", seen, heavy, out)
	}
	if before*50 > all {
		t.Errorf("the packages initialized before initgc allocated %d of %d bytes (want under 2 %%)", before, all)
	}
	t.Logf("before initgc: %d of %d bytes", before, all)
}
