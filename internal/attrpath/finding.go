package attrpath

// Finding is one problem (or, reported as a warning, a remark) at an attribute path: the one
// shape every pure package reports in, mapped onto Terraform diagnostics in one place (the
// shell's diagnostics.go). A package that validates part of a resource (a list of selector
// terms, the requirements) reports paths relative to it, and its caller places them with Under.
type Finding struct {
	Path    Path
	Message string
	// Summary names the kind of finding, the diagnostic's summary (WithSummary fills it in).
	Summary string
	// Standalone marks a message that reads on its own: Error is the message without the path
	// in front, which still places the finding (an error that already names its setting, a
	// remark about the whole attribute).
	Standalone bool
}

func (f Finding) Error() string {
	if f.Path.IsEmpty() || f.Standalone {
		return f.Message
	}
	return f.Path.String() + ": " + f.Message
}

// Join is p followed by q's steps.
func (p Path) Join(q Path) Path {
	out := p.with(len(q.steps))
	out.steps = append(out.steps, q.steps...)
	return out
}

// Under places findings with paths relative to base at base.
func Under(base Path, findings []Finding) []Finding {
	out := make([]Finding, len(findings))
	for i, f := range findings {
		f.Path = base.Join(f.Path)
		out[i] = f
	}
	return out
}

// Tail is p without its first step (a finding of a one-element list, placed elsewhere).
func (p Path) Tail() Path {
	if len(p.steps) == 0 {
		return p
	}
	return Path{steps: append([]Step(nil), p.steps[1:]...)}
}

// WithSummary is findings with summary where they have none of their own.
func WithSummary(summary string, findings []Finding) []Finding {
	out := make([]Finding, len(findings))
	for i, f := range findings {
		if f.Summary == "" {
			f.Summary = summary
		}
		out[i] = f
	}
	return out
}
