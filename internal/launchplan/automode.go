package launchplan

import "strings"

// autoModeFamilies are the instance families EKS Auto Mode launches, by category, as the EKS user
// guide lists them (https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html,
// "Supported instance reference"). A type of another family is not launched by Auto Mode.
var autoModeFamilies = func() map[string]bool {
	out := map[string]bool{}
	for _, group := range []string{
		// C
		"c8id c8i c8i-flex c8gd c8gn c8g c8a c8gb c7a c7g c7gn c7gd c7i c7i-flex c6a c6g c6i c6gn c6id c6in c6gd c5 c5a c5d c5ad c5n c4",
		// M
		"m8id m8i m8i-flex m8a m8azn m8gn m8gb m8gd m8g m7i m7a m7g m7gd m7i-flex m6a m6i m6in m6g m6idn m6id m6gd m5 m5a m5ad m5n m5dn m5d m5zn m4",
		// R
		"r8id r8i r8i-flex r8gn r8gb r8gd r8g r8a r7a r7iz r7gd r7i r7g r6a r6i r6id r6in r6idn r6g r6gd r5 r5n r5a r5dn r5b r5ad r5d r4",
		// T
		"t4g t3 t3a t2",
		// Z and X
		"z1d x8aedz x8g x8i x2gd",
		// I and D
		"i8ge i7i i8g i7ie i4g i4i i3 i3en is4gen d3 d3en im4gn",
		// P, G, Inf and Trn
		"p6-b200 p6-b300 p5 p5e p5en p4d p4de p3dn g7e g6 gr6 g6e g5g g5 g4dn g4ad inf2 inf1 trn1 trn1n trn2",
		// HPC and X2
		"hpc8a x2iezn x2iedn x2idn",
	} {
		for _, f := range strings.Fields(group) {
			out[f] = true
		}
	}
	return out
}()

// AutoModeFamily reports whether EKS Auto Mode launches the instance type's family.
func AutoModeFamily(instanceType string) bool {
	family, _, _ := strings.Cut(instanceType, ".")
	return autoModeFamilies[family]
}
