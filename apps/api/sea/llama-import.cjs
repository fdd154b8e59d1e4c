// Loaded from the cache by a real require (sea/llama.js): the SEA's main script cannot import() a
// file, a module read from disk can.
'use strict';
module.exports = (url) => import(url);
