// Package attrpath is the structured attribute path the pure packages put on their findings:
// names, list indexes and map keys, in Terraform's attribute names. The Terraform shell turns
// it into the framework's path.Path; nothing formats a path into a string to parse it back.
package attrpath

import (
	"strconv"
	"strings"
)

// Kind tells what a step selects.
type Kind int

const (
	// Attr selects a nested attribute (Name).
	Attr Kind = iota
	// Index selects a list element (Index).
	Index
	// Key selects a map element (Name is the key).
	Key
)

// Step is one step of a path.
type Step struct {
	Kind  Kind
	Name  string
	Index int
}

// Path is an attribute path; the zero value is the resource itself.
type Path struct{ steps []Step }

// Of is the path of nested attribute names, e.g. Of("kubelet", "max_pods").
func Of(names ...string) Path { return Path{}.Attr(names...) }

// Attr appends attribute names.
func (p Path) Attr(names ...string) Path {
	out := p.with(len(names))
	for _, n := range names {
		out.steps = append(out.steps, Step{Kind: Attr, Name: n})
	}
	return out
}

// Index appends a list index.
func (p Path) Index(i int) Path {
	out := p.with(1)
	out.steps = append(out.steps, Step{Kind: Index, Index: i})
	return out
}

// Key appends a map key.
func (p Path) Key(k string) Path {
	out := p.with(1)
	out.steps = append(out.steps, Step{Kind: Key, Name: k})
	return out
}

// with copies the steps, with room for n more: paths share no backing array.
func (p Path) with(n int) Path {
	steps := make([]Step, len(p.steps), len(p.steps)+n)
	copy(steps, p.steps)
	return Path{steps: steps}
}

// Steps are the path's steps, root first.
func (p Path) Steps() []Step { return p.steps }

// IsEmpty reports whether the path is the resource itself.
func (p Path) IsEmpty() bool { return len(p.steps) == 0 }

// String writes the path in Terraform's notation: template.requirements[1].values,
// tags["team"].
func (p Path) String() string {
	var b strings.Builder
	for _, s := range p.steps {
		switch s.Kind {
		case Index:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case Key:
			b.WriteString("[" + strconv.Quote(s.Name) + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		}
	}
	return b.String()
}
