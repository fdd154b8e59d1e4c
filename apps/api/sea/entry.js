// Entry point of the single executable (dist/kbqa-linux-x64): extracts the native pieces and the
// web assets once per build into a cache folder, then runs the CLI (`start` serves the API).
'use strict';
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const sea = require('node:sea');
const zlib = require('node:zlib');
const native = require('./native');

const manifest = JSON.parse(sea.getAsset('manifest.json', 'utf8'));
/** The assets the build stored gzipped (native libraries, large scripts): inflated on extraction. */
const gzipped = new Set(manifest.gzipped ?? []);

function cacheRoot() {
  // The binary's only configuration read outside loadConfig: where to extract, before the app exists.
  const base =
    process.env.KBQA_CACHE_DIR ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kbqa');
  return path.join(base, `binary-${manifest.version}-${manifest.hash}`);
}

/** Writes every asset into a fresh folder and renames it into place, so a crash never leaves half a cache. */
function extract(dir) {
  if (fs.existsSync(path.join(dir, '.complete'))) return;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = fs.mkdtempSync(`${dir}.tmp-`);
  for (const name of manifest.files) {
    const target = path.join(tmp, ...name.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const raw = new Uint8Array(sea.getRawAsset(name));
    fs.writeFileSync(target, gzipped.has(name) ? zlib.gunzipSync(raw) : raw);
  }
  fs.writeFileSync(
    path.join(tmp, 'package.json'),
    JSON.stringify({ name: 'kbqa-binary-cache', private: true }),
  );
  fs.writeFileSync(path.join(tmp, '.complete'), createHash('sha256').update(manifest.hash).digest('hex'));
  try {
    fs.renameSync(tmp, dir);
  } catch (e) {
    // Another process extracted the same build first: use its copy.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(path.join(dir, '.complete'))) throw e;
  }
}

const dir = cacheRoot();
extract(dir);
native.setRoot(dir);

if (!require('./llama').runBindingTest(process.argv, process.env)) require('../dist/cli.js');
