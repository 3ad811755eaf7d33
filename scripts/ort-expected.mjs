// Writes expected outputs for a model's ONNX test-data folder with ONNX
// Runtime (the reference), as ONNX TensorProto files:
//
//   node scripts/ort-expected.mjs MODEL.onnx DATA_DIR
//
// DATA_DIR holds input_K.pb files; output_K.pb files are written beside
// them. Needs the npm package onnxruntime-node (CPU build), for example:
//   mkdir -p /tmp/ort && cd /tmp/ort && echo onnxruntime-node-install=skip > .npmrc \
//     && npm install onnxruntime-node
//   NODE_PATH=/tmp/ort/node_modules node scripts/ort-expected.mjs ...
// niro never depends on it; only the committed .pb files are used by tests.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ort = require(process.env.NODE_PATH ? path.join(process.env.NODE_PATH, "onnxruntime-node") : "onnxruntime-node");

const [modelPath, dataDir] = process.argv.slice(2);
if (!modelPath || !dataDir) {
  console.error("usage: node scripts/ort-expected.mjs MODEL.onnx DATA_DIR");
  process.exit(2);
}

// ONNX TensorProto data types and their typed arrays.
const TYPES = {
  1: ["float32", Float32Array], 2: ["uint8", Uint8Array], 3: ["int8", Int8Array],
  5: ["int16", Int16Array], 6: ["int32", Int32Array], 7: ["int64", BigInt64Array],
  9: ["bool", Uint8Array], 11: ["float64", Float64Array], 12: ["uint32", Uint32Array],
  13: ["uint64", BigUint64Array], 4: ["uint16", Uint16Array], 10: ["float16", Uint16Array],
};
const CODES = Object.fromEntries(Object.entries(TYPES).map(([k, [n]]) => [n, Number(k)]));

function readVarint(buf, pos) {
  let v = 0n, shift = 0n;
  for (;;) {
    const b = buf[pos++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [v, pos];
    shift += 7n;
  }
}

function decodeTensor(buf) {
  const t = { dims: [], type: 0, name: "", raw: null };
  let pos = 0;
  while (pos < buf.length) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    if (wire === 0) {
      let v; [v, pos] = readVarint(buf, pos);
      if (field === 1) t.dims.push(Number(v));
      if (field === 2) t.type = Number(v);
    } else if (wire === 2) {
      let len; [len, pos] = readVarint(buf, pos);
      const body = buf.subarray(pos, pos + Number(len));
      pos += Number(len);
      if (field === 1) { let p = 0; while (p < body.length) { let v; [v, p] = readVarint(body, p); t.dims.push(Number(v)); } }
      if (field === 8) t.name = body.toString("utf8");
      if (field === 9) t.raw = body;
    } else if (wire === 5) pos += 4;
    else if (wire === 1) pos += 8;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  if (!t.raw) throw new Error("input tensor without raw_data");
  return t;
}

function varint(v) {
  const out = [];
  let x = BigInt(v);
  do { let b = Number(x & 0x7fn); x >>= 7n; if (x) b |= 0x80; out.push(b); } while (x);
  return out;
}

function encodeTensor(name, tensor) {
  const parts = [];
  for (const d of tensor.dims) parts.push(Buffer.from([0x08, ...varint(d)]));
  parts.push(Buffer.from([0x10, ...varint(CODES[tensor.type])]));
  const nb = Buffer.from(name, "utf8");
  parts.push(Buffer.from([0x42, ...varint(nb.length)]), nb);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  parts.push(Buffer.from([0x4a, ...varint(data.length)]), data);
  return Buffer.concat(parts);
}

const session = await ort.InferenceSession.create(modelPath, { executionProviders: ["cpu"] });
const feeds = {};
session.inputNames.forEach((name, k) => {
  const t = decodeTensor(fs.readFileSync(path.join(dataDir, `input_${k}.pb`)));
  const [tname, Arr] = TYPES[t.type];
  const copy = new Uint8Array(t.raw);
  feeds[name] = new ort.Tensor(tname, new Arr(copy.buffer, 0, copy.byteLength / Arr.BYTES_PER_ELEMENT), t.dims);
});
const results = await session.run(feeds);
session.outputNames.forEach((name, k) => {
  fs.writeFileSync(path.join(dataDir, `output_${k}.pb`), encodeTensor(name, results[name]));
  console.log(`${dataDir}/output_${k}.pb: ${name} ${results[name].type} [${results[name].dims}]`);
});
