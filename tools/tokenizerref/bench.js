// bench.js times Hugging Face's tokenizers (the Node binding, one thread:
// run it with TOKENIZERS_PARALLELISM=false) encoding a corpus, for `make
// bench-tokenizer`: one untimed pass, then PASSES timed passes of
// encodeBatch over batches of 1000 strings, without special tokens. It
// prints one line: "reference NAME ns=N tokens=T passes=P".
//
// Usage: node bench.js TOKENIZERS_DIR TOKENIZER_JSON CORPUS_JSONL NAME PASSES
'use strict';
const fs = require('fs');
const path = require('path');

const [dir, tokFile, corpusFile, name, passesArg] = process.argv.slice(2);
if (!passesArg) {
  console.error('usage: node bench.js TOKENIZERS_DIR TOKENIZER_JSON CORPUS_JSONL NAME PASSES');
  process.exit(2);
}
const { Tokenizer } = require(path.resolve(dir));

async function pass(tok, texts) {
  let tokens = 0;
  for (let i = 0; i < texts.length; i += 1000) {
    const enc = await tok.encodeBatch(texts.slice(i, i + 1000), { addSpecialTokens: false });
    for (const e of enc) tokens += e.getLength();
  }
  return tokens;
}

async function main() {
  const tok = Tokenizer.fromFile(tokFile);
  const texts = fs.readFileSync(corpusFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  await pass(tok, texts);
  const passes = Number(passesArg);
  let tokens = 0;
  const t0 = process.hrtime.bigint();
  for (let p = 0; p < passes; p++) tokens += await pass(tok, texts);
  const ns = process.hrtime.bigint() - t0;
  console.log(`reference ${name} ns=${ns} tokens=${tokens} passes=${passes}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
