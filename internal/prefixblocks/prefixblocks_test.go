package prefixblocks

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"
)

func TestCompute(t *testing.T) {
	// oneAddressPerBlock are addresses 10.0.0.(16k+5) for blocks from..to of a 10.0.0.0/24.
	oneAddressPerBlock := func(from, to int) []string {
		var out []string
		for b := from; b <= to; b++ {
			out = append(out, fmt.Sprintf("10.0.0.%d", b*16+5))
		}
		return out
	}
	for _, tc := range []struct {
		name                    string
		in                      Subnet
		blocks                  int
		free                    []string
		inPrefixRes, largestRun int
	}{
		{name: "a /28 subnet holds AWS's reserved addresses", in: Subnet{CIDR: "10.0.0.0/28"}, blocks: 1},
		{name: "a /27: the first four and the last address take both blocks", in: Subnet{CIDR: "10.0.0.32/27"}, blocks: 2},
		{name: "a /26 keeps its two middle blocks", in: Subnet{CIDR: "10.0.0.64/26"}, blocks: 4,
			free: []string{"10.0.0.80/28", "10.0.0.96/28"}, largestRun: 2},
		{name: "smaller than a /28: no block", in: Subnet{CIDR: "10.0.0.0/29"}},
		{name: "an unmasked CIDR is its network", in: Subnet{CIDR: "10.0.0.70/26"}, blocks: 4,
			free: []string{"10.0.0.80/28", "10.0.0.96/28"}, largestRun: 2},
		{name: "fragmented: 237 free addresses, no free /28", in: Subnet{CIDR: "10.0.0.0/24", Addresses: oneAddressPerBlock(1, 14)}, blocks: 16},
		{name: "one address frees all but its block", in: Subnet{CIDR: "10.0.0.0/26", Addresses: []string{"10.0.0.40"}}, blocks: 4,
			free: []string{"10.0.0.16/28"}, largestRun: 1},
		{name: "addresses outside the subnet and IPv6 addresses are ignored",
			in: Subnet{CIDR: "10.0.0.64/26", Addresses: []string{"10.0.0.16", "10.0.1.80", "2600:1f18::5"}}, blocks: 4,
			free: []string{"10.0.0.80/28", "10.0.0.96/28"}, largestRun: 2},
		{name: "assigned prefixes, a /28 and a wider one", in: Subnet{CIDR: "10.0.0.0/24",
			Prefixes: []string{"10.0.0.16/28", "10.0.0.64/27", "2600:1f18::/80"}}, blocks: 16,
			free:       []string{"10.0.0.32/28", "10.0.0.48/28", "10.0.0.96/28", "10.0.0.112/28", "10.0.0.128/28", "10.0.0.144/28", "10.0.0.160/28", "10.0.0.176/28", "10.0.0.192/28", "10.0.0.208/28", "10.0.0.224/28"},
			largestRun: 9},
		{name: "an explicit reservation takes its blocks, one partly covered too", in: Subnet{CIDR: "10.0.0.0/26",
			Reservations: []Reservation{{CIDR: "10.0.0.24/29", Type: ReservationExplicit}}}, blocks: 4,
			free: []string{"10.0.0.32/28"}, largestRun: 1},
		{name: "a prefix reservation keeps its blocks free for prefixes", in: Subnet{CIDR: "10.0.0.0/24",
			Addresses:    oneAddressPerBlock(1, 14),
			Reservations: []Reservation{{CIDR: "10.0.0.0/24", Type: ReservationPrefix}}}, blocks: 16},
		{name: "free blocks inside a prefix reservation are counted", in: Subnet{CIDR: "10.0.0.0/24",
			Addresses:    append(oneAddressPerBlock(1, 3), oneAddressPerBlock(8, 14)...),
			Prefixes:     []string{"10.0.0.64/28"},
			Reservations: []Reservation{{CIDR: "10.0.0.64/26", Type: ReservationPrefix}}}, blocks: 16,
			free: []string{"10.0.0.80/28", "10.0.0.96/28", "10.0.0.112/28"}, inPrefixRes: 3, largestRun: 3},
		{name: "an unaligned prefix reservation counts only its whole blocks", in: Subnet{CIDR: "10.0.0.0/26",
			Reservations: []Reservation{{CIDR: "10.0.0.24/29", Type: ReservationPrefix}, {CIDR: "10.0.0.32/28", Type: ReservationPrefix}}}, blocks: 4,
			free: []string{"10.0.0.16/28", "10.0.0.32/28"}, inPrefixRes: 1, largestRun: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compute(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var free []string
			for _, p := range got.Free {
				free = append(free, p.String())
			}
			if got.Blocks != tc.blocks || !slices.Equal(free, tc.free) || got.InPrefixReservations != tc.inPrefixRes || got.LargestRun != tc.largestRun {
				t.Errorf("got %d blocks, free %v, %d in prefix reservations, largest run %d; want %d, %v, %d, %d",
					got.Blocks, free, got.InPrefixReservations, got.LargestRun, tc.blocks, tc.free, tc.inPrefixRes, tc.largestRun)
			}
			if got.Count() != len(tc.free) {
				t.Errorf("Count() = %d, want %d", got.Count(), len(tc.free))
			}
		})
	}
}

func TestComputeRefusesMalformedInput(t *testing.T) {
	for _, in := range []Subnet{
		{ID: "subnet-1", CIDR: "10.0.0.0"},
		{ID: "subnet-1", CIDR: "2600:1f18::/64"},
		{ID: "subnet-1", CIDR: "10.0.0.0/24", Addresses: []string{"10.0.0.300"}},
		{ID: "subnet-1", CIDR: "10.0.0.0/24", Prefixes: []string{"10.0.0.16"}},
		{ID: "subnet-1", CIDR: "10.0.0.0/24", Reservations: []Reservation{{CIDR: "10.0.0.16/28", Type: "other"}}},
	} {
		if _, err := Compute(in); err == nil {
			t.Errorf("Compute(%+v): no error", in)
		}
	}
}

// Compute agrees with a block-by-block, address-by-address count on random subnets.
func TestComputeAgreesWithAddressByAddress(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		bits := 22 + r.IntN(7) // /22 ... /28
		base := uint64(10<<24 | r.IntN(1<<8)<<16)
		size := uint64(1) << (32 - bits)
		in := Subnet{CIDR: fmt.Sprintf("%s/%d", uintAddr(base), bits)}
		for range r.IntN(int(size/8) + 1) {
			in.Addresses = append(in.Addresses, uintAddr(base+uint64(r.IntN(int(size)+32))).String())
		}
		for range r.IntN(4) {
			in.Prefixes = append(in.Prefixes, fmt.Sprintf("%s/28", uintAddr(base+uint64(r.IntN(int(size)))/16*16)))
		}
		for range r.IntN(3) {
			typ := []string{ReservationExplicit, ReservationPrefix}[r.IntN(2)]
			in.Reservations = append(in.Reservations, Reservation{CIDR: fmt.Sprintf("%s/%d", uintAddr(base+uint64(r.IntN(int(size)))), 26+r.IntN(5)), Type: typ})
		}
		got, err := Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		want := naive(t, in)
		if !slices.Equal(got.Free, want) {
			t.Fatalf("case %d %+v: free %v, address by address %v", i, in, got.Free, want)
		}
	}
}

// naive checks every address of every block.
func naive(t *testing.T, s Subnet) []netip.Prefix {
	subnet := netip.MustParsePrefix(s.CIDR).Masked()
	used := map[netip.Addr]bool{}
	for _, a := range s.Addresses {
		used[netip.MustParseAddr(a)] = true
	}
	var covered []netip.Prefix
	for _, p := range s.Prefixes {
		covered = append(covered, netip.MustParsePrefix(p).Masked())
	}
	for _, r := range s.Reservations {
		if r.Type == ReservationExplicit {
			covered = append(covered, netip.MustParsePrefix(r.CIDR).Masked())
		}
	}
	first := subnet.Addr()
	var last netip.Addr
	for a := first; subnet.Contains(a); a = a.Next() {
		last = a
	}
	var out []netip.Prefix
	for b := first; subnet.Contains(b); {
		free := true
		a := b
		for range BlockSize {
			if used[a] || a == last || a.Less(first.Next().Next().Next().Next()) ||
				slices.ContainsFunc(covered, func(p netip.Prefix) bool { return p.Contains(a) }) {
				free = false
			}
			a = a.Next()
		}
		if free {
			out = append(out, netip.PrefixFrom(b, BlockBits))
		}
		b = a
	}
	t.Helper()
	return out
}

// A /16 of 4096 blocks with 30,000 addresses in use is computed in well under a plan's budget.
func TestComputeLargeSubnetIsFast(t *testing.T) {
	in := Subnet{CIDR: "10.1.0.0/16"}
	for i := range 30000 {
		in.Addresses = append(in.Addresses, uintAddr(10<<24|1<<16|uint64(i*2)).String())
	}
	start := time.Now()
	got, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 200*time.Millisecond {
		t.Errorf("a /16 took %v", elapsed)
	}
	if got.Blocks != 4096 || got.Count() != 4096-3750-1 { // 60,000 addresses cover 3750 blocks; the last block holds AWS's last address
		t.Errorf("got %d blocks, %d free", got.Blocks, got.Count())
	}
}

func BenchmarkComputeSlash16(b *testing.B) {
	in := Subnet{CIDR: "10.1.0.0/16"}
	for i := range 30000 {
		in.Addresses = append(in.Addresses, uintAddr(10<<24|1<<16|uint64(i*2)).String())
	}
	for b.Loop() {
		if _, err := Compute(in); err != nil {
			b.Fatal(err)
		}
	}
}
