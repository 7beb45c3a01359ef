package catalog

// trunkLimit is one entry of the generated trunking table (zz_generated_trunking.go).
type trunkLimit struct {
	compatible bool
	branches   int
}

// Trunking reports whether the VPC resource controller can give an instance type a trunk ENI for
// security groups for pods, and how many branch ENIs (pods with their own security groups) it
// then carries. EC2 does not say; the figures come from the generated table. known is false for
// a type the table does not list (newer than the table).
func Trunking(instanceType string) (compatible bool, branches int, known bool) {
	t, ok := trunking[instanceType]
	return t.compatible, t.branches, ok
}
