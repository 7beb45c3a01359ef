package prefixblocks

import (
	"fmt"
	"slices"
	"testing"
)

// FuzzCompute draws a subnet of /24 to /28 and addresses, prefixes and reservations in and
// around it from the fuzzer's bytes: Compute never panics, agrees with the address-by-address
// count, and its counts are consistent.
func FuzzCompute(f *testing.F) {
	f.Add(uint8(24), []byte{5, 20, 37}, uint8(3), uint8(1))
	f.Add(uint8(28), []byte{}, uint8(0), uint8(0))
	f.Add(uint8(26), []byte{0, 1, 2, 3, 255}, uint8(17), uint8(200))
	f.Fuzz(func(t *testing.T, bits uint8, offsets []byte, prefixAt, reservationAt uint8) {
		bits = 24 + bits%5
		size := 1 << (32 - int(bits))
		in := Subnet{CIDR: fmt.Sprintf("10.1.2.0/%d", bits)}
		for _, o := range offsets {
			in.Addresses = append(in.Addresses, fmt.Sprintf("10.1.2.%d", int(o)%min(size+16, 256)))
		}
		if prefixAt%2 == 1 {
			in.Prefixes = append(in.Prefixes, fmt.Sprintf("10.1.2.%d/28", int(prefixAt)%size/16*16))
		}
		if reservationAt > 0 {
			typ := []string{ReservationExplicit, ReservationPrefix}[reservationAt%2]
			in.Reservations = append(in.Reservations, Reservation{CIDR: fmt.Sprintf("10.1.2.%d/%d", int(reservationAt)%size, 26+int(reservationAt)%5), Type: typ})
		}
		got, err := Compute(in)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		if want := naive(t, in); !slices.Equal(got.Free, want) {
			t.Fatalf("%+v: free %v, address by address %v", in, got.Free, want)
		}
		if got.Count() > got.Blocks || got.LargestRun > got.Count() || got.InPrefixReservations > got.Count() {
			t.Fatalf("%+v: inconsistent counts %+v", in, got)
		}
	})
}
