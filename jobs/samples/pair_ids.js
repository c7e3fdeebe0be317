// Reference token ids of text pairs, from Hugging Face's Rust tokenizer as npm's `tokenizers`
// 0.13.3 runs it (its 0.23 releases stop early when they truncate). For the pair tests:
//   mkdir -p /tmp/tok13 && (cd /tmp/tok13 && npm install tokenizers@0.13.3 \
//     tokenizers-linux-x64-gnu@0.13.4-rc2)
//   NODE_PATH=/tmp/tok13/node_modules node jobs/samples/pair_ids.js \
//     ../shared/models/all-MiniLM-L6-v2/tokenizer.json 32 > src/test/resources/pairs/minilm-32.json
// Each pair is encoded as (text, text_pair) and cut longest-first to the given most tokens.
const { Tokenizer } = require("tokenizers");

const PAIRS = [
  ["p0", "what is the capital of france", "Paris is the capital and most populous city of France."],
  ["p1", "", "An empty query still makes a pair: [CLS] [SEP] passage [SEP]."],
  ["p2", "Crème brûlée or naïve café?", "東京は日本の首都です。Accents and CJK on the second side."],
  // both sides long: an odd budget, the longer side cut first, then both in turn
  ["p3", "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen",
   "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho"],
  ["p4", "the first text is longer than the second by quite a few words in this example here and it keeps on going",
   "a shorter second text of some words that still has to be cut too"],
  ["p5", "short query", "a very long passage " + "that goes on and on ".repeat(10)],
  ["p6", "equal lengths on both sides one two three four five six seven eight nine ten eleven",
   "equal lengths on both sides one two three four five six seven eight nine ten twelve"],
  ["p7", "x", "y"],
];

(async () => {
  const [file, maxTokens] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(file);
  tok.setTruncation(Number(maxTokens), { strategy: "LongestFirst" });
  const rows = [];
  for (const [id, a, b] of PAIRS) {
    const enc = await tok.encode(a, b);
    rows.push({ id, a, b, input_ids: enc.getIds(), token_type_ids: enc.getTypeIds() });
  }
  tok.disableTruncation();
  for (const row of rows) {   // the whole pair's length: whether it was cut
    row.full_length = (await tok.encode(row.a, row.b)).getIds().length;
  }
  console.log(JSON.stringify(rows, null, 0));
})();
