// Reference windows of long texts, from Hugging Face's Rust tokenizer as npm's `tokenizers`
// 0.13.3 runs it (its 0.23 releases stop early when they truncate): each text encoded with
// truncation to MAX tokens and the given stride, the first encoding and its overflowing ones,
// with each window's ids and the code-point span of its first to last content token.
//   NODE_PATH=/tmp/tok13/node_modules node jobs/samples/chunk_ids.js TOKENIZER MAX STRIDE TEXTS.json
// (npm install tokenizers@0.13.3 tokenizers-linux-x64-gnu@0.13.4-rc2 in /tmp/tok13 first;
// TEXTS.json: [[id, text], ...]). Writes [{id, windows: [{ids, start, end}]}] to stdout.
const { Tokenizer } = require("tokenizers");
const fs = require("fs");

(async () => {
  const [file, max, stride, textsFile] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(file);
  tok.setTruncation(Number(max), { strategy: "LongestFirst", stride: Number(stride) });
  const out = [];
  for (const [id, text] of JSON.parse(fs.readFileSync(textsFile, "utf8"))) {
    const first = await tok.encode(text);
    const windows = [];
    for (const enc of [first, ...first.getOverflowing()]) {
      const special = enc.getSpecialTokensMask();
      const offsets = enc.getOffsets();
      const content = offsets.filter((o, t) => special[t] === 0);
      windows.push({ ids: enc.getIds(), start: content.length ? content[0][0] : 0,
        end: content.length ? content[content.length - 1][1] : 0 });
    }
    out.push({ id, text, windows });
  }
  console.log(JSON.stringify(out));
})();
