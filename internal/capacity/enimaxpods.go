package capacity

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseENIMaxPods reads the amazon-eks-ami eni-max-pods.txt format: one
// "<instance type> <max pods>" pair per line, with '#' comment lines and blank
// lines ignored. A repeated type with a different value is an error.
func ParseENIMaxPods(r io.Reader) (map[string]int, error) {
	out := make(map[string]int)
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fmt.Errorf("eni-max-pods line %d: want \"<type> <pods>\", got %q", line, text)
		}
		pods, err := strconv.Atoi(fields[1])
		if err != nil || pods < 0 {
			return nil, fmt.Errorf("eni-max-pods line %d: bad pod count %q", line, fields[1])
		}
		if prev, ok := out[fields[0]]; ok && prev != pods {
			return nil, fmt.Errorf("eni-max-pods line %d: %s listed as %d and %d", line, fields[0], prev, pods)
		}
		out[fields[0]] = pods
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eni-max-pods: %w", err)
	}
	return out, nil
}
