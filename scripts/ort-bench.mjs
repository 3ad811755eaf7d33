// Times a model under ONNX Runtime (CPU, one intra-op thread) for
// comparison with `niro bench`: median and min of N runs after a warm-up.
//
//   NODE_PATH=/path/to/node_modules node scripts/ort-bench.mjs MODEL.onnx RUNS [NAME=DIMS or NAME=FILE.pb ...]
//
// NAME=DIMS fixes a symbolic input shape, e.g. x=64x64. Inputs are random
// values in [-1, 1), float32 or float64 as the model declares them.
// Prints {"median_us":…,"min_us":…,"runs":…}.
import path from "node:path";
import { createRequire } from "node:module";
import fs from "node:fs";

const require = createRequire(import.meta.url);
const ort = require(process.env.NODE_PATH ? path.join(process.env.NODE_PATH, "onnxruntime-node") : "onnxruntime-node");

const [model, runsArg, ...shapeArgs] = process.argv.slice(2);
const runs = Number(runsArg || 20);
const given = {}; // NAME=FILE.pb: the tensor in the file (raw_data), e.g. int64 token ids
const shapes = Object.fromEntries(shapeArgs.map((s) => {
  const [n, d] = s.split("=");
  if (d.endsWith(".pb")) return [n, (given[n] = readPB(d)).dims];
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
Object.assign(feeds, given);
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

// readPB reads an ONNX TensorProto file's dims, data_type and raw_data.
function readPB(file) {
  const buf = fs.readFileSync(file);
  const varint = (p) => { let v = 0n, s = 0n; for (;;) { const b = buf[p++]; v |= BigInt(b & 0x7f) << s; if (!(b & 0x80)) return [v, p]; s += 7n; } };
  const t = { dims: [], type: 0, raw: null };
  let pos = 0;
  while (pos < buf.length) {
    let key, v; [key, pos] = varint(pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    if (wire === 0) { [v, pos] = varint(pos); if (field === 1) t.dims.push(Number(v)); if (field === 2) t.type = Number(v); }
    else if (wire === 2) {
      [v, pos] = varint(pos);
      const end = pos + Number(v);
      if (field === 1) while (pos < end) { [v, pos] = varint(pos); t.dims.push(Number(v)); }
      if (field === 9) t.raw = new Uint8Array(buf.subarray(pos, end));
      pos = end;
    } else if (wire === 5) pos += 4; else if (wire === 1) pos += 8;
    else throw new Error(`${file}: unsupported wire type ${wire}`);
  }
  const types = { 1: ["float32", Float32Array], 6: ["int32", Int32Array], 7: ["int64", BigInt64Array], 11: ["float64", Float64Array] };
  if (!t.raw || !types[t.type]) throw new Error(`${file}: want raw_data of float, double, int32 or int64`);
  const [name, Arr] = types[t.type];
  return new ort.Tensor(name, new Arr(t.raw.buffer, 0, t.raw.byteLength / Arr.BYTES_PER_ELEMENT), t.dims);
}
