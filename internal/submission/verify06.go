package submission

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// VerifyTEST06 is compliance/TEST06/run_verification.py on an LLM's
// TEST06 accuracy log: every output ends with at most one EOS token (any
// of eos: the model's tokenizer may end on several), each output's first
// token is the one reported first (not in Offline), and each output has
// token_count tokens. Tokens are of type t. The script takes one EOS id;
// with one, the verdicts are the same.
//
// # Errors
//
// A log that is not JSON, data that is not hex or not a whole number of
// tokens, or an entry without token_count: the script stops on those in
// its sample length check.
func VerifyTEST06(log io.Reader, scenario string, t DType, eos []int64) (Verdict, error) {
	entries, err := readEntries(log)
	if err != nil {
		return Verdict{}, err
	}
	eosPass, err := test06EOS(entries, t, eos)
	if err != nil {
		eosPass = false // the script catches it
	}
	firstCheck := scenario != "Offline"
	firstPass := true
	if firstCheck {
		firstPass = test06FirstToken(entries, t)
	}
	lenPass, err := test06Length(entries, t)
	if err != nil {
		return Verdict{}, err
	}
	var b strings.Builder
	if firstCheck {
		fmt.Fprintf(&b, "First token check pass: %s\n", pyBool(firstPass))
	} else {
		b.WriteString("First token check pass: Skipped\n")
	}
	fmt.Fprintf(&b, "EOS check pass: %s\nSample length check pass: %s\n", pyBool(eosPass), pyBool(lenPass))
	v := Verdict{Pass: eosPass && firstPass && lenPass}
	if v.Pass {
		b.WriteString("TEST06 verification complete\n")
	} else {
		b.WriteString("TEST06 verification failed\n")
	}
	v.Text = b.String()
	return v, nil
}

// test06EOS is the script's eos_check: from the last token back to the
// second, two EOS tokens in a row fail.
func test06EOS(entries []logEntry, t DType, eos []int64) (bool, error) {
	isEOS := func(e element) bool {
		return slices.ContainsFunc(eos, e.equalInt)
	}
	for _, e := range entries {
		data, err := decodeHex(e.Data, t)
		if err != nil {
			return false, err
		}
		n := 0
		for i := len(data) - 1; i > 0; i-- {
			if isEOS(data[i]) {
				n++
			}
			if n >= 2 {
				return false, nil
			}
			if !isEOS(data[i]) {
				break
			}
		}
	}
	return true, nil
}

// test06FirstToken is the script's first_token_check: the output and the
// first tokens reported agree where both have a token.
func test06FirstToken(entries []logEntry, t DType) bool {
	for _, e := range entries {
		data, err1 := decodeHex(e.Data, t)
		first, err2 := decodeHex(e.TokenData, t)
		if err1 != nil || err2 != nil {
			return false
		}
		for i := range min(len(data), len(first)) {
			if !data[i].equal(first[i]) {
				return false
			}
		}
	}
	return true
}

// test06Length is the script's sample_len_check.
func test06Length(entries []logEntry, t DType) (bool, error) {
	for _, e := range entries {
		data, err := decodeHex(e.Data, t)
		if err != nil {
			return false, err
		}
		if e.TokenCount == nil {
			return false, errors.New("accuracy log entry without token_count: the run did not log token counts")
		}
		if int64(len(data)) != *e.TokenCount {
			return false, nil
		}
	}
	return true, nil
}
