// Builds the single executable dist/kbqa-linux-x64 (repository root): the server and CLI bundled
// into one CommonJS file by esbuild (from tsc's output, which keeps the decorator metadata Nest
// needs), run by a copy of this Node.js as a single executable application (SEA). Native pieces and
// web assets travel as SEA assets; sea/entry.js extracts them on first run. `pnpm build:binary`.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const work = join(here, 'dist-binary');
const output = join(root, 'dist', 'kbqa-linux-x64');
const require = createRequire(join(here, 'package.json'));
const fromStore = createRequire(join(root, 'packages', 'store-sqlite', 'package.json'));
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const seaDir = join(here, 'sea');

if (process.platform !== 'linux' || process.arch !== 'x64')
  throw new Error('build:binary builds linux-x64 on linux-x64');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
mkdirSync(dirname(output), { recursive: true });

// Packages that Nest, TypeORM and others require only when a feature is used that kbqa does not use.
const unused = [
  '@nestjs/microservices',
  '@nestjs/microservices/microservices-module',
  '@nestjs/websockets',
  '@nestjs/websockets/socket-module',
  '@fastify/static',
  '@fastify/view',
  'class-transformer/storage',
  // pg itself is bundled: KBQA_DATABASE_URL (@kbqa/store-postgres, TypeORM's postgres driver).
  'pg-native',
  'pg-cloudflare',
  'pg-query-stream',
  'mysql',
  'mysql2',
  'oracledb',
  'mssql',
  'sqlite3',
  'sql.js',
  'mongodb',
  'hdb-pool',
  '@sap/hana-client',
  '@sap/hana-client/extension/Stream',
  'typeorm-aurora-data-api-driver',
  'react-native-sqlite-storage',
  '@google-cloud/spanner',
  'redis',
];

/** Rewrites what only works inside node_modules: package.json reads and require.resolve of assets. */
const seaPatches = {
  name: 'kbqa-sea',
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, () => ({ path: join(seaDir, 'bindings.js') }));
    // A missing optional package fails at its require as in node_modules, without the SEA's warning
    // about requiring from disk.
    const unusedFilter = new RegExp(
      `^(${unused.map((u) => u.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`,
    );
    b.onResolve({ filter: unusedFilter }, (args) => ({ path: args.path, namespace: 'kbqa-unused' }));
    b.onLoad({ filter: /.*/, namespace: 'kbqa-unused' }, (args) => ({
      contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}'`)}), { code: 'MODULE_NOT_FOUND' });`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^sqlite-vec$/ }, () => ({ path: join(seaDir, 'sqlite-vec.js') }));
    // transformers.js loads sharp for images only; kbqa embeds text, so sharp's native build stays out.
    b.onResolve({ filter: /^sharp$/ }, () => ({ path: join(seaDir, 'sharp.js') }));
    const nativeJs = JSON.stringify(join(seaDir, 'native.js'));
    /** Replaces `from` in the file, failing the build when a new version no longer has it. */
    const patch = (filter, from, to) =>
      b.onLoad({ filter }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(from)) throw new Error(`build:binary: ${args.path} no longer has ${from}`);
        return { contents: text.replace(from, to), loader: 'js' };
      });
    // ONNX Runtime for the embedding worker: transformers.js requires onnxruntime-node through
    // createRequire, which esbuild cannot follow, and onnxruntime-node requires its addon by a path
    // inside node_modules; the addon and libonnxruntime.so.1 (found beside it, RUNPATH $ORIGIN)
    // are extracted to the cache.
    patch(
      /@huggingface\/transformers\/dist\/transformers\.node\.cjs$/,
      'requireFromHere("onnxruntime-node")',
      'require("onnxruntime-node")',
    );
    patch(
      /onnxruntime-node\/dist\/binding\.js$/,
      'require(`../bin/napi-v6/${process.platform}/${process.arch}/onnxruntime_binding.node`)',
      `require(${nativeJs}).loadAddon('onnxruntime_binding.node')`,
    );
    // KBQA_LLM=local: node-llama-cpp is an ES module tree with top-level await, loaded unbundled
    // from its own file layout in the cache (llamaRuntime below) by sea/llama.js.
    patch(
      /llm-local\/dist\/local-llm\.js$/,
      "import('node-llama-cpp')",
      `require(${JSON.stringify(join(seaDir, 'llama.js'))}).importNodeLlamaCpp()`,
    );
    // PDFs: the reading thread imports pdfjs-dist's legacy build by path, from its node_modules
    // layout extracted to the cache (pdfjsRuntime below).
    patch(
      /loader-files\/dist\/pdf\.js$/,
      'require.resolve(PDFJS_MODULE)',
      `require(${nativeJs}).file(...${JSON.stringify(PDFJS_PATH)})`,
    );
    patch(
      /embedder\/dist\/transformers\.embedder\.js$/,
      "node_path_1.default.join(__dirname, 'embed.worker.js')",
      `require(${nativeJs}).file('embed.worker.js')`,
    );
    // The read pool's worker scripts travel as assets too (bundled below) and run from the cache.
    b.onLoad({ filter: /read-pool\/dist\/read-pool\.js$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      for (const name of ['read-worker.js', 'checkpoint-worker.js']) {
        const call = `(0, node_path_1.join)(__dirname, '..', 'dist', '${name}')`;
        if (!text.includes(call))
          throw new Error(`build:binary: read-pool no longer finds ${name} as ${call}`);
        text = text.replace(call, `require(${nativeJs}).file('${name}')`);
      }
      return { contents: text, loader: 'js' };
    });
    b.onLoad(
      { filter: /apps\/api\/dist\/(config\/config|dashboard\/dashboard-static|widget\/widget-route)\.js$/ },
      (args) => {
        let text = readFileSync(args.path, 'utf8');
        text = text.replace(
          /\(0, node_fs_1\.readFileSync\)\(\(0, node_path_1\.join\)\(__dirname, '\.\.', '\.\.', 'package\.json'\), 'utf8'\)/,
          JSON.stringify(JSON.stringify({ version: pkg.version })),
        );
        text = text.replace(/require\.resolve\(/g, `require(${nativeJs}).resolveAsset(`);
        return { contents: text, loader: 'js' };
      },
    );
  },
};

/** Where pdf.mjs sits in the cache, as the parts of a path. */
const PDFJS_PATH = ['pdfjs', 'node_modules', 'pdfjs-dist', 'legacy', 'build', 'pdf.mjs'];

const bundle = join(work, 'kbqa.cjs');
const result = await build({
  entryPoints: [join(seaDir, 'entry.js')],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  plugins: [seaPatches],
  // The SEA's require loads built-in modules only, and warns on anything else; optional packages
  // probed with a computed name (Nest's loadPackage) get the usual MODULE_NOT_FOUND instead.
  banner: {
    js: `require = ((seaRequire) => { const { isBuiltin } = seaRequire('node:module'); return function require(id) { if (isBuiltin(id)) return seaRequire(id); throw Object.assign(new Error("Cannot find module '" + id + "'"), { code: 'MODULE_NOT_FOUND' }); }; })(require);`,
  },
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
  // jsdom's synchronous XMLHttpRequest worker, which nothing in kbqa uses.
  logOverride: { 'require-resolve-not-external': 'silent' },
  metafile: true,
});
writeFileSync(join(work, 'meta.json'), JSON.stringify(result.metafile));

// The worker threads: each its own bundle, run by the binary's Node from the cache folder, where
// it finds the native files beside it. The read pool's (without them search ran on the event
// loop) and the embedding worker (transformers.js and ONNX Runtime's JavaScript).
const readPoolDist = join(root, 'packages', 'read-pool', 'dist');
const embedderDist = join(dirname(require.resolve('@kbqa/embedder/package.json')), 'dist');
const workers = {};
for (const [name, script] of [
  ['read-worker.js', join(readPoolDist, 'read-worker.js')],
  ['checkpoint-worker.js', join(readPoolDist, 'checkpoint-worker.js')],
  ['embed.worker.js', join(embedderDist, 'embed.worker.js')],
]) {
  workers[name] = join(work, name);
  await build({
    stdin: {
      contents: `require('./native').setRoot(__dirname);\nrequire(${JSON.stringify(script)});\n`,
      resolveDir: seaDir,
      sourcefile: `sea-${name}`,
    },
    outfile: workers[name],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [seaPatches],
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
}

// The assets: name in the binary -> file here.
const assets = {
  'better_sqlite3.node': join(
    dirname(fromStore.resolve('better-sqlite3/package.json')),
    'build',
    'Release',
    'better_sqlite3.node',
  ),
  'vec0.so': fromStore.resolve('sqlite-vec-linux-x64/vec0.so', {
    paths: [dirname(fromStore.resolve('sqlite-vec'))],
  }),
  ...onnxRuntime(),
  ...llamaRuntime(),
  ...pdfjsRuntime(),
  'llama-import.cjs': join(seaDir, 'llama-import.cjs'),
  'dashboard/package.json': require.resolve('@kbqa/dashboard/package.json'),
  ...workers,
};
for (const [pkgName, prefix] of [
  ['@kbqa/dashboard', 'dashboard/dist'],
  ['@kbqa/widget', 'widget/dist'],
]) {
  const dist = join(dirname(require.resolve(`${pkgName}/package.json`)), 'dist');
  for (const f of readdirSync(dist))
    if (statSync(join(dist, f)).isFile()) assets[`${prefix}/${f}`] = join(dist, f);
}
/** onnxruntime-node's CPU addon and the library it links, as its package ships them (no install script). */
function onnxRuntime() {
  const fromEmbedder = createRequire(require.resolve('@kbqa/embedder/package.json'));
  const fromTransformers = createRequire(fromEmbedder.resolve('@huggingface/transformers'));
  const bin = join(
    dirname(dirname(fromTransformers.resolve('onnxruntime-node'))),
    'bin',
    'napi-v6',
    'linux',
    'x64',
  );
  return Object.fromEntries(
    ['onnxruntime_binding.node', 'libonnxruntime.so.1'].map((name) => [name, join(bin, name)]),
  );
}

/**
 * node-llama-cpp as a node_modules tree under llama/: its JavaScript, the package tree it imports
 * (nested where two versions meet, as a package manager would), the CPU prebuilt for linux-x64 and
 * the few llama/ files it reads. Left out: type declarations, source maps, the llama.cpp source
 * bundle and the GPU prebuilds (kbqa runs it with gpu: false).
 */
function llamaRuntime() {
  const top = resolvePackage(dirname(require.resolve('@kbqa/llm-local/package.json')), 'node-llama-cpp');
  const files = {};
  const placed = new Map(); // folder in the cache -> real folder
  const keep = (file) => /\.(js|cjs|mjs|json|node|so|gbnf)$/.test(file) && !file.endsWith('.d.ts');
  const add = (real, out, skip = () => false) => {
    const walk = (dir) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        const rel = relative(real, full).split(sep).join('/');
        if (entry.name === 'node_modules' || skip(rel)) continue;
        if (entry.isDirectory()) walk(full);
        else if (rel === 'package.json' || (keep(entry.name) && !entry.name.endsWith('.map')))
          files[`${out}/${rel}`] = full;
      }
    };
    walk(real);
  };
  const llamaSkip = (rel) =>
    rel.startsWith('llama/') &&
    !['llama/package.json', 'llama/binariesGithubRelease.json', 'llama/llama.cpp.info.json'].includes(rel) &&
    !rel.startsWith('llama/grammars/');
  const queue = [[top, 'llama/node_modules/node-llama-cpp']];
  placed.set('llama/node_modules/node-llama-cpp', top);
  add(
    top,
    'llama/node_modules/node-llama-cpp',
    (rel) => llamaSkip(rel) || rel.startsWith('bins/') || rel.startsWith('templates/'),
  );
  while (queue.length > 0) {
    const [real, out] = queue.shift();
    const manifest = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8'));
    const names = Object.keys(manifest.dependencies ?? {});
    if (real === top) names.push('@node-llama-cpp/linux-x64');
    for (const name of names) {
      const found = resolvePackage(real, name);
      if (!found) throw new Error(`build:binary: ${manifest.name} needs ${name}, which is not installed`);
      // Node looks in out/node_modules, then each folder above: the nearest copy must be this one.
      let nearest;
      for (let dir = out; dir !== undefined; dir = /^(.*)\/node_modules\/(@[^/]+\/)?[^/]+$/.exec(dir)?.[1]) {
        if (placed.has(`${dir}/node_modules/${name}`)) {
          nearest = `${dir}/node_modules/${name}`;
          break;
        }
      }
      if (nearest && placed.get(nearest) === found) continue;
      const target = nearest ? `${out}/node_modules/${name}` : `llama/node_modules/${name}`;
      placed.set(target, found);
      add(found, target);
      queue.push([found, target]);
    }
  }
  return files;
}

/**
 * pdfjs-dist's legacy build as a node_modules tree under pdfjs/: pdf.mjs loads pdf.worker.mjs
 * beside it (its fake worker in Node) and requires @napi-rs/canvas from its own place at import,
 * for the DOMMatrix it needs before reading any page. Left out: the viewer, the sandbox, cmaps,
 * standard fonts and wasm decoders, which kbqa's text extraction does not ask for (pdf.ts passes
 * no cMapUrl, standardFontDataUrl or wasmUrl, in Node builds as here).
 */
function pdfjsRuntime() {
  const pdfjs = resolvePackage(dirname(require.resolve('@kbqa/loader-files/package.json')), 'pdfjs-dist');
  const canvas = resolvePackage(pdfjs, '@napi-rs/canvas');
  const skia = canvas && resolvePackage(canvas, '@napi-rs/canvas-linux-x64-gnu');
  if (!skia)
    throw new Error('build:binary: pdfjs-dist needs @napi-rs/canvas-linux-x64-gnu, which is not installed');
  const files = {};
  const take = (real, out, names) => {
    for (const name of names) files[`pdfjs/node_modules/${out}/${name}`] = join(real, name);
  };
  take(pdfjs, 'pdfjs-dist', ['package.json', 'legacy/build/pdf.mjs', 'legacy/build/pdf.worker.mjs']);
  take(
    canvas,
    '@napi-rs/canvas',
    readdirSync(canvas).filter((f) => f === 'package.json' || (f.endsWith('.js') && !f.endsWith('.d.ts'))),
  );
  take(skia, '@napi-rs/canvas-linux-x64-gnu', ['package.json', 'skia.linux-x64-gnu.node']);
  return files;
}

/** The folder of package `name` as Node finds it from inside the package at `from`. */
function resolvePackage(from, name) {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
  }
  return undefined;
}

const hash = createHash('sha256');
hash.update(readFileSync(bundle));
for (const [name, file] of Object.entries(assets).sort()) hash.update(name).update(readFileSync(file));
// Native libraries and large scripts travel gzipped and are inflated once, on extraction: the
// llama.cpp and ONNX Runtime libraries compress to well under half, which keeps the executable
// under the limit (figures in docs/benchmarks.md, "Single executable").
const gzipped = [];
mkdirSync(join(work, 'gz'), { recursive: true });
for (const [name, file] of Object.entries(assets)) {
  const raw = readFileSync(file);
  if (raw.length < 256 * 1024) continue;
  const packed = gzipSync(raw, { level: 9 });
  if (packed.length > raw.length * 0.9) continue;
  const out = join(work, 'gz', `${name.replaceAll('/', '__')}.gz`);
  writeFileSync(out, packed);
  assets[name] = out;
  gzipped.push(name);
}
const manifest = {
  version: pkg.version,
  hash: hash.digest('hex').slice(0, 16),
  files: Object.keys(assets).sort(),
  gzipped: gzipped.sort(),
};
writeFileSync(join(work, 'manifest.json'), JSON.stringify(manifest));
assets['manifest.json'] = join(work, 'manifest.json');

const seaConfig = join(work, 'sea-config.json');
const blob = join(work, 'sea-prep.blob');
writeFileSync(
  seaConfig,
  JSON.stringify({
    main: bundle,
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets,
  }),
);
// Their chatter ("Wrote single executable preparation blob", "Injection done!") is shown only
// when they fail, so the build ends with the one line that says what it made.
const quiet = (args) => {
  try {
    execFileSync(process.execPath, args, { stdio: 'pipe' });
  } catch (e) {
    process.stderr.write(`${e.stdout ?? ''}${e.stderr ?? ''}`);
    throw e;
  }
};
quiet(['--experimental-sea-config', seaConfig]);
rmSync(output, { force: true });
copyFileSync(process.execPath, output);
chmodSync(output, 0o755);
quiet([
  require.resolve('postject/dist/cli.js'),
  output,
  'NODE_SEA_BLOB',
  blob,
  '--sentinel-fuse',
  'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
]);
const mb = (statSync(output).size / 1e6).toFixed(1);
// Issue 38's limit (decimal megabytes): one download a user accepts for a single-file install.
if (statSync(output).size > 200e6)
  throw new Error(`build:binary: ${relative(root, output)} is ${mb} MB, over the 200 MB limit`);
console.log(
  `built ${relative(root, output)}: ${mb} MB (bundle ${(statSync(bundle).size / 1e6).toFixed(1)} MB)`,
);
