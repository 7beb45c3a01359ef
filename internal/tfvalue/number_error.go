package tfvalue

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// NumberError is a number a whole-number field cannot hold: a fraction, or one out of its range.
// The configuration is at fault, not the provider, so the error says where.
type NumberError struct {
	At    string // the attribute, as Decode writes paths: a.b[0]["k"]
	Value string
}

func (e *NumberError) Error() string {
	return fmt.Sprintf("%s: %s is not a whole number in range", e.At, e.Value)
}

// Path is At as an attribute path; the steps it cannot read end it.
func (e *NumberError) Path() attrpath.Path { return parsePath(e.At) }

// parsePath reads a path as Decode writes it (join, and the [i] and [%q] of lists and maps).
func parsePath(at string) attrpath.Path {
	var p attrpath.Path
	for at != "" {
		switch {
		case strings.HasPrefix(at, "["):
			end := strings.Index(at, "]")
			if strings.HasPrefix(at, `["`) {
				end = closingQuote(at)
			}
			if end < 0 {
				return p
			}
			inner := at[1:end]
			if k, err := strconv.Unquote(inner); err == nil {
				p = p.Key(k)
			} else if i, err := strconv.Atoi(inner); err == nil {
				p = p.Index(i)
			} else {
				return p
			}
			at = strings.TrimPrefix(at[end+1:], ".")
		default:
			end := strings.IndexAny(at, ".[")
			if end < 0 {
				end = len(at)
			}
			p = p.Attr(at[:end])
			at = strings.TrimPrefix(at[end:], ".")
		}
	}
	return p
}

// closingQuote is the index of the ] that closes a ["…"] key at the start of at; -1 if none.
func closingQuote(at string) int {
	for i := 2; i < len(at); i++ {
		switch at[i] {
		case '\\':
			i++
		case '"':
			if i+1 < len(at) && at[i+1] == ']' {
				return i + 1
			}
			return -1
		}
	}
	return -1
}
