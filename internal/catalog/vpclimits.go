package catalog

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// VPCLimits is one instance type's network limits as the VPC resource controller's table gives
// them (testdata/vpc-limits.tsv, written by cmd/gen-vpc-limits from the same input as
// zz_generated_trunking.go). The provider reads these figures from EC2; the table is test data
// that independent sources are checked against.
type VPCLimits struct {
	ENIs             int    // ENIs on all network cards together
	IPv4PerENI       int    // IPv4 addresses per ENI
	DefaultCardIndex int    // the network card the primary ENI is on
	CardENIs         []int  // ENIs per network card, by card index
	Hypervisor       string // "nitro", "xen", or "" (bare metal)
	BareMetal        bool
}

// VPCLimitsColumns names the table's columns, in order.
var VPCLimitsColumns = []string{"instance_type", "enis", "ipv4_per_eni", "default_card_index", "card_enis", "hypervisor", "bare_metal"}

// ParseVPCLimits reads the vpc-limits.tsv format: one tab-separated row per instance type with
// the VPCLimitsColumns (card_enis lists the cards' ENIs joined by '|'), '#' comment lines and
// blank lines ignored. A repeated type is an error, and so is a row whose cards do not add up
// to its ENIs or whose default card is not one of its cards.
func ParseVPCLimits(r io.Reader) (map[string]VPCLimits, error) {
	out := make(map[string]VPCLimits)
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		name, l, err := parseVPCLimitsRow(text)
		if err != nil {
			return nil, fmt.Errorf("vpc-limits line %d: %w", line, err)
		}
		if _, ok := out[name]; ok {
			return nil, fmt.Errorf("vpc-limits line %d: %s listed twice", line, name)
		}
		out[name] = l
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vpc-limits: %w", err)
	}
	return out, nil
}

func parseVPCLimitsRow(text string) (string, VPCLimits, error) {
	f := strings.Split(text, "\t")
	if len(f) != len(VPCLimitsColumns) || f[0] == "" {
		return "", VPCLimits{}, fmt.Errorf("want %d tab-separated columns (%s), got %q",
			len(VPCLimitsColumns), strings.Join(VPCLimitsColumns, ", "), text)
	}
	var l VPCLimits
	var err error
	number := func(s string) int {
		n, e := strconv.Atoi(s)
		if e != nil || n < 0 {
			err = fmt.Errorf("%s: bad count %q", f[0], s)
		}
		return n
	}
	l.ENIs = number(f[1])
	l.IPv4PerENI = number(f[2])
	l.DefaultCardIndex = number(f[3])
	sum := 0
	for c := range strings.SplitSeq(f[4], "|") {
		n := number(c)
		l.CardENIs = append(l.CardENIs, n)
		sum += n
	}
	l.Hypervisor = f[5]
	l.BareMetal, _ = strconv.ParseBool(f[6])
	switch {
	case err != nil:
		return "", VPCLimits{}, err
	case f[6] != strconv.FormatBool(l.BareMetal):
		return "", VPCLimits{}, fmt.Errorf("%s: bare_metal must be true or false, got %q", f[0], f[6])
	case sum != l.ENIs:
		return "", VPCLimits{}, fmt.Errorf("%s: the cards' ENIs (%s) do not add up to %d", f[0], f[4], l.ENIs)
	case l.DefaultCardIndex >= len(l.CardENIs):
		return "", VPCLimits{}, fmt.Errorf("%s: default card %d of %d cards", f[0], l.DefaultCardIndex, len(l.CardENIs))
	}
	return f[0], l, nil
}

// FormatVPCLimitsRow is the ParseVPCLimits row for one type, without the newline.
func FormatVPCLimitsRow(name string, l VPCLimits) string {
	cards := make([]string, len(l.CardENIs))
	for i, c := range l.CardENIs {
		cards[i] = strconv.Itoa(c)
	}
	return strings.Join([]string{name, strconv.Itoa(l.ENIs), strconv.Itoa(l.IPv4PerENI), strconv.Itoa(l.DefaultCardIndex),
		strings.Join(cards, "|"), l.Hypervisor, strconv.FormatBool(l.BareMetal)}, "\t")
}
