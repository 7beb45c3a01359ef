package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// timedConfig is one configuration the timed loop plans at every N.
type timedConfig struct {
	prefix string // of its directories (prefix-N), which also picks the CLI configuration
	what   string // for the progress lines
	config func(n int) string
	times  map[int][]time.Duration // where its timed runs go, by N
	// peer: a manifest provider against the local API server, warmed up with an untimed plan
	// at each N before its first timed one (the provider's first start and the API server's
	// discovery cache); the others share one warm-up plan at the smallest N.
	peer bool
	dirs map[int]string
}

// timedConfigs are ours, the floor, the do-nothing provider and, with make k8s-up's API server
// and providers (scripts/k8s.sh env), the kubernetes_manifest and kubectl_manifest peers.
func (r *report) timedConfigs(e *tfEnv) []*timedConfig {
	cs := []*timedConfig{
		{prefix: "ours", what: "ours", config: func(n int) string { return oursConfig(n, 1, "bench", broadReqs) }, times: r.ours},
		{prefix: "floor", what: "terraform_data", config: floorConfig, times: r.floor},
		{prefix: "null", what: "the do-nothing provider", config: nullConfig, times: r.null},
	}
	kc := os.Getenv("KARPENTER_TEST_KUBECONFIG")
	if kc == "" {
		say(`KARPENTER_TEST_KUBECONFIG is unset (make k8s-up; eval "$(scripts/k8s.sh env)"): the manifest peers are left out`)
		return cs
	}
	if e.kubeRC != "" {
		cs = append(cs, &timedConfig{prefix: "k8sm", what: "kubernetes_manifest", peer: true, times: r.kube,
			config: func(n int) string { return kubeManifestConfig(n, kc) }})
	}
	if e.kubectlRC != "" {
		cs = append(cs, &timedConfig{prefix: "kubectl", what: "kubectl_manifest", peer: true, times: r.kubectl,
			config: func(n int) string { return kubectlManifestConfig(n, kc) }})
	}
	return cs
}

// timedPlans writes the configurations and plans them with empty state, interleaved: in each of
// -reps rounds every configuration at every N, then the narrow pools at the largest N. Each
// timed run is recorded for its median.
func (r *report) timedPlans(s *tfSession) error {
	cs := r.timedConfigs(s.e)
	var whats []string
	for _, c := range cs {
		c.dirs = map[int]string{}
		for _, n := range r.o.pools {
			d, err := s.e.dir(fmt.Sprintf("%s-%d", c.prefix, n), c.config(n))
			if err != nil {
				return err
			}
			c.dirs[n] = d
		}
		whats = append(whats, c.what)
	}
	s.oursDir = cs[0].dirs
	maxN := r.o.pools[len(r.o.pools)-1]
	var err error
	if s.narrowDir, err = s.e.dir(fmt.Sprintf("narrow-%d", maxN), oursConfig(maxN, 1, "bench", narrowReqs)); err != nil {
		return err
	}
	say("warm-up: one plan of ours, the floor and the do-nothing provider at N = %d", r.o.pools[0])
	for _, c := range cs {
		if !c.peer {
			if _, err := s.plan(c.dirs[r.o.pools[0]], false); err != nil {
				return err
			}
		}
	}
	for i := range r.o.reps {
		for _, n := range r.o.pools {
			say("timed plan %d/%d, N = %d: %s", i+1, r.o.reps, n, strings.Join(whats, ", "))
			for _, c := range cs {
				if c.peer && i == 0 {
					if _, err := s.plan(c.dirs[n], false); err != nil {
						return err
					}
				}
				res, err := s.plan(c.dirs[n], false)
				if err != nil {
					return err
				}
				c.times[n] = append(c.times[n], res.wall)
			}
		}
		say("timed plan %d/%d, N = %d, narrow pools", i+1, r.o.reps, maxN)
		nr, err := s.plan(s.narrowDir, false)
		if err != nil {
			return err
		}
		r.narrow = append(r.narrow, nr.wall)
	}
	return nil
}
