package awsclient

import (
	"maps"
	"slices"
	"strings"
)

// ScopeTable is the IAM guide's table of the published statements, in Markdown: per statement
// its Sid, capability, actions, resource scope and conditions. cmd/gen-iam-policy writes it into
// the guide's template between ScopeTableBegin and ScopeTableEnd.
func ScopeTable() string {
	var b strings.Builder
	b.WriteString("| statement | capability | actions | resource scope | conditions |\n|---|---|---|---|---|\n")
	for _, s := range Statements {
		title := s.Capability
		if i := slices.IndexFunc(Capabilities, func(c Capability) bool { return c.Name == s.Capability }); i >= 0 {
			title = Capabilities[i].Title
		}
		var actions []string
		for _, a := range s.Actions {
			actions = append(actions, "`"+a+"`")
		}
		var resources []string
		for _, r := range s.Resources {
			resources = append(resources, "`"+r+"`")
		}
		b.WriteString("| `" + s.Sid + "` | " + title + " | " + strings.Join(actions, ", ") + " | " + s.Scope + ": " +
			strings.Join(resources, ", ") + " | " + conditionWords(s.Condition) + " |\n")
	}
	return b.String()
}

// The markers around the generated table in templates/guides/iam-permissions.md.tmpl.
const (
	ScopeTableBegin = "<!-- iam-scope-table:begin -->"
	ScopeTableEnd   = "<!-- iam-scope-table:end -->"
)

var operatorWords = map[string]string{"StringEquals": "=", "StringLike": "like"}

// conditionWords writes a condition block as "`key` = `value`", one test after another; "none"
// without one.
func conditionWords(c map[string]map[string][]string) string {
	if len(c) == 0 {
		return "none"
	}
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(c)) {
		word := operatorWords[op]
		if word == "" {
			word = op
		}
		for _, key := range slices.Sorted(maps.Keys(c[op])) {
			var vals []string
			for _, v := range c[op][key] {
				vals = append(vals, "`"+v+"`")
			}
			parts = append(parts, "`"+key+"` "+word+" "+strings.Join(vals, " or "))
		}
	}
	return strings.Join(parts, "; ")
}
