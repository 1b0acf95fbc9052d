package benchmarks

// eosTokenIDs are the end-of-sequence token ids of each LLM's tokenizer
// and generation config (generation_config.json's eos_token_id), keyed as
// descriptions are: TEST06 counts any of them at the end of an output.
// Llama 3.1 ends on <|end_of_text|>, <|eom_id|> or <|eot_id|>; Llama 2
// and Mixtral on </s>; DeepSeek-R1 on <｜end▁of▁sentence｜>; gpt-oss on
// <|return|>, <|endoftext|> or <|call|>.
var eosTokenIDs = map[string][]int64{
	"llama3.1-8b":   {128001, 128008, 128009},
	"llama3.1-405b": {128001, 128008, 128009},
	"llama2-70b":    {2},
	"mixtral-8x7b":  {2},
	"deepseek-r1":   {1},
	"gpt-oss-120b":  {200002, 199999, 200012},
}
