// KBQA_LLM=local in the binary: node-llama-cpp, an ES module tree with top-level await, runs
// unbundled from its node_modules layout extracted to the cache (build-binary.mjs, llamaRuntime).
'use strict';
const { pathToFileURL } = require('node:url');
const native = require('./native');

const dist = (...parts) => native.file('llama', 'node_modules', 'node-llama-cpp', 'dist', ...parts);

/** Imports an ES module file of the extracted tree. */
function importFile(file) {
  return native.loadAddon('llama-import.cjs')(pathToFileURL(file).href);
}

/** What `import('node-llama-cpp')` gives in node_modules. */
function importNodeLlamaCpp() {
  return importFile(dist('index.js'));
}

/**
 * node-llama-cpp tries its native binding in a child process before loading it (a binary the CPU
 * cannot run would crash the service): fork() of its testBindingBinary.js, which here starts the
 * binary itself with that file as its argument. Returns whether this process is that child.
 */
function runBindingTest(argv, env) {
  const script = dist('bindings', 'utils', 'testBindingBinary.js');
  if (argv[2] !== script || env.TEST_BINDING_CP !== 'true') return false;
  importFile(script).catch((error) => {
    console.error(error);
    process.exit(1);
  });
  return true;
}

module.exports = { importNodeLlamaCpp, runBindingTest };
