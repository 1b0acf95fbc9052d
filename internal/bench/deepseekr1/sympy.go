package deepseekr1

import (
	"errors"
	"math"
	"math/big"
	"math/cmplx"
	"strings"
	"unicode"
)

// symbolicZero stands in for sympy.simplify(parse_expr(expr)) == 0 on
// the expressions PRM800K's grader hands it, "(a)-(b)" read as sympy's
// parser reads them with implicit multiplication: numbers, names (pi; a
// function of sympy's; a single-letter symbol; a longer unknown name
// split into its letters and digits), + - * / **, calls and !. Where the
// difference holds only rationals it is computed exactly; else a and b
// are evaluated at three fixed points for the symbols and must agree to
// 1e-9 relative at each. What sympy would not read (an equation, a list,
// a tuple, %) is not zero.
func symbolicZero(expr string) bool {
	toks, err := tokenize(expr)
	if err != nil {
		return false
	}
	p := &exprParser{toks: toks}
	e, err := p.sum()
	if err != nil || p.i != len(p.toks) {
		return false
	}
	if r, ok := e.rat(); ok {
		return r.Sign() == 0
	}
	d, ok := e.(binop)
	if !ok || d.op != '-' {
		return false
	}
	syms := map[string]bool{}
	e.symbols(syms)
	points := [][]float64{{0.5772156649, 1.3247179572}, {2.7182818285, -0.6180339887}, {-1.4142135624, 3.1415926536}}
	for _, pt := range points {
		env := map[string]complex128{}
		k := 0
		for s := range syms {
			env[s] = complex(pt[k%2]+float64(k/2), 0)
			k++
		}
		a, err1 := d.l.eval(env)
		b, err2 := d.r.eval(env)
		if err1 != nil || err2 != nil || cmplx.IsNaN(a) || cmplx.IsNaN(b) || cmplx.IsInf(a) || cmplx.IsInf(b) {
			return false
		}
		if cmplx.Abs(a-b) > 1e-9*math.Max(1, math.Max(cmplx.Abs(a), cmplx.Abs(b))) {
			return false
		}
	}
	return true
}

// token is a Python token: a number, a name or an operator.
type token struct {
	kind byte // 'n' number, 'a' name, 'o' operator
	text string
}

// tokenize splits an expression into Python's tokens.
func tokenize(s string) ([]token, error) {
	r := []rune(s)
	var toks []token
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			j := i
			for j < len(r) && (r[j] >= '0' && r[j] <= '9' || r[j] == '_') {
				j++
			}
			if j < len(r) && r[j] == '.' {
				j++
				for j < len(r) && (r[j] >= '0' && r[j] <= '9' || r[j] == '_') {
					j++
				}
			}
			if j+1 < len(r) && (r[j] == 'e' || r[j] == 'E') && (r[j+1] >= '0' && r[j+1] <= '9' ||
				(r[j+1] == '+' || r[j+1] == '-') && j+2 < len(r) && r[j+2] >= '0' && r[j+2] <= '9') {
				j += 2
				for j < len(r) && (r[j] >= '0' && r[j] <= '9' || r[j] == '_') {
					j++
				}
			}
			toks = append(toks, token{'n', strings.ReplaceAll(string(r[i:j]), "_", "")})
			i = j
		case c == '_' || unicode.IsLetter(c):
			j := i
			for j < len(r) && (r[j] == '_' || unicode.IsLetter(r[j]) || unicode.IsDigit(r[j])) {
				j++
			}
			toks = append(toks, token{'a', string(r[i:j])})
			i = j
		case c == '*' && i+1 < len(r) && r[i+1] == '*':
			toks = append(toks, token{'o', "**"})
			i += 2
		case strings.ContainsRune("+-*/()!", c):
			toks = append(toks, token{'o', string(c)})
			i++
		default:
			return nil, errors.New("not sympy's syntax")
		}
	}
	return toks, nil
}

// node is a parsed expression.
type node interface {
	eval(env map[string]complex128) (complex128, error)
	// rat is its exact value where it is rational arithmetic alone.
	rat() (*big.Rat, bool)
	symbols(into map[string]bool)
}

type (
	number struct {
		v *big.Rat
	}
	symbol   string
	constant struct {
		name string
		v    complex128
	}
	binop struct {
		op   byte // + - * / ^
		l, r node
	}
	neg  struct{ x node }
	call struct {
		fn   string
		args []node
	}
)

func (n number) eval(map[string]complex128) (complex128, error) {
	f, _ := n.v.Float64()
	return complex(f, 0), nil
}
func (n number) rat() (*big.Rat, bool)   { return n.v, true }
func (n number) symbols(map[string]bool) {}

func (s symbol) eval(env map[string]complex128) (complex128, error) { return env[string(s)], nil }
func (s symbol) rat() (*big.Rat, bool)                              { return nil, false }
func (s symbol) symbols(into map[string]bool)                       { into[string(s)] = true }

func (c constant) eval(map[string]complex128) (complex128, error) { return c.v, nil }
func (c constant) rat() (*big.Rat, bool)                          { return nil, false }
func (c constant) symbols(map[string]bool)                        {}

func (n neg) eval(env map[string]complex128) (complex128, error) {
	v, err := n.x.eval(env)
	return -v, err
}
func (n neg) rat() (*big.Rat, bool) {
	v, ok := n.x.rat()
	if !ok {
		return nil, false
	}
	return new(big.Rat).Neg(v), true
}
func (n neg) symbols(into map[string]bool) { n.x.symbols(into) }

var errNotANumber = errors.New("not a number")

func (b binop) eval(env map[string]complex128) (complex128, error) {
	l, err := b.l.eval(env)
	if err != nil {
		return 0, err
	}
	r, err := b.r.eval(env)
	if err != nil {
		return 0, err
	}
	switch b.op {
	case '+':
		return l + r, nil
	case '-':
		return l - r, nil
	case '*':
		return l * r, nil
	case '/':
		if r == 0 {
			return 0, errNotANumber
		}
		return l / r, nil
	}
	if imag(r) == 0 && real(r) == math.Trunc(real(r)) && math.Abs(real(r)) <= 1024 {
		// An integer power, exactly as repeated products.
		n := int(real(r))
		v := complex(1, 0)
		for range abs(n) {
			v *= l
		}
		if n < 0 {
			if v == 0 {
				return 0, errNotANumber
			}
			v = 1 / v
		}
		return v, nil
	}
	if l == 0 {
		return 0, nil
	}
	return cmplx.Pow(l, r), nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (b binop) rat() (*big.Rat, bool) {
	l, ok := b.l.rat()
	if !ok {
		return nil, false
	}
	r, ok := b.r.rat()
	if !ok {
		return nil, false
	}
	switch b.op {
	case '+':
		return new(big.Rat).Add(l, r), true
	case '-':
		return new(big.Rat).Sub(l, r), true
	case '*':
		return new(big.Rat).Mul(l, r), true
	case '/':
		if r.Sign() == 0 {
			return nil, false
		}
		return new(big.Rat).Quo(l, r), true
	}
	if !r.IsInt() || !r.Num().IsInt64() || abs(int(r.Num().Int64())) > 64 {
		return nil, false
	}
	n := int(r.Num().Int64())
	v := big.NewRat(1, 1)
	for range abs(n) {
		v.Mul(v, l)
	}
	if n < 0 {
		if v.Sign() == 0 {
			return nil, false
		}
		v.Inv(v)
	}
	return v, true
}

func (b binop) symbols(into map[string]bool) { b.l.symbols(into); b.r.symbols(into) }

// functions are sympy's functions of one argument the grader may meet.
var functions = map[string]func(complex128) complex128{
	"sqrt": cmplx.Sqrt, "sin": cmplx.Sin, "cos": cmplx.Cos, "tan": cmplx.Tan, "exp": cmplx.Exp,
	"log": cmplx.Log, "ln": cmplx.Log, "asin": cmplx.Asin, "acos": cmplx.Acos, "atan": cmplx.Atan,
	"sinh": cmplx.Sinh, "cosh": cmplx.Cosh, "tanh": cmplx.Tanh, "cbrt": func(x complex128) complex128 { return cmplx.Pow(x, 1.0/3) },
	"abs": func(x complex128) complex128 { return complex(cmplx.Abs(x), 0) },
	"factorial": func(x complex128) complex128 {
		if imag(x) != 0 {
			return cmplx.NaN()
		}
		g, _ := math.Lgamma(real(x) + 1)
		return complex(math.Round(math.Exp(g)), 0)
	},
}

func (c call) eval(env map[string]complex128) (complex128, error) {
	f, ok := functions[c.fn]
	if !ok || len(c.args) != 1 {
		return 0, errNotANumber
	}
	x, err := c.args[0].eval(env)
	if err != nil {
		return 0, err
	}
	if c.fn == "factorial" && (real(x) < 0 || real(x) != math.Trunc(real(x)) || real(x) > 170) {
		return 0, errNotANumber
	}
	return f(x), nil
}
func (c call) rat() (*big.Rat, bool) { return nil, false }
func (c call) symbols(into map[string]bool) {
	for _, a := range c.args {
		a.symbols(into)
	}
}

// constants are sympy's names of numbers, as the grader's lower-cased
// expressions spell them.
var constants = map[string]complex128{"pi": math.Pi, "oo": complex(math.Inf(1), 0)}

// greek are the names sympy keeps whole as one symbol.
var greek = map[string]bool{"alpha": true, "beta": true, "gamma": true, "delta": true, "epsilon": true, "zeta": true,
	"eta": true, "theta": true, "iota": true, "kappa": true, "lamda": true, "mu": true, "nu": true, "xi": true,
	"omicron": true, "rho": true, "sigma": true, "tau": true, "upsilon": true, "phi": true, "chi": true, "psi": true, "omega": true}

// exprParser parses Python's arithmetic with sympy's implicit
// multiplication.
type exprParser struct {
	toks []token
	i    int
}

func (p *exprParser) peek() (token, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return token{}, false
}

func (p *exprParser) isOp(s string) bool {
	t, ok := p.peek()
	return ok && t.kind == 'o' && t.text == s
}

func (p *exprParser) sum() (node, error) {
	l, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.toks[p.i].text[0]
		p.i++
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		l = binop{op: op, l: l, r: r}
	}
	return l, nil
}

// startsAtom: the next token begins an operand, which juxtaposition
// multiplies.
func (p *exprParser) startsAtom() bool {
	t, ok := p.peek()
	return ok && (t.kind != 'o' || t.text == "(")
}

func (p *exprParser) term() (node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		var op byte
		switch {
		case p.isOp("*"):
			op = '*'
			p.i++
		case p.isOp("/"):
			op = '/'
			p.i++
		case p.startsAtom():
			op = '*'
		default:
			return l, nil
		}
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = binop{op: op, l: l, r: r}
	}
}

func (p *exprParser) unary() (node, error) {
	switch {
	case p.isOp("-"):
		p.i++
		x, err := p.unary()
		return neg{x}, err
	case p.isOp("+"):
		p.i++
		return p.unary()
	}
	return p.power()
}

func (p *exprParser) power() (node, error) {
	base, err := p.postfix()
	if err != nil {
		return nil, err
	}
	if p.isOp("**") {
		p.i++
		exp, err := p.unary()
		if err != nil {
			return nil, err
		}
		return binop{op: '^', l: base, r: exp}, nil
	}
	return base, nil
}

func (p *exprParser) postfix() (node, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for p.isOp("!") {
		p.i++
		x = call{fn: "factorial", args: []node{x}}
	}
	return x, nil
}

var errSyntax = errors.New("not sympy's syntax")

func (p *exprParser) atom() (node, error) {
	t, ok := p.peek()
	if !ok {
		return nil, errSyntax
	}
	p.i++
	switch {
	case t.kind == 'n':
		v, ok := new(big.Rat).SetString(t.text)
		if !ok {
			return nil, errSyntax
		}
		return number{v}, nil
	case t.kind == 'a':
		return p.name(t.text)
	case t.text == "(":
		e, err := p.sum()
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, errSyntax
		}
		p.i++
		return e, nil
	}
	return nil, errSyntax
}

// name resolves a name: a call of a function, a constant, a symbol, or
// the product of an unknown name's letters and digit runs.
func (p *exprParser) name(n string) (node, error) {
	if _, ok := functions[n]; ok {
		if !p.isOp("(") {
			return nil, errSyntax
		}
		arg, err := p.atom()
		if err != nil {
			return nil, err
		}
		return call{fn: n, args: []node{arg}}, nil
	}
	if v, ok := constants[n]; ok {
		return constant{n, v}, nil
	}
	r := []rune(n)
	if len(r) == 1 || greek[n] || strings.Contains(n, "_") {
		return symbol(n), nil
	}
	var parts []node
	for i := 0; i < len(r); i++ {
		if unicode.IsDigit(r[i]) {
			j := i
			for j < len(r) && unicode.IsDigit(r[j]) {
				j++
			}
			v, ok := new(big.Rat).SetString(string(r[i:j]))
			if !ok {
				return nil, errSyntax
			}
			parts = append(parts, number{v})
			i = j - 1
			continue
		}
		parts = append(parts, symbol(string(r[i])))
	}
	x := parts[0]
	for _, q := range parts[1:] {
		x = binop{op: '*', l: x, r: q}
	}
	return x, nil
}
