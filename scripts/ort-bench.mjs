// Times a model under ONNX Runtime (CPU, one intra-op thread) for
// comparison with `niro bench`: median and min of N runs after a warm-up.
//
//   NODE_PATH=/path/to/node_modules node scripts/ort-bench.mjs MODEL.onnx RUNS [NAME=DIMS ...]
//
// NAME=DIMS fixes a symbolic input shape, e.g. x=64x64. Inputs are random
// values in [-1, 1), float32 or float64 as the model declares them.
// Prints {"median_us":…,"min_us":…,"runs":…}.
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ort = require(process.env.NODE_PATH ? path.join(process.env.NODE_PATH, "onnxruntime-node") : "onnxruntime-node");

const [model, runsArg, ...shapeArgs] = process.argv.slice(2);
const runs = Number(runsArg || 20);
const shapes = Object.fromEntries(shapeArgs.map((s) => {
  const [n, d] = s.split("=");
  return [n, d.split("x").map(Number)];
}));
const session = await ort.InferenceSession.create(model, {
  executionProviders: ["cpu"], intraOpNumThreads: 1, interOpNumThreads: 1,
});
const feeds = {};
for (const [i, name] of session.inputNames.entries()) {
  const dims = shapes[name];
  if (!dims) throw new Error(`give the shape of input ${name} as ${name}=DIMS`);
  const n = dims.reduce((a, b) => a * b, 1);
  const type = session.inputMetadata?.[i]?.type === "float64" ? "float64" : "float32";
  const data = type === "float64" ? new Float64Array(n) : new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = Math.random() * 2 - 1;
  feeds[name] = new ort.Tensor(type, data, dims);
}
await session.run(feeds);
const times = [];
for (let i = 0; i < runs; i++) {
  const t0 = process.hrtime.bigint();
  await session.run(feeds);
  times.push(Number(process.hrtime.bigint() - t0) / 1e3);
}
times.sort((a, b) => a - b);
const median = runs % 2 ? times[(runs - 1) / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
console.log(JSON.stringify({ median_us: median, min_us: times[0], runs }));
