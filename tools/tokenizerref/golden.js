// golden.js writes sdk/tokenizer's golden cases: each text of TEXTS_JSON (a
// JSON list of strings) with what Hugging Face's tokenizers makes of it.
//
// Usage: node golden.js TOKENIZERS_DIR TOKENIZER_JSON TEXTS_JSON OUT_JSON
//
// OUT_JSON is {"cases": [{"text", "s": ids with special tokens, "n": ids
// without, "d": decode(n, false), "k": decode(s, true)}, ...]}, one case
// a line.
'use strict';
const fs = require('fs');
const path = require('path');

const [dir, tokFile, textsFile, outFile] = process.argv.slice(2);
if (!outFile) {
  console.error('usage: node golden.js TOKENIZERS_DIR TOKENIZER_JSON TEXTS_JSON OUT_JSON');
  process.exit(2);
}
const { Tokenizer } = require(path.resolve(dir));

async function main() {
  const tok = Tokenizer.fromFile(tokFile);
  const texts = JSON.parse(fs.readFileSync(textsFile, 'utf8'));
  const lines = [];
  for (const text of texts) {
    const s = (await tok.encode(text, null, { addSpecialTokens: true })).getIds();
    const n = (await tok.encode(text, null, { addSpecialTokens: false })).getIds();
    const d = await tok.decode(n, false);
    const k = await tok.decode(s, true);
    lines.push(JSON.stringify({ text, s, n, d, k }));
  }
  fs.writeFileSync(outFile, '{"cases": [\n' + lines.join(',\n') + '\n]}\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
