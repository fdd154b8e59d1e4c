// `pnpm start`: builds what changed, saying so (a first build takes a minute or two), then serves
// in this same process, so that a signal sent to `pnpm start` reaches the server itself: behind
// `ensure-built && node main.js` it ended the shell in between and left the server running.
'use strict';
const path = require('node:path');
const { buildWithProgress } = require('./ensure-built.js');

void buildWithProgress().then(() => require(path.join(__dirname, '..', 'apps', 'api', 'dist', 'main.js')));
