package launchplan

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// decimalRE is the number part of a quantity: digits, an optional fraction, an optional exponent.
var decimalRE = regexp.MustCompile(`^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,2})?$`)

// quantitySuffixes are the Kubernetes quantity suffixes, longest first so "Mi" wins over "M".
var quantitySuffixes = []struct {
	suffix string
	factor *big.Rat
}{
	{"Ki", ratPow(2, 10)}, {"Mi", ratPow(2, 20)}, {"Gi", ratPow(2, 30)}, {"Ti", ratPow(2, 40)},
	{"Pi", ratPow(2, 50)}, {"Ei", ratPow(2, 60)},
	{"m", big.NewRat(1, 1000)},
	{"k", ratPow(10, 3)}, {"M", ratPow(10, 6)}, {"G", ratPow(10, 9)}, {"T", ratPow(10, 12)},
	{"P", ratPow(10, 15)}, {"E", ratPow(10, 18)},
}

func ratPow(base, exp int64) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(base), big.NewInt(exp), nil))
}

// parseQuantity reads a Kubernetes quantity ("1000", "0.5", "500m", "10k", "1000Gi", "1e3") as an
// exact rational in base units (cores for cpu, bytes for memory). Negative values are rejected:
// no limit is negative.
func parseQuantity(s string) (*big.Rat, error) {
	num := strings.TrimSpace(s)
	if num == "" {
		return nil, fmt.Errorf("empty quantity")
	}
	factor := big.NewRat(1, 1)
	for _, q := range quantitySuffixes {
		if strings.HasSuffix(num, q.suffix) {
			num, factor = strings.TrimSuffix(num, q.suffix), q.factor
			break
		}
	}
	if !decimalRE.MatchString(num) {
		return nil, fmt.Errorf("%q is not a non-negative quantity such as 1000, 500m, 64Gi or 10", s)
	}
	v, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, fmt.Errorf("%q is not a non-negative quantity such as 1000, 500m, 64Gi or 10", s)
	}
	return v.Mul(v, factor), nil
}

// floorDiv is floor(q / per) as an int, saturating at a large bound; per must be positive.
func floorDiv(q *big.Rat, per int64) int {
	d := new(big.Rat).Quo(q, big.NewRat(per, 1))
	i := new(big.Int).Quo(d.Num(), d.Denom())
	const ceiling = 1 << 40
	if !i.IsInt64() || i.Int64() > ceiling {
		return ceiling
	}
	return int(i.Int64())
}
