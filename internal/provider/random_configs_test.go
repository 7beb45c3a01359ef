package provider

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// EnvRandomConfigs sets how many random configurations TestRandomConfigurationsNeverCrash
// plans (make fuzz sets 10000); unset, a short run's count.
const EnvRandomConfigs = "KARPENTER_RANDOM_CONFIGS"

const (
	defaultRandomConfigs = 500
	typeClass            = "karpenter_node_class"
	typePool             = "karpenter_node_pool"
	typeOverlay          = "karpenter_node_overlay"
)

// randomRun plans configurations through the provider's protocol server, configured against
// the in-memory world, and tallies what came back.
type randomRun struct {
	t     *testing.T
	srv   tfprotov6.ProviderServer
	w     *world
	gen   *configGen
	types map[string]tftypes.Object
	attrs map[string]map[string]*tfprotov6.SchemaAttribute
	// seeds are Karpenter's examples as configurations, by resource type.
	seeds map[string][]tftypes.Value
	// classes and overlays are the `resolved` values of planned classes and overlays, which pools
	// plan with.
	classes, overlays []tftypes.Value
	n                 runCounts
}

// runCounts is what a run saw.
type runCounts struct {
	configs, fromExamples, validated, planned, cleanPlans    int
	examplesPlanned, examplesClean                           int
	errors, warnings, panics, mutating, pathless, unresolved int
	byType                                                   map[string]int
	mutations                                                map[string]int // mutating calls by operation
	pathlessSummaries, errorKinds                            map[string]int
	panicDetails, unresolvedPaths, pathlessDetails           []string
	awsCalls                                                 int
}

// Random class, pool and overlay configurations, within the schemas (valid and invalid values,
// values known only after apply) and mutations of Karpenter's own examples, validated and
// planned as new resources through the provider's protocol server against in-memory EC2, IAM
// and SSM: no call panics, no plan writes to AWS, and every error diagnostic names an attribute
// of the resource's schema.
func TestRandomConfigurationsNeverCrash(t *testing.T) {
	count := defaultRandomConfigs
	if testing.Short() {
		count = 100
	}
	if s := os.Getenv(EnvRandomConfigs); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: want a positive count", EnvRandomConfigs, s)
		}
		count = n
	}
	run := newRandomRun(t, 1)
	for i := range count {
		run.one(i)
	}
	run.report()
}

func newRandomRun(t *testing.T, seed uint64) *randomRun {
	t.Helper()
	w := newWorld()
	srv, err := serverOf(func() *karpenterProvider { return &karpenterProvider{version: "test", newClient: w.client} })()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	run := &randomRun{t: t, srv: srv, w: w, gen: &configGen{r: rand.New(rand.NewPCG(seed, 0x5eed)), unknown: 0.02},
		types: map[string]tftypes.Object{}, attrs: map[string]map[string]*tfprotov6.SchemaAttribute{},
		n: runCounts{byType: map[string]int{}, mutations: map[string]int{}, pathlessSummaries: map[string]int{}, errorKinds: map[string]int{}}}
	for _, name := range []string{typeClass, typePool, typeOverlay} {
		s := schemas.ResourceSchemas[name]
		run.types[name] = s.ValueType().(tftypes.Object)
		run.attrs[name] = map[string]*tfprotov6.SchemaAttribute{}
		for _, a := range s.Block.Attributes {
			run.attrs[name][a.Name] = a
		}
	}
	classes, pools := karpenterExamples(t, run.types[typeClass], run.types[typePool])
	if len(classes) < 10 || len(pools) < 10 {
		t.Fatalf("%d classes and %d pools among Karpenter's examples, want 10 of each", len(classes), len(pools))
	}
	run.seeds = map[string][]tftypes.Value{typeClass: classes, typePool: pools, typeOverlay: overlaySeeds(t, run.types[typeOverlay])}
	run.configure(schemas.Provider)
	return run
}

// configure configures the provider as a cluster's provider block does.
func (r *randomRun) configure(s *tfprotov6.Schema) {
	typ := s.ValueType().(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for k, v := range map[string]string{"region": worldRegion, "cluster_name": worldCluster, "cluster_endpoint": testClusterEndpoint,
		"cluster_certificate_authority_data": testClusterCA, "cluster_service_cidr": testServiceCIDR, "kubernetes_version": "1.33"} {
		vals[k] = tftypes.NewValue(tftypes.String, v)
	}
	gates := typ.AttributeTypes["karpenter_feature_gates"]
	vals["karpenter_feature_gates"] = tftypes.NewValue(gates, []tftypes.Value{tftypes.NewValue(tftypes.String, "NodeOverlay")})
	cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := r.srv.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: &cfg})
	if err != nil {
		r.t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			r.t.Fatalf("configure: %s: %s", d.Summary, d.Detail)
		}
	}
	r.w.mutations() // the configure's reads are not a plan's
}

// draw is the i-th configuration: its resource type and value.
func (r *randomRun) draw(i int) (string, tftypes.Value, bool) {
	g := r.gen
	typeName := [...]string{typeClass, typeClass, typePool, typePool, typeOverlay}[i%5]
	typ := r.types[typeName]
	var v tftypes.Value
	g.clean = g.chance(0.5)
	example := false
	if seeds := r.seeds[typeName]; len(seeds) > 0 && g.chance(0.5) {
		example = true
		r.n.fromExamples++
		g.clean = false
		v = r.mutate(typeName, seeds[g.r.IntN(len(seeds))])
	} else {
		v = g.attrs(typ, slices.Collect(maps.Values(r.attrs[typeName])))
	}
	if typeName == typePool {
		v = r.withPlannedValues(v)
	}
	return typeName, v, example
}

// mutate changes a few of the configurable values of an example, and now and then none.
func (r *randomRun) mutate(typeName string, v tftypes.Value) tftypes.Value {
	p := [...]float64{0, 0.02, 0.05, 0.1}[r.gen.r.IntN(4)]
	attrs := attributesOf(v)
	for name, a := range r.attrs[typeName] {
		if a.Optional || a.Required {
			attrs[name] = r.gen.mutate(name, attrs[name], p)
		}
	}
	return tftypes.NewValue(v.Type(), attrs)
}

// withPlannedValues gives most pools a class, and some overlays, that planned.
func (r *randomRun) withPlannedValues(v tftypes.Value) tftypes.Value {
	g := r.gen
	attrs := attributesOf(v)
	if len(r.classes) > 0 && g.chance(0.8) {
		attrs["node_class"] = r.classes[g.r.IntN(len(r.classes))]
	}
	if len(r.overlays) > 0 && g.chance(0.3) {
		at := r.types[typePool].AttributeTypes["node_overlays"]
		var elems []tftypes.Value
		for range 1 + g.r.IntN(2) {
			elems = append(elems, r.overlays[g.r.IntN(len(r.overlays))])
		}
		attrs["node_overlays"] = tftypes.NewValue(at, elems)
	}
	return tftypes.NewValue(v.Type(), attrs)
}

// one validates the i-th configuration and, when it is valid, plans it as a new resource.
func (r *randomRun) one(i int) {
	typeName, v, example := r.draw(i)
	r.n.configs++
	r.n.byType[typeName]++
	dv, err := tfprotov6.NewDynamicValue(v.Type(), v)
	if err != nil {
		r.t.Fatalf("config %d: %v", i, err)
	}
	ctx := context.Background()
	vresp, err := r.validate(ctx, typeName, &dv)
	if err != nil {
		r.t.Fatalf("config %d: validate: %v", i, err)
	}
	r.n.validated++
	if r.tally(i, typeName, "validate", vresp.Diagnostics, v) {
		r.checkWrites(i, typeName, "validate", v)
		return
	}
	prior, _ := tfprotov6.NewDynamicValue(v.Type(), tftypes.NewValue(v.Type(), nil))
	presp, err := r.plan(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typeName, Config: &dv, PriorState: &prior, ProposedNewState: &dv})
	if err != nil {
		r.t.Fatalf("config %d: plan: %v", i, err)
	}
	r.n.planned++
	if example {
		r.n.examplesPlanned++
	}
	failed := r.tally(i, typeName, "plan", presp.Diagnostics, v)
	r.checkWrites(i, typeName, "plan", v)
	if !failed {
		r.n.cleanPlans++
		if example {
			r.n.examplesClean++
		}
		r.keepResolved(typeName, presp.PlannedState)
	}
}

// validate and plan call the server, a panic that escapes the guard counted as one.
func (r *randomRun) validate(ctx context.Context, typeName string, dv *tfprotov6.DynamicValue) (resp *tfprotov6.ValidateResourceConfigResponse, err error) {
	defer r.escaped(func(d *tfprotov6.Diagnostic) {
		resp = &tfprotov6.ValidateResourceConfigResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}
	})
	return r.srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: dv})
}

func (r *randomRun) plan(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (resp *tfprotov6.PlanResourceChangeResponse, err error) {
	defer r.escaped(func(d *tfprotov6.Diagnostic) {
		resp = &tfprotov6.PlanResourceChangeResponse{Diagnostics: []*tfprotov6.Diagnostic{d}}
	})
	return r.srv.PlanResourceChange(ctx, req)
}

func (r *randomRun) escaped(set func(*tfprotov6.Diagnostic)) {
	if v := recover(); v != nil {
		set(&tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: crashSummary,
			Detail: fmt.Sprintf("escaped the guard: %v", v)})
	}
}

const crashSummary = "Internal error in the karpenter provider"

// tally counts a call's diagnostics and reports whether any is an error.
func (r *randomRun) tally(i int, typeName, call string, diags []*tfprotov6.Diagnostic, v tftypes.Value) bool {
	failed := false
	for _, d := range diags {
		if d.Severity != tfprotov6.DiagnosticSeverityError {
			r.n.warnings++
			continue
		}
		failed = true
		r.n.errors++
		r.n.errorKinds[typeName+" "+call+": "+d.Summary+" @ "+firstStep(d.Attribute)]++
		switch {
		case d.Summary == crashSummary:
			r.n.panics++
			r.n.panicDetails = append(r.n.panicDetails, fmt.Sprintf("config %d (%s %s): %s\n%s", i, typeName, call, d.Detail, showConfig(v)))
		case d.Attribute == nil || len(d.Attribute.Steps()) == 0:
			r.n.pathless++
			key := typeName + " " + call + ": " + d.Summary
			if r.n.pathlessSummaries[key]++; r.n.pathlessSummaries[key] <= 3 {
				r.n.pathlessDetails = append(r.n.pathlessDetails, key+": "+d.Detail)
			}
		default:
			if name, ok := d.Attribute.Steps()[0].(tftypes.AttributeName); !ok || r.attrs[typeName][string(name)] == nil {
				r.n.unresolved++
				r.n.unresolvedPaths = append(r.n.unresolvedPaths, fmt.Sprintf("%s %s: %s at %s", typeName, call, d.Summary, d.Attribute))
			}
		}
	}
	return failed
}

// checkWrites counts the calls since the last check that were not reads.
func (r *randomRun) checkWrites(i int, typeName, call string, v tftypes.Value) {
	byOp, calls := r.w.mutations()
	r.n.awsCalls += calls
	for op, n := range byOp {
		r.n.mutating += n
		r.n.mutations[op] += n
		r.t.Errorf("config %d (%s %s) called %s %d times:\n%s", i, typeName, call, op, n, showConfig(v))
	}
}

// keepResolved keeps a planned class's or overlay's `resolved`, when known, for pools to plan with.
func (r *randomRun) keepResolved(typeName string, planned *tfprotov6.DynamicValue) {
	if planned == nil || typeName == typePool {
		return
	}
	v, err := planned.Unmarshal(r.types[typeName])
	if err != nil {
		r.t.Fatalf("%s planned state: %v", typeName, err)
	}
	resolved := objectAttrs(v)["resolved"]
	if !resolved.IsFullyKnown() || resolved.IsNull() {
		return
	}
	keep := &r.classes
	if typeName == typeOverlay {
		keep = &r.overlays
	}
	if len(*keep) < 64 {
		*keep = append(*keep, resolved)
	} else {
		(*keep)[r.gen.r.IntN(len(*keep))] = resolved
	}
}

// attributesOf are an object's attributes, in a map of their own (tftypes.Value.As hands out
// the value's own map, which a change would write through).
func attributesOf(v tftypes.Value) map[string]tftypes.Value {
	var shared map[string]tftypes.Value
	_ = v.As(&shared)
	return maps.Clone(shared)
}

func firstStep(p *tftypes.AttributePath) string {
	if p == nil || len(p.Steps()) == 0 {
		return "(none)"
	}
	if name, ok := p.Steps()[0].(tftypes.AttributeName); ok {
		return string(name)
	}
	return "?"
}

// commonErrors are the n most frequent kinds of error, most frequent first.
func commonErrors(kinds map[string]int, n int) []string {
	keys := slices.Sorted(maps.Keys(kinds))
	slices.SortStableFunc(keys, func(a, b string) int { return kinds[b] - kinds[a] })
	out := make([]string, 0, n)
	for _, k := range keys[:min(n, len(keys))] {
		out = append(out, fmt.Sprintf("%dx %s", kinds[k], k))
	}
	return out
}

func showConfig(v tftypes.Value) string {
	s := v.String()
	if len(s) > 4000 {
		s = s[:4000] + "…"
	}
	return s
}

// report logs the counts and fails on a panic, a write or an error diagnostic off the schema.
func (r *randomRun) report() {
	n := r.n
	r.t.Logf("random configurations: %d (classes %d, pools %d, overlays %d; %d mutated from Karpenter's %d+%d examples)",
		n.configs, n.byType[typeClass], n.byType[typePool], n.byType[typeOverlay], n.fromExamples,
		len(r.seeds[typeClass]), len(r.seeds[typePool]))
	r.t.Logf("validated %d, planned %d, plans without error %d (of examples: %d, %d); AWS calls %d", n.validated, n.planned,
		n.cleanPlans, n.examplesPlanned, n.examplesClean, n.awsCalls)
	r.t.Logf("diagnostics: errors %d, warnings %d; panics %d, mutating calls %d, errors without path %d, errors off the schema %d",
		n.errors, n.warnings, n.panics, n.mutating, n.pathless, n.unresolved)
	for _, s := range slices.Sorted(maps.Keys(n.pathlessSummaries)) {
		r.t.Logf("  without path: %dx %s", n.pathlessSummaries[s], s)
	}
	r.t.Logf("most frequent errors:\n  %s", strings.Join(commonErrors(n.errorKinds, 12), "\n  "))
	for _, d := range n.pathlessDetails {
		r.t.Logf("  %s", d)
	}
	for _, p := range n.panicDetails[:min(len(n.panicDetails), 5)] {
		r.t.Errorf("panic: %s", p)
	}
	for _, p := range n.unresolvedPaths[:min(len(n.unresolvedPaths), 5)] {
		r.t.Errorf("error off the schema: %s", p)
	}
	if n.pathless > 0 {
		r.t.Errorf("%d error diagnostics carry no attribute path:\n%s", n.pathless, strings.Join(n.pathlessDetails, "\n"))
	}
	if n.planned == 0 || n.cleanPlans == 0 {
		r.t.Errorf("no configuration planned cleanly: the run tests nothing past validation")
	}
}
