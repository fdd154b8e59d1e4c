import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** A third-party package at one exact version, and the folder pnpm installed it in. */
export interface LockedPackage {
  name: string;
  version: string;
  dir: string;
}

interface Section {
  [section: string]: Record<string, string>;
}

/**
 * The parts of pnpm-lock.yaml (lockfile v9) the closure needs: for each importer (workspace
 * folder) and each snapshot (`name@version(peers)`), its dependency sections as name -> version.
 * A line-based reader, since the lockfile's layout is fixed and no YAML parser is a dependency here.
 */
export function readLockfile(text: string): {
  importers: Map<string, Section>;
  snapshots: Map<string, Section>;
} {
  const importers = new Map<string, Section>();
  const snapshots = new Map<string, Section>();
  const unquote = (s: string) => s.trim().replace(/^'(.*)'$/, '$1');
  let top = '';
  let entry: Section | undefined;
  let section: Record<string, string> | undefined;
  let dep = '';
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) {
      top = line.replace(/:.*$/, '');
      entry = undefined;
      continue;
    }
    if (top !== 'importers' && top !== 'snapshots') continue;
    const m = /^( +)(.*)$/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    const indent = m[1].length;
    const body = m[2];
    if (indent === 2) {
      const key = unquote(body.replace(/:( \{\})?$/, ''));
      entry = {};
      (top === 'importers' ? importers : snapshots).set(key, entry);
    } else if (indent === 4 && entry) {
      const name = body.replace(/:$/, '');
      section = /^(dependencies|optionalDependencies|devDependencies)$/.test(name)
        ? (entry[name] = {})
        : undefined;
    } else if (indent === 6 && section) {
      // importers: `name:` then `version:` below; snapshots: `name: version`.
      const i = body.startsWith("'") ? body.indexOf("'", 1) + 1 : body.indexOf(':');
      dep = unquote(body.slice(0, i));
      const rest = body.slice(i + 1).trim();
      if (rest) section[dep] = unquote(rest);
    } else if (indent === 8 && section && body.startsWith('version:')) {
      section[dep] = unquote(body.slice('version:'.length));
    }
  }
  return { importers, snapshots };
}

/**
 * Every third-party package@version that installing the workspace packages in `roots` (folders
 * relative to the workspace, e.g. `packages/loader-url`) can need: their dependencies and
 * optional dependencies, workspace links and workspace peers followed, then each snapshot's
 * dependencies and optional dependencies (pnpm lists resolved peers among them). Optional
 * packages pnpm did not install (other platforms) are left out; npm skips an optional dependency
 * it cannot fetch.
 */
export function lockClosure(workspace: string, roots: string[]): LockedPackage[] {
  const { importers, snapshots } = readLockfile(readFileSync(join(workspace, 'pnpm-lock.yaml'), 'utf8'));
  const storeDir = join(workspace, 'node_modules', '.pnpm');
  const store = readdirSync(storeDir);
  const seenImporters = new Set<string>();
  const seen = new Map<string, { name: string; version: string; required: boolean }>();
  const queue: Array<{ key: string; required: boolean }> = [];

  function addDep(name: string, ref: string, required: boolean, from: string): void {
    if (ref.startsWith('link:')) {
      visitImporter(posix.normalize(posix.join(from, ref.slice('link:'.length))));
      return;
    }
    // An alias (`string-width-cjs: string-width@4.2.3`) names the real package in its version.
    const aliased = /^(@?[^@(]+)@(.+)$/.exec(ref);
    const key = aliased ? ref : `${name}@${ref}`;
    const [, realName = '', versionWithPeers = ''] = /^(@?[^@]+)@(.+)$/.exec(key) ?? [];
    const version = versionWithPeers.replace(/\(.*$/, '');
    const id = `${realName}@${version}`;
    const known = seen.get(id);
    if (known) known.required ||= required;
    else seen.set(id, { name: realName, version, required });
    // Visited again when first reached only through optional dependencies and now required.
    const state = visitedSnapshots.get(key);
    if (state === undefined || (required && !state)) {
      visitedSnapshots.set(key, required);
      queue.push({ key, required });
    }
  }
  // Snapshot key -> whether it was reached through required dependencies only.
  const visitedSnapshots = new Map<string, boolean>();

  function visitImporter(path: string): void {
    if (seenImporters.has(path)) return;
    seenImporters.add(path);
    const entry = importers.get(path);
    if (!entry) throw new Error(`pnpm-lock.yaml has no importer ${path}`);
    for (const [name, ref] of Object.entries(entry.dependencies ?? {})) addDep(name, ref, true, path);
    for (const [name, ref] of Object.entries(entry.optionalDependencies ?? {}))
      addDep(name, ref, false, path);
    // Peers a workspace package asks for (e.g. the loaders' @kbqa/fetcher) are installed by npm too.
    const manifest = JSON.parse(readFileSync(join(workspace, path, 'package.json'), 'utf8')) as {
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    for (const name of Object.keys(manifest.peerDependencies ?? {})) {
      if (manifest.peerDependenciesMeta?.[name]?.optional) continue;
      const ref = entry.dependencies?.[name] ?? entry.devDependencies?.[name];
      if (ref) addDep(name, ref, true, path);
    }
  }

  for (const root of roots) visitImporter(root);
  while (queue.length > 0) {
    const { key, required } = queue.shift() as { key: string; required: boolean };
    const entry = snapshots.get(key);
    if (!entry) throw new Error(`pnpm-lock.yaml has no snapshot ${key}`);
    for (const [name, ref] of Object.entries(entry.dependencies ?? {})) addDep(name, ref, required, '');
    for (const [name, ref] of Object.entries(entry.optionalDependencies ?? {})) addDep(name, ref, false, '');
  }

  const packages: LockedPackage[] = [];
  const missing: string[] = [];
  for (const { name, version, required } of seen.values()) {
    // pnpm's folder: `<name with / as +>@<version>` and, with peers, `_<peers>` (hashed when long).
    const prefix = `${name.replace('/', '+')}@${version}`;
    const folder = store.find((d) => d === prefix || d.startsWith(`${prefix}_`));
    const dir = folder && join(storeDir, folder, 'node_modules', name);
    if (dir && existsSync(join(dir, 'package.json'))) packages.push({ name, version, dir });
    else if (required) missing.push(`${name}@${version}`);
  }
  if (missing.length > 0) throw new Error(`not installed in node_modules/.pnpm: ${missing.join(', ')}`);
  return packages.sort((a, b) =>
    a.name === b.name ? compareVersions(a.version, b.version) : a.name < b.name ? -1 : 1,
  );
}

/** semver order for exact versions (a prerelease sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.split(/-(.*)/s);
    return { nums: core.split('.').map(Number), pre: pre ? pre.split('.') : [] };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

/** Packs a package folder as npm does: every file under `package/`, gzipped (fast level). */
function pack(dir: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // --hard-dereference: pnpm's store hard-links identical files, and a tar hard-link entry
    // would not come back as a file in npm's extraction. node_modules/.bin is pnpm's, not the
    // package's: its scripts point at pnpm's layout (better-sqlite3's prebuild-install would not run).
    const tar = spawn(
      'tar',
      [
        '-c',
        '--hard-dereference',
        '--owner=0',
        '--group=0',
        '--exclude=./node_modules/.bin',
        '--transform',
        's,^\\.,package,',
        '-C',
        dir,
        '.',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const gzip = spawn('gzip', ['-1', '-n'], { stdio: ['pipe', 'pipe', 'pipe'] });
    tar.stdout.pipe(gzip.stdin);
    const out: Buffer[] = [];
    let err = '';
    tar.stderr.on('data', (d: Buffer) => (err += d.toString()));
    gzip.stdout.on('data', (d: Buffer) => out.push(d));
    // gzip can close before tar's own 'close' event arrives: wait for both exit codes.
    const exited = (child: ChildProcess) =>
      new Promise<number | null>((done) => child.on('close', (code: number | null) => done(code)));
    void Promise.all([exited(tar), exited(gzip)]).then(([tarCode, gzipCode]) => {
      if (gzipCode !== 0 || tarCode !== 0)
        reject(new Error(`packing ${dir} failed (${tarCode}/${gzipCode}): ${err}`));
      else resolve(Buffer.concat(out));
    });
    tar.on('error', reject);
    gzip.on('error', reject);
  });
}

/**
 * Writes `packages` into an (unstarted) Verdaccio's local storage the way its local-storage plugin
 * lays out a published package: `<storage>/<name>/package.json` (the packument) beside
 * `<basename>-<version>.tgz`. Faster than publishing hundreds of packages one by one, and has no
 * request size limit (onnxruntime-node is about 290 MB unpacked). `latest` is the highest release.
 */
export async function seedStorage(
  storage: string,
  packages: LockedPackage[],
  concurrency = 2,
): Promise<void> {
  const byName = new Map<string, LockedPackage[]>();
  for (const p of packages) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  const names = [...byName.keys()];
  const worker = async () => {
    for (let name = names.shift(); name !== undefined; name = names.shift()) {
      const versions = (byName.get(name) as LockedPackage[]).sort((a, b) =>
        compareVersions(a.version, b.version),
      );
      const folder = join(storage, name);
      await mkdir(folder, { recursive: true });
      const base = name.slice(name.lastIndexOf('/') + 1);
      const now = new Date().toISOString();
      const packument = {
        name,
        _id: name,
        versions: {} as Record<string, unknown>,
        time: { created: now, modified: now } as Record<string, string>,
        users: {},
        'dist-tags': {} as Record<string, string>,
        _uplinks: {},
        _distfiles: {},
        _attachments: {} as Record<string, { shasum: string; version: string }>,
        _rev: `1-${randomBytes(8).toString('hex')}`,
        readme: '',
      };
      for (const { version, dir } of versions) {
        const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<
          string,
          unknown
        >;
        if (manifest.name !== name || manifest.version !== version) {
          throw new Error(
            `${dir}/package.json is ${String(manifest.name)}@${String(manifest.version)}, not ${name}@${version}`,
          );
        }
        const tgz = await pack(dir);
        const file = `${base}-${version}.tgz`;
        await writeFile(join(folder, file), tgz);
        const shasum = createHash('sha1').update(tgz).digest('hex');
        const integrity = `sha512-${createHash('sha512').update(tgz).digest('base64')}`;
        delete manifest.readme;
        packument.versions[version] = {
          ...manifest,
          _id: `${name}@${version}`,
          // Verdaccio rewrites the host to its own when it serves the packument.
          dist: { shasum, integrity, tarball: `http://localhost/${name}/-/${file}` },
        };
        packument.time[version] = now;
        packument._attachments[file] = { shasum, version };
      }
      const releases = versions.filter((v) => !v.version.includes('-'));
      packument['dist-tags'].latest = (releases.length > 0 ? releases : versions).at(-1)?.version as string;
      await writeFile(join(folder, 'package.json'), JSON.stringify(packument));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
