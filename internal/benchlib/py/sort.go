package py

import "cmp"

// Descending orders by key, highest first, for slices.SortStableFunc:
// ties keep their order, as the stable sorts of the official scripts.
func Descending[T any, K cmp.Ordered](key func(T) K) func(a, b T) int {
	return func(a, b T) int { return cmp.Compare(key(b), key(a)) }
}
