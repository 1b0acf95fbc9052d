package tokenizer_test

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// An LLM plugin counts the tokens of a server's text answer and decodes
// token ids back to text.
func ExampleTokenizer_Encode() {
	tok, err := tokenizer.Open("testdata/fixtures/gpt2_bytelevel.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	ids := tok.Encode("Hello world", tokenizer.AddSpecialTokens(false))
	fmt.Println(ids)
	fmt.Printf("%q\n", tok.Decode(ids, true))
	fmt.Println(tok.Encode("Hello world")) // with the post-processor's <mask> ... <|endoftext|>
	// Output:
	// [220 277 282]
	// " Hello world"
	// [314 220 277 282 313]
}
