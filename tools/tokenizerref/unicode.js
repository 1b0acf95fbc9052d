// unicode.js asks Hugging Face's tokenizers (the Node binding) how it sees
// Unicode, for sdk/tokenizer's TestUnicodeReference: which code points
// each pattern class the models use matches (\p{L} \p{N} \p{Lu} \p{Ll}
// \p{Lt} \p{Lm} \p{Lo} \p{M} \p{P} \p{S} \s, through a Split
// pre-tokenizer), the NFC of every code point that NFC changes, and the
// NFC of seeded sequences of bases and combining marks.
//
// Usage: node unicode.js TOKENIZERS_DIR OUT_JSON
'use strict';
const fs = require('fs');
const path = require('path');

const [dir, outFile] = process.argv.slice(2);
if (!outFile) {
  console.error('usage: node unicode.js TOKENIZERS_DIR OUT_JSON');
  process.exit(2);
}
const tk = require(path.resolve(dir));

// splitter is a tokenizer whose only step is a Split removing pattern's
// matches: what is left of a string tells which characters matched.
function splitter(pattern) {
  const doc = {
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: { type: 'Split', pattern: { Regex: pattern }, behavior: 'Removed', invert: false },
    post_processor: null, decoder: null,
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: false, byte_fallback: false, vocab: {}, merges: [] },
  };
  return tk.Tokenizer.fromString(JSON.stringify(doc)).getPreTokenizer();
}

const cps = [];
for (let c = 0; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) cps.push(c);
const all = cps.map((c) => String.fromCodePoint(c)).join('');

const classes = {};
const patterns = { L: '\\p{L}', N: '\\p{N}', Lu: '\\p{Lu}', Ll: '\\p{Ll}', Lt: '\\p{Lt}', Lm: '\\p{Lm}', Lo: '\\p{Lo}',
  M: '\\p{M}', P: '\\p{P}', S: '\\p{S}', s: '\\s' };
for (const [name, re] of Object.entries(patterns)) {
  const member = new Uint8Array(cps.length).fill(1);
  for (const [, [a, b]] of splitter(re).preTokenizeString(all)) for (let i = a; i < b; i++) member[i] = 0; // offsets in code points
  const ranges = [];
  let start = -1;
  for (let i = 0; i <= cps.length; i++) {
    const m = i < cps.length && member[i];
    if (m && start < 0) start = i;
    if (!m && start >= 0) {
      ranges.push([cps[start], cps[i - 1]]);
      start = -1;
    }
  }
  classes[name] = ranges;
}

const nfc = tk.nfcNormalizer();
const singles = [];
for (const c of cps) {
  const s = String.fromCodePoint(c);
  const r = nfc.normalizeString(s);
  if (r !== s) singles.push([c, r]);
}

// Sequences: a base and up to six marks or bases, from a fixed LCG.
const marks = [0x300, 0x301, 0x302, 0x303, 0x308, 0x30a, 0x323, 0x327, 0x328, 0x331, 0x334, 0x338, 0x345, 0x35c, 0x360,
  0x591, 0x5b0, 0x64b, 0x650, 0x93c, 0x94d, 0x9bc, 0xe31, 0xe48, 0x1ab0, 0x1dc0, 0x20d0, 0x302a, 0x3099, 0x309a, 0x1161,
  0x11a8, 0x1100, 0xb3e, 0xb57, 0xcd5, 0xdcf, 0x102e, 0x1b35, 0xf71, 0xf72, 0xf80, 0x1dfa, 0x1abf, 0x10efd, 0x16ff0,
  0x1e08f, 0x897, 0x1dce, 0x302e];
const bases = [0x41, 0x61, 0x45, 0x65, 0x4f, 0x6f, 0x55, 0x75, 0xc5, 0x1100, 0xac00, 0xac01, 0xb47, 0xcc6, 0xdd9, 0x1025,
  0x1b05, 0x3046, 0x30ab, 0xf40, 0x3b1, 0x3b7, 0x3c9, 0x399, 0x1fbf, 0x4e00, 0x20, 0x627, 0x5d0, 0x915, 0x995];
let seed = 1;
const next = (n) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
const seqIn = [];
const seqOut = [];
for (let i = 0; i < 100000; i++) {
  const s = [bases[next(bases.length)]];
  for (let k = next(7); k > 0; k--) s.push(next(3) ? marks[next(marks.length)] : bases[next(bases.length)]);
  const str = String.fromCodePoint(...s);
  seqIn.push(str);
  seqOut.push(nfc.normalizeString(str));
}
fs.writeFileSync(outFile, JSON.stringify({ classes, nfc: singles, sequences: seqIn, nfcSequences: seqOut }));
