package deepseekr1

import "strings"

// latexToText is PRM800K's _parse_latex: \tfrac and \dfrac as \frac,
// LaTeX rendered as text as pylatexenc's LatexNodes2Text does with its
// defaults (for the macros below; another macro renders as nothing and
// its braced arguments as their text), then the characters it writes
// for roots, pi, infinity, union and products as sympy reads them.
func latexToText(expr string) string {
	expr = strings.ReplaceAll(expr, `\tfrac`, `\frac`)
	expr = strings.ReplaceAll(expr, `\dfrac`, `\frac`)
	expr = strings.ReplaceAll(expr, `\frac`, ` \frac`)
	l := &latex{s: []rune(expr)}
	var b strings.Builder
	for l.i < len(l.s) {
		l.node(&b)
	}
	out := b.String()
	for _, r := range [][2]string{{"√", "sqrt"}, {"π", "pi"}, {"∞", "inf"}, {"∪", "U"}, {"·", "*"}, {"×", "*"}} {
		out = strings.ReplaceAll(out, r[0], r[1])
	}
	return pyStrip(out)
}

// latexSymbols are the macros that render as text, as pylatexenc's.
var latexSymbols = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "zeta": "ζ",
	"eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
	"xi": "ξ", "pi": "π", "varpi": "ϖ", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "ϕ",
	"varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
	"Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
	"infty": "∞", "cup": "∪", "cap": "∩", "cdot": "·", "times": "×", "div": "÷", "pm": "±", "mp": "∓",
	"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠", "circ": "∘", "ldots": "…", "cdots": "⋯",
	"dots": "…", "quad": "  ", "qquad": "    ", "sin": "sin", "cos": "cos", "tan": "tan", "log": "log",
	"ln": "ln", "exp": "exp", "lim": "lim", "max": "max", "min": "min", "arcsin": "arcsin",
	"arccos": "arccos", "arctan": "arctan", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
	"langle": "⟨", "rangle": "⟩", "approx": "≈", "equiv": "≡", "sim": "∼", "cong": "≅", "angle": "∠",
	"perp": "⊥", "parallel": "∥", "to": "→", "rightarrow": "→", "Rightarrow": "⇒", "in": "∈",
	"notin": "∉", "subset": "⊂", "subseteq": "⊆", "emptyset": "∅", "varnothing": "∅", "mid": "|",
	"star": "⋆", "ast": "∗", "prime": "'", "backslash": "\\", "lvert": "|", "rvert": "|", "vert": "|",
	"Vert": "‖", "lbrace": "{", "rbrace": "}",
	// Control symbols.
	",": " ", ";": " ", ":": " ", "!": "", " ": " ", "{": "{", "}": "}", "%": "%", "$": "$", "&": "&",
	"#": "#", "_": "_", "\\": "\n",
}

// latexDropsArg are the macros whose braced argument renders as nothing.
var latexDropsArg = map[string]bool{"mbox": true}

// latex is a LaTeX string being rendered.
type latex struct {
	s []rune
	i int
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// macro reads a macro's name after its backslash: letters (and the
// spaces after them), or one other character.
func (l *latex) macro() string {
	if l.i >= len(l.s) {
		return ""
	}
	if !isLetter(l.s[l.i]) {
		l.i++
		return string(l.s[l.i-1])
	}
	start := l.i
	for l.i < len(l.s) && isLetter(l.s[l.i]) {
		l.i++
	}
	name := string(l.s[start:l.i])
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t' || l.s[l.i] == '\n') {
		l.i++
	}
	return name
}

// node renders one node: a character, a group or a macro.
func (l *latex) node(b *strings.Builder) {
	switch r := l.s[l.i]; r {
	case '{':
		l.i++
		for l.i < len(l.s) && l.s[l.i] != '}' {
			l.node(b)
		}
		l.i++
	case '}':
		l.i++
	case '~':
		l.i++
		b.WriteRune('\u00a0')
	case '\\':
		l.i++
		l.command(b, l.macro())
	default:
		l.i++
		b.WriteRune(r)
	}
}

// arg renders a macro's argument: a group, a macro or one character,
// after spaces.
func (l *latex) arg() string {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t' || l.s[l.i] == '\n') {
		l.i++
	}
	var b strings.Builder
	if l.i < len(l.s) {
		l.node(&b)
	}
	return b.String()
}

// command renders macro name.
func (l *latex) command(b *strings.Builder, name string) {
	switch {
	case name == "frac":
		num := l.arg()
		b.WriteString(num + "/" + l.arg())
	case name == "sqrt":
		if l.i < len(l.s) && l.s[l.i] == '[' {
			for l.i < len(l.s) && l.s[l.i] != ']' {
				l.i++
			}
			l.i++
		}
		b.WriteString("√(" + l.arg() + ")")
	case latexDropsArg[name]:
		l.arg()
	default:
		b.WriteString(latexSymbols[name])
	}
}
