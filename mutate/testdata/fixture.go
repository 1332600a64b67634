package fixture

func f(a, b int, ok bool) int {
	x := a + b
	if a < b && ok {
		x++
	}
	for i := 0; i != 3; i++ {
		x -= i
	}
	g(x)
	if x >= 2 {
		return 1
	}
	return x
}

func g(int) {}
