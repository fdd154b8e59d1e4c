#!/usr/bin/env node
// Writes the tiny offline test model: node scripts/make-tiny-model.js [outDir] (default ./models).
// The logic lives in src/testing/tiny-model.ts; build the package first (pnpm run build).
'use strict';
const path = require('node:path');
const { makeTinyModel } = require('../dist/testing');

const outDir = path.resolve(process.argv[2] ?? 'models');
makeTinyModel(outDir).then(
  (dir) => console.log(`Tiny model written to ${dir}`),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
