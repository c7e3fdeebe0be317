// Reference tokens with their spans, from Hugging Face's Rust tokenizer as npm's `tokenizers`
// 0.13.3 runs it: each text encoded with truncation to MAX tokens and, when STRIDE is 0 or more,
// its overflowing windows with that stride (the token-classification pipeline's `stride`);
// every window with its ids, tokens, offsets ([start, end], code points) and special mask.
//   NODE_PATH=/tmp/tok13/node_modules node jobs/samples/token_spans.js TOKENIZER MAX STRIDE TEXTS.json
// TEXTS.json: [[id, text], ...]. Writes [{id, text, windows: [{ids, tokens, offsets,
// special}]}] to stdout.
const { Tokenizer } = require("tokenizers");
const fs = require("fs");

(async () => {
  const [file, max, stride, textsFile] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(file);
  const overlap = Number(stride);
  tok.setTruncation(Number(max), { strategy: "LongestFirst", stride: Math.max(overlap, 0) });
  const out = [];
  for (const [id, text] of JSON.parse(fs.readFileSync(textsFile, "utf8"))) {
    const first = await tok.encode(text);
    const windows = [];
    for (const enc of overlap >= 0 ? [first, ...first.getOverflowing()] : [first]) {
      windows.push({ ids: enc.getIds(), tokens: enc.getTokens(), offsets: enc.getOffsets(),
        special: enc.getSpecialTokensMask() });
    }
    out.push({ id, text, windows });
  }
  console.log(JSON.stringify(out));
})();
