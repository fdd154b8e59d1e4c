// Stands in for the `bindings` package in the binary: better-sqlite3 asks it for its addon.
'use strict';
const native = require('./native');

module.exports = function bindings(name) {
  const file = typeof name === 'string' ? name : name.bindings;
  if (file !== 'better_sqlite3.node') throw new Error(`kbqa binary: no native addon ${file}`);
  return native.loadAddon('better_sqlite3.node');
};
