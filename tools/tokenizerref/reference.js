// reference.js encodes and decodes a corpus with Hugging Face's tokenizers
// (the official Node binding), for tools/tokenizercheck to compare with
// sdk/tokenizer.
//
// Usage: node reference.js TOKENIZERS_DIR TOKENIZER_JSON CORPUS_JSONL OUT_JSONL
//
// TOKENIZERS_DIR is the unpacked npm package `tokenizers`. CORPUS_JSONL has
// one JSON string a line. Each line of OUT_JSONL is, for the same string:
// {"s": ids with special tokens, "n": ids without, "d": decode(n, false),
// "k": decode(s, true)}.
'use strict';
const fs = require('fs');
const path = require('path');

const [dir, tokFile, corpusFile, outFile] = process.argv.slice(2);
if (!outFile) {
  console.error('usage: node reference.js TOKENIZERS_DIR TOKENIZER_JSON CORPUS_JSONL OUT_JSONL');
  process.exit(2);
}
const { Tokenizer } = require(path.resolve(dir));

async function main() {
  const tok = Tokenizer.fromFile(tokFile);
  const texts = fs.readFileSync(corpusFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const batch = 1000;
  const withSpecial = [];
  const without = [];
  for (let i = 0; i < texts.length; i += batch) {
    const part = texts.slice(i, i + batch);
    const a = await tok.encodeBatch(part, { addSpecialTokens: true });
    const b = await tok.encodeBatch(part, { addSpecialTokens: false });
    for (const e of a) withSpecial.push(e.getIds());
    for (const e of b) without.push(e.getIds());
  }
  const out = fs.openSync(outFile, 'w');
  for (let i = 0; i < texts.length; i += batch) {
    const n = without.slice(i, i + batch);
    const s = withSpecial.slice(i, i + batch);
    const d = await tok.decodeBatch(n, false);
    const k = await tok.decodeBatch(s, true);
    let chunk = '';
    for (let j = 0; j < n.length; j++) {
      chunk += JSON.stringify({ s: s[j], n: n[j], d: d[j], k: k[j] }) + '\n';
    }
    fs.writeSync(out, chunk);
  }
  fs.closeSync(out);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
