// Package prefixblocks computes the /28 IPv4 prefixes a subnet can still hand to a network
// interface. Prefix delegation (the VPC CNI's ENABLE_PREFIX_DELEGATION, EKS Auto Mode) assigns
// whole /28 prefixes: 16 contiguous addresses aligned on a multiple of 16. A subnet can have
// free addresses but no free aligned /28 when single addresses are scattered over it; EC2 then
// refuses the prefix (InsufficientCidrBlocks) and the node cannot get its pods' addresses
// (aws/amazon-vpc-cni-k8s#2749).
//
// A block is free when none of its addresses is one AWS reserves in every subnet (the first
// four and the last, https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html), an
// address of a network interface (primary or secondary), inside an assigned prefix, or inside
// an explicit subnet CIDR reservation (addresses only their owner assigns). A prefix
// reservation is where AWS assigns prefixes from, and no single address: its blocks stay free
// for prefixes, which makes it the fix for a fragmented subnet
// (https://docs.aws.amazon.com/vpc/latest/userguide/subnet-cidr-reservation.html).
package prefixblocks

import (
	"fmt"
	"net/netip"
)

// BlockBits is the prefix length prefix delegation assigns; BlockSize its addresses.
const (
	BlockBits = 28
	BlockSize = 1 << (32 - BlockBits)
)

// Reservation types of a subnet CIDR reservation (EC2's ReservationType).
const (
	ReservationPrefix   = "prefix"
	ReservationExplicit = "explicit"
)

// Reservation is one IPv4 subnet CIDR reservation.
type Reservation struct {
	CIDR string
	Type string // ReservationPrefix or ReservationExplicit
}

// Subnet is what decides a subnet's free blocks: its IPv4 CIDR and what is taken in it.
type Subnet struct {
	ID   string
	CIDR string
	// Addresses are the private IPv4 addresses of its network interfaces, primary and secondary.
	Addresses []string
	// Prefixes are the IPv4 prefixes assigned to its network interfaces.
	Prefixes     []string
	Reservations []Reservation
}

// Free is the answer for one subnet.
type Free struct {
	// Blocks are the aligned /28 blocks of the subnet (0 for a subnet smaller than a /28).
	Blocks int
	// Free are the blocks still free, in address order.
	Free []netip.Prefix
	// InPrefixReservations is how many of Free lie inside a prefix reservation.
	InPrefixReservations int
	// LargestRun is the most free blocks in a row (contiguous addresses a new prefix
	// reservation could cover).
	LargestRun int
}

// Count is the number of free blocks.
func (f Free) Count() int { return len(f.Free) }

// Compute returns the subnet's free /28 blocks. Addresses, prefixes and reservations outside
// the subnet are ignored; a malformed one is an error, as is a CIDR that is not IPv4.
func Compute(s Subnet) (Free, error) {
	subnet, err := netip.ParsePrefix(s.CIDR)
	if err != nil {
		return Free{}, fmt.Errorf("subnet %s: CIDR %q: %w", s.ID, s.CIDR, err)
	}
	subnet = subnet.Masked()
	if !subnet.Addr().Is4() {
		return Free{}, fmt.Errorf("subnet %s: CIDR %s is not IPv4", s.ID, s.CIDR)
	}
	if subnet.Bits() > BlockBits {
		return Free{}, nil
	}
	g := newGrid(subnet)
	// AWS reserves the first four addresses and the last one of every subnet.
	g.mark(g.taken, g.base, g.base+3)
	g.mark(g.taken, g.base+g.size-1, g.base+g.size-1)
	if err := g.markUsed(s); err != nil {
		return Free{}, err
	}
	if err := g.markReservations(s); err != nil {
		return Free{}, err
	}
	return g.free(), nil
}

// grid is a subnet's /28 blocks: which are taken, and which lie inside a prefix reservation.
type grid struct {
	base, size         uint64
	taken, inPrefixRes []bool
}

func newGrid(subnet netip.Prefix) *grid {
	size := uint64(1) << (32 - subnet.Bits())
	n := int(size / BlockSize)
	return &grid{base: addrUint(subnet.Addr()), size: size, taken: make([]bool, n), inPrefixRes: make([]bool, n)}
}

// mark sets the blocks of set overlapping addresses [lo, hi] of the subnet.
func (g *grid) mark(set []bool, lo, hi uint64) {
	if hi < g.base || lo >= g.base+g.size {
		return
	}
	lo, hi = max(lo, g.base), min(hi, g.base+g.size-1)
	for b := (lo - g.base) / BlockSize; b <= (hi-g.base)/BlockSize; b++ {
		set[b] = true
	}
}

// markUsed takes the blocks of the interfaces' addresses and assigned prefixes.
func (g *grid) markUsed(s Subnet) error {
	for _, a := range s.Addresses {
		ip, err := netip.ParseAddr(a)
		if err != nil {
			return fmt.Errorf("subnet %s: address %q: %w", s.ID, a, err)
		}
		if ip.Is4() {
			v := addrUint(ip)
			g.mark(g.taken, v, v)
		}
	}
	for _, c := range s.Prefixes {
		lo, hi, ok, err := span(c)
		if err != nil {
			return fmt.Errorf("subnet %s: prefix %q: %w", s.ID, c, err)
		}
		if ok {
			g.mark(g.taken, lo, hi)
		}
	}
	return nil
}

// markReservations takes the blocks of explicit reservations and notes those of prefix ones.
func (g *grid) markReservations(s Subnet) error {
	for _, r := range s.Reservations {
		lo, hi, ok, err := span(r.CIDR)
		if err != nil {
			return fmt.Errorf("subnet %s: reservation %q: %w", s.ID, r.CIDR, err)
		}
		switch {
		case !ok:
		case r.Type == ReservationExplicit:
			g.mark(g.taken, lo, hi)
		case r.Type == ReservationPrefix:
			// Only whole blocks inside the reservation are AWS's to assign as prefixes; a
			// reservation that is not /28-aligned leaves its partial blocks to the rest.
			first, last := (lo+BlockSize-1)/BlockSize*BlockSize, (hi+1)/BlockSize*BlockSize
			if last > first {
				g.mark(g.inPrefixRes, first, last-1)
			}
		default:
			return fmt.Errorf("subnet %s: reservation %s: unknown type %q", s.ID, r.CIDR, r.Type)
		}
	}
	return nil
}

// free lists the blocks not taken, with the longest run of them.
func (g *grid) free() Free {
	out := Free{Blocks: len(g.taken)}
	run := 0
	for b := range g.taken {
		if g.taken[b] {
			run = 0
			continue
		}
		out.Free = append(out.Free, netip.PrefixFrom(uintAddr(g.base+uint64(b)*BlockSize), BlockBits))
		if g.inPrefixRes[b] {
			out.InPrefixReservations++
		}
		run++
		out.LargestRun = max(out.LargestRun, run)
	}
	return out
}

// span is the address range of an IPv4 CIDR (ok false for an IPv6 one).
func span(cidr string) (lo, hi uint64, ok bool, err error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return 0, 0, false, err
	}
	p = p.Masked()
	if !p.Addr().Is4() {
		return 0, 0, false, nil
	}
	lo = addrUint(p.Addr())
	return lo, lo + (uint64(1) << (32 - p.Bits())) - 1, true, nil
}

func addrUint(a netip.Addr) uint64 {
	b := a.As4()
	return uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
}

func uintAddr(v uint64) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
