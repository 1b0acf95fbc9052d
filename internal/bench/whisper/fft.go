package whisper

import "math"

// fft is a mixed-radix decimation-in-time discrete Fourier transform of
// one size (the log-mel front end's 400 = 4·4·5·5 points):
// X[k] = Σ x[j]·e^(-2πi·jk/n).
type fft struct {
	n       int
	factors []int
	// twiddle[j] is e^(-2πi·j/n).
	twiddle []complex128
}

// newFFT plans the transform of n points (fast for a product of small
// primes; a larger prime factor takes its direct transform).
func newFFT(n int) *fft {
	f := &fft{n: n, twiddle: make([]complex128, n)}
	for j := range n {
		// sin and cos of the reduced angle: the table exact to the last bits.
		s, c := math.Sincos(-2 * math.Pi * float64(j) / float64(n))
		f.twiddle[j] = complex(c, s)
	}
	for m := n; m > 1; {
		p := 2
		for _, q := range []int{4, 2, 3, 5} {
			if m%q == 0 {
				p = q
				break
			}
		}
		for m%p != 0 {
			p++
		}
		f.factors = append(f.factors, p)
		m /= p
	}
	return f
}

// transform writes the transform of src into dst (both n long, distinct).
func (f *fft) transform(dst, src []complex128) {
	f.step(dst, src, 1, f.factors)
}

// step transforms the len(dst) points src[0], src[stride], ... into dst:
// the p interleaved sub-sequences of radix p = factors[0] each into its
// quarter (fifth, ...) of dst, then combined with the twiddle factors.
func (f *fft) step(dst, src []complex128, stride int, factors []int) {
	n := len(dst)
	if n == 1 {
		dst[0] = src[0]
		return
	}
	p, m := factors[0], n/factors[0]
	for q := range p {
		f.step(dst[q*m:(q+1)*m], src[q*stride:], stride*p, factors[1:])
	}
	scale := f.n / n // twiddle index of e^(-2πi/n)
	var buf [8]complex128
	in := buf[:min(p, len(buf))]
	if p > len(buf) {
		in = make([]complex128, p)
	}
	root := m * scale // twiddle index of e^(-2πi/p)
	for k := range m {
		for q := range p {
			// Y_q[k]·e^(-2πi·qk/n); qk < n.
			in[q] = dst[q*m+k] * f.twiddle[q*k*scale]
		}
		if p == 4 {
			// The 4-point transform: its roots are ±1 and ±i.
			a, b := in[0]+in[2], in[0]-in[2]
			c, d := in[1]+in[3], in[1]-in[3]
			d = complex(imag(d), -real(d)) // -i·d
			dst[k], dst[k+m], dst[k+2*m], dst[k+3*m] = a+c, b+d, a-c, b-d
			continue
		}
		for r := range p {
			// X[k+rm] = Σ_q Y_q[k]·e^(-2πi·q(k+rm)/n); e^(-2πi·qrm/n)
			// = e^(-2πi·(qr mod p)/p).
			s, j := in[0], r
			for q := 1; q < p; q++ {
				s += in[q] * f.twiddle[j*root]
				if j += r; j >= p {
					j -= p
				}
			}
			dst[k+r*m] = s
		}
	}
}
