// Stands in for the `sqlite-vec` package in the binary: the extension is extracted beside the addons.
'use strict';
const native = require('./native');

function getLoadablePath() {
  return native.file('vec0.so');
}

function load(db) {
  db.loadExtension(getLoadablePath());
}

module.exports = { getLoadablePath, load };
