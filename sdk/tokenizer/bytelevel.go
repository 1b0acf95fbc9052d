package tokenizer

// GPT-2's byte-level alphabet: every byte is shown as one printable
// character. The printable bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand
// for themselves; the other 68 bytes, in increasing order, take the
// characters U+0100, U+0101, ... in turn.

// byteChar maps a byte to its byte-level character.
var byteChar = func() (t [256]rune) {
	n := rune(0)
	for b := range 256 {
		if printableByte(byte(b)) {
			t[b] = rune(b)
		} else {
			t[b] = 256 + n
			n++
		}
	}
	return t
}()

// byteCharUTF8 holds each byte-level character's UTF-8 encoding.
var byteCharUTF8 = func() (t [256]string) {
	for b := range 256 {
		t[b] = string(byteChar[b])
	}
	return t
}()

func printableByte(b byte) bool {
	return b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE
}

// charByte maps a byte-level character back to its byte; ok is false for a
// character outside the alphabet.
func charByte(r rune) (b byte, ok bool) {
	switch {
	case r < 256 && printableByte(byte(r)):
		return byte(r), true
	case r >= 256 && r < 256+68:
		return nonPrintable[r-256], true
	}
	return 0, false
}

// nonPrintable lists the 68 bytes without a printable character, in order.
var nonPrintable = func() (t [68]byte) {
	n := 0
	for b := range 256 {
		if !printableByte(byte(b)) {
			t[n] = byte(b)
			n++
		}
	}
	return t
}()

// byteLevelString maps s's bytes to byte-level characters.
func byteLevelString(s string) string {
	buf := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		buf = append(buf, byteCharUTF8[s[i]]...)
	}
	return string(buf)
}

// fromByteLevel maps a string of byte-level characters back to bytes; ok
// is false when a character is outside the alphabet.
func fromByteLevel(s string) (raw string, ok bool) {
	buf := make([]byte, 0, len(s))
	for _, r := range s {
		b, ok := charByte(r)
		if !ok {
			return "", false
		}
		buf = append(buf, b)
	}
	return string(buf), true
}
