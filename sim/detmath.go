package sim

import "math"

// The standard library's math.Log and math.Exp are implemented in assembly on some
// architectures and in Go on others, and the Go compiler may fuse x*y+z into one FMA
// instruction on arm64, ppc64 and s390x. Either can change the last bit of a result, and a
// changed bit can change a latency, an event order and so the trace hash. These functions use
// only +, -, *, / (each correctly rounded by IEEE 754) with an explicit float64 conversion
// around every product, which the Go specification says prevents fusion. They are accurate to
// a few ulps, which is all a distribution needs; what matters is that they are the same
// everywhere.

const ln2 = 0.693147180559945309417232121458176568

// detLog returns the natural logarithm of x > 0.
func detLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		panic("sim: detLog outside (0, +Inf)")
	}
	m, e := math.Frexp(x) // x = m * 2^e, m in [0.5, 1); exact
	if m < math.Sqrt2/2 {
		m *= 2 // exact
		e--
	}
	// ln(m) = 2*atanh(s) with s = (m-1)/(m+1), |s| <= 0.1716, summed until the terms vanish.
	s := (m - 1) / (m + 1)
	s2 := float64(s * s)
	term := s
	sum := 0.0
	for n := 1.0; n < 64; n += 2 {
		next := float64(sum + float64(term/n))
		if next == sum {
			break
		}
		sum = next
		term = float64(term * s2)
	}
	return float64(float64(e)*ln2) + float64(2*sum)
}

// detExp returns e^x.
func detExp(x float64) float64 {
	if math.IsNaN(x) {
		panic("sim: detExp(NaN)")
	}
	if x > 709.7 {
		return math.Inf(1)
	}
	if x < -745.2 {
		return 0
	}
	// x = k*ln2 + r with |r| <= ln2/2; e^x = 2^k * e^r, and e^r by its Taylor series.
	k := math.Round(x / ln2)
	r := x - float64(k*ln2)
	sum, term := 1.0, 1.0
	for n := 1.0; n < 40; n++ {
		term = float64(float64(term*r) / n)
		next := sum + term
		if next == sum {
			break
		}
		sum = next
	}
	return math.Ldexp(sum, int(k))
}

// detPow returns base^exponent for base > 0.
func detPow(base, exponent float64) float64 {
	return detExp(float64(exponent * detLog(base)))
}
