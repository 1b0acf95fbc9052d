package py

// IntSetOrder is list(set(keys)) in CPython (3.7 and later) for
// non-negative ints below 2**61-1, whose hash is the int itself: the
// order of the set's hash table, filled as set() fills it from a list
// (open addressing, 9 linear probes past each slot, then the perturbed
// probe i·5+1+perturb; the table grown to the smallest power of two past
// 4×used, 2× past 50000, once 5×fill reaches 3×mask).
func IntSetOrder(keys []int64) []int64 {
	const linearProbes, perturbShift, minSize = 9, 5, 8
	type slot struct {
		key  int64
		used bool
	}
	table := make([]slot, minSize)
	// insert places a new key; it reports false for one already there.
	insert := func(table []slot, key int64) bool {
		mask := uint64(len(table) - 1)
		perturb := uint64(key)
		i := uint64(key) & mask
		for {
			probes := uint64(0)
			if i+linearProbes <= mask {
				probes = linearProbes
			}
			for j := i; j <= i+probes; j++ {
				if !table[j].used {
					table[j] = slot{key: key, used: true}
					return true
				}
				if table[j].key == key {
					return false
				}
			}
			perturb >>= perturbShift
			i = (i*5 + 1 + perturb) & mask
		}
	}
	used := 0
	for _, k := range keys {
		if !insert(table, k) {
			continue
		}
		used++
		if used*5 < (len(table)-1)*3 {
			continue
		}
		grow := used * 4
		if used > 50000 {
			grow = used * 2
		}
		size := minSize
		for size <= grow {
			size <<= 1
		}
		old := table
		table = make([]slot, size)
		for _, s := range old {
			if s.used {
				insert(table, s.key)
			}
		}
	}
	out := make([]int64, 0, used)
	for _, s := range table {
		if s.used {
			out = append(out, s.key)
		}
	}
	return out
}
