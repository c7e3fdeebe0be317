// Reference token ids of texts and text pairs, from Hugging Face's Rust tokenizer as npm's
// `tokenizers` 0.13.3 runs it (its 0.23 releases stop early when they truncate):
//   mkdir -p /tmp/tok13 && (cd /tmp/tok13 && npm install tokenizers@0.13.3 \
//     tokenizers-linux-x64-gnu@0.13.4-rc2)
//   NODE_PATH=/tmp/tok13/node_modules node jobs/samples/tokenize_ids.js TOKENIZER_JSON MAX_TOKENS ROWS_JSON
// ROWS_JSON holds [{"id", "a"[, "b"]}]; each row is encoded as a (or (a, b)), cut longest-first
// to MAX_TOKENS, and printed with input_ids, token_type_ids, tokens and full_length (its length
// uncut), as one JSON array.
const fs = require("fs");
const { Tokenizer } = require("tokenizers");

(async () => {
  const [file, maxTokens, rowsFile] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(file);
  const rows = JSON.parse(fs.readFileSync(rowsFile, "utf8"));
  const encode = (row) => (row.b === undefined ? tok.encode(row.a) : tok.encode(row.a, row.b));
  tok.setTruncation(Number(maxTokens), { strategy: "LongestFirst" });
  const out = [];
  for (const row of rows) {
    const enc = await encode(row);
    out.push({ ...row, input_ids: enc.getIds(), token_type_ids: enc.getTypeIds(),
      tokens: enc.getTokens() });
  }
  tok.disableTruncation();
  for (const row of out) {
    row.full_length = (await encode(row)).getIds().length;
  }
  console.log(JSON.stringify(out, null, 0));
})();
