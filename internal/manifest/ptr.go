package manifest

// Int32 is the manifest's form of an optional count (nil stays nil).
func Int32(p *int) *int32 {
	if p == nil {
		return nil
	}
	v := int32(*p)
	return &v
}

// Int64 is the manifest's form of an optional count (nil stays nil).
func Int64(p *int) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}
