// The binary's view of files that a normal install finds in node_modules: native addons, the
// sqlite-vec extension and the dashboard and widget builds. They travel as SEA assets and are
// extracted once into a cache folder (entry.js); the bundle's shims for `bindings` and
// `sqlite-vec` and its require.resolve calls come here for their paths.
'use strict';
const { createRequire } = require('node:module');
const path = require('node:path');

let root;

function setRoot(dir) {
  root = dir;
}

function file(...parts) {
  if (!root) throw new Error('kbqa binary: native files are not extracted yet');
  return path.join(root, ...parts);
}

/** Loads a native addon from the cache: the SEA's own require only knows built-in modules. */
function loadAddon(...parts) {
  return createRequire(file('package.json'))(file(...parts));
}

/** What require.resolve answered in node_modules, answered from the extracted assets. */
function resolveAsset(request) {
  if (request === '@kbqa/dashboard/package.json') return file('dashboard', 'package.json');
  const widget = /^@kbqa\/widget\/dist\/([\w.-]+)$/.exec(request);
  if (widget) return file('widget', 'dist', widget[1]);
  throw new Error(`kbqa binary: no bundled file for ${request}`);
}

module.exports = { setRoot, file, loadAddon, resolveAsset };
