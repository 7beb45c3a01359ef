package drift

// Output is a dynamic pool's `drift` attribute, shaped as its schema (tfsdk tags).
type Output struct {
	NodePoolHash  *string  `tfsdk:"nodepool_hash"`
	NodeClassHash *string  `tfsdk:"nodeclass_hash"`
	Verdict       *string  `tfsdk:"verdict"` // null for a new pool: no nodes yet
	Reasons       []string `tfsdk:"reasons"`
	Pace          *string  `tfsdk:"pace"`
}
