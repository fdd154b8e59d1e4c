// Deterministic stand-ins for embeddings, for benchmarks that need vectors without a model (no
// model weights are fetched by benchmarks): 384-dimension normalized vectors around 1,000 cluster
// centroids, the clustered shape real sentence embeddings have. Shared by latency.js and
// store-scale.js, so both stores of a comparison hold the very same floats.
'use strict';

const DIM = 384;
const CENTROIDS = 1000;

function rng(seed) {
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

function normalize(v) {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

const centroids = (() => {
  const r = rng(12345);
  return Array.from({ length: CENTROIDS }, () =>
    normalize(Float32Array.from({ length: DIM }, () => r() - 0.5)),
  );
})();

/** Vector of chunk i: its cluster centroid plus noise (|noise| ≈ 1.1), normalized. */
function vectorOf(i, out = new Float32Array(DIM)) {
  const r = rng(i + 1);
  const c = centroids[Math.floor(r() * CENTROIDS)];
  for (let d = 0; d < DIM; d++) out[d] = c[d] + (r() - 0.5) * 0.2;
  return normalize(out);
}

/** A query near chunk i: its vector plus noise (cos ≈ 0.95 to it). */
function queryVector(i) {
  const v = vectorOf(i);
  const r = rng(9_000_000 + i);
  for (let d = 0; d < DIM; d++) v[d] += (r() - 0.5) * 0.03;
  return normalize(v);
}

module.exports = { DIM, CENTROIDS, rng, normalize, vectorOf, queryVector };
