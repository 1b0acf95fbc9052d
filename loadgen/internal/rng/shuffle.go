package rng

// Shuffle permutes x like std::shuffle(x.begin(), x.end(), g) in libstdc++:
// when the square of the range fits the engine's 32 bits it draws two swap
// positions per engine call (swapping the first pair up front when the
// count is even), otherwise one uniform draw per position.
func Shuffle[T any](g *MT19937, x []T) {
	n := uint64(len(x))
	if n == 0 {
		return
	}
	if engineRange/n >= n {
		i := uint64(1)
		if n%2 == 0 {
			j := UniformUint64(g, 0, 1)
			x[i], x[j] = x[j], x[i]
			i++
		}
		for i != n {
			swapRange := i + 1
			pos := UniformUint64(g, 0, swapRange*(swapRange+1)-1)
			p1, p2 := pos/(swapRange+1), pos%(swapRange+1)
			x[i], x[p1] = x[p1], x[i]
			i++
			x[i], x[p2] = x[p2], x[i]
			i++
		}
		return
	}
	for i := uint64(1); i < n; i++ {
		j := UniformUint64(g, 0, i)
		x[i], x[j] = x[j], x[i]
	}
}
