// Raw ONNX Runtime latency through onnxruntime-node's own JS API, for
// comparing the Go engine with ORT on the same model and thread count:
//
//   node ort_node_bench.js MODEL THREADS BATCH [RUNS]
//
// NODE_PATH must hold onnxruntime-node and onnxruntime-common, unpacked
// without install scripts:
//   npm pack onnxruntime-node@1.30.0 onnxruntime-common@1.30.0
//   mkdir -p m/onnxruntime-node m/onnxruntime-common
//   tar xzf onnxruntime-node-1.30.0.tgz -C m/onnxruntime-node --strip-components=1
//   tar xzf onnxruntime-common-1.30.0.tgz -C m/onnxruntime-common --strip-components=1
//   NODE_PATH=$PWD/m node ort_node_bench.js ...
// The input is zeros of the model's first input: uint8 [N,1,28,28] for a
// model whose path contains "fashion" (or "model.onnx" under fashionmnist),
// else float [N,3,224,224].
const ort = require('onnxruntime-node');
const fs = require('fs');

async function main() {
  const [model, threads, batch, runs] = [process.argv[2], +process.argv[3], +process.argv[4], +(process.argv[5] || 20)];
  const session = await ort.InferenceSession.create(fs.readFileSync(model), {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential',
  });
  const fashion = model.includes('fashion');
  const shape = fashion ? [batch, 1, 28, 28] : [batch, 3, 224, 224];
  const n = shape.reduce((a, b) => a * b, 1);
  const input = fashion ? new ort.Tensor('uint8', new Uint8Array(n), shape) : new ort.Tensor('float32', new Float32Array(n), shape);
  const feeds = {[session.inputNames[0]]: input};
  for (let i = 0; i < 3; i++) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  console.log(`ort ${model.split('/').slice(-2).join('/')} threads=${threads} batch=${batch}: ` +
    `mean ${mean.toFixed(3)} ms, median ${ms[ms.length >> 1].toFixed(3)} ms, ${(batch * 1000 / mean).toFixed(1)} images/s`);
}

main();
