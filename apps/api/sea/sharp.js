// Stands in for `sharp` in the binary: transformers.js needs it only to read images, and kbqa embeds
// text. It must be a function at load time, or transformers.js refuses to load at all.
'use strict';
module.exports = function sharp() {
  throw new Error('kbqa binary: images cannot be read (sharp is not in the single executable)');
};
