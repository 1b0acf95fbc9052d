package tokenizer

import (
	"strings"
	"unicode"
)

// Oniguruma's property names: the general categories by their short and
// long names, and the classes \s (White_Space) and \w (letters, marks,
// decimal digits, connector punctuation). The tables are those of the
// Unicode version the reference's Oniguruma was built with (ucd16.go).

// category returns a general category's table by its short name.
func category(short string) *unicode.RangeTable {
	return categories[short]
}

// property looks up \p{name}: a general category by its short or long
// name, case and '_', '-', ' ' ignored as Oniguruma does.
func property(name string) *unicode.RangeTable {
	key := strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return unicode.ToLower(r)
	}, name)
	if short, ok := longCategoryNames[key]; ok {
		return categories[short]
	}
	for short, t := range categories {
		if strings.ToLower(short) == key {
			return t
		}
	}
	switch key {
	case "whitespace", "space":
		return whiteSpace
	case "word":
		return wordTable
	}
	return nil
}

var longCategoryNames = map[string]string{
	"letter": "L", "casedletter": "LC", "uppercaseletter": "Lu", "lowercaseletter": "Ll",
	"titlecaseletter": "Lt", "modifierletter": "Lm", "otherletter": "Lo",
	"mark": "M", "combiningmark": "M", "nonspacingmark": "Mn", "spacingmark": "Mc", "enclosingmark": "Me",
	"number": "N", "decimalnumber": "Nd", "digit": "Nd", "letternumber": "Nl", "othernumber": "No",
	"punctuation": "P", "connectorpunctuation": "Pc", "dashpunctuation": "Pd", "openpunctuation": "Ps",
	"closepunctuation": "Pe", "initialpunctuation": "Pi", "finalpunctuation": "Pf", "otherpunctuation": "Po",
	"symbol": "S", "mathsymbol": "Sm", "currencysymbol": "Sc", "modifiersymbol": "Sk", "othersymbol": "So",
	"separator": "Z", "spaceseparator": "Zs", "lineseparator": "Zl", "paragraphseparator": "Zp",
	"other": "C", "control": "Cc", "format": "Cf", "surrogate": "Cs", "privateuse": "Co", "unassigned": "Cn",
}
