package tokenizer

import "unicode"

// The general categories, for now those of Go's unicode package.
var categories = map[string]*unicode.RangeTable{
	"L": unicode.L, "Lu": unicode.Lu, "Ll": unicode.Ll, "Lt": unicode.Lt, "Lm": unicode.Lm, "Lo": unicode.Lo,
	"M": unicode.M, "Mn": unicode.Mn, "Mc": unicode.Mc, "Me": unicode.Me,
	"N": unicode.N, "Nd": unicode.Nd, "Nl": unicode.Nl, "No": unicode.No,
	"P": unicode.P, "Pc": unicode.Pc, "Pd": unicode.Pd, "Ps": unicode.Ps, "Pe": unicode.Pe, "Pi": unicode.Pi, "Pf": unicode.Pf, "Po": unicode.Po,
	"S": unicode.S, "Sm": unicode.Sm, "Sc": unicode.Sc, "Sk": unicode.Sk, "So": unicode.So,
	"Z": unicode.Z, "Zs": unicode.Zs, "Zl": unicode.Zl, "Zp": unicode.Zp,
	"C": unicode.C, "Cc": unicode.Cc, "Cf": unicode.Cf, "Co": unicode.Co, "Cs": unicode.Cs,
}

var whiteSpace = unicode.White_Space

var wordTable = unicode.L
