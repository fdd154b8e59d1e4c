// Creates a package skeleton under packages/<name>: package.json, tsconfig, jest config, src/index.ts.
// Usage: node scripts/new-package.js <folder> '<description>' [dep=version ...] [--dev dep=version ...]
const fs = require('node:fs');
const path = require('node:path');
const [folder, description, ...rest] = process.argv.slice(2);
if (!folder || !description) throw new Error('usage: new-package.js <folder> <description> [deps]');
const dir = path.join(__dirname, '..', 'packages', folder);
const deps = {};
const devDeps = {};
let target = deps;
for (const arg of rest) {
  if (arg === '--dev') {
    target = devDeps;
    continue;
  }
  const at = arg.lastIndexOf('=');
  target[arg.slice(0, at)] = arg.slice(at + 1);
}
fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
// Publishable from the start: the same fields every package under packages/ has (README.md, "Use a loader").
const pkg = {
  name: `@kbqa/${folder}`,
  version: '0.1.0',
  description,
  license: 'MIT',
  repository: { type: 'git', url: 'git+https://github.com/kbqa/kbqa.git', directory: `packages/${folder}` },
  homepage: `https://github.com/kbqa/kbqa/tree/main/packages/${folder}#readme`,
  engines: { node: '>=20' },
  main: 'dist/index.js',
  types: 'dist/index.d.ts',
  exports: {
    '.': { types: './dist/index.d.ts', default: './dist/index.js' },
    './package.json': './package.json',
  },
  files: ['dist', '!dist/**/*.map'],
  publishConfig: { access: 'public' },
  scripts: {
    build: 'tsc -p tsconfig.build.json',
    typecheck: 'tsc -p tsconfig.json --noEmit',
    lint: 'eslint .',
    test: 'jest --passWithNoTests=false',
  },
  dependencies: deps,
  devDependencies: devDeps,
};
const write = (f, s) => {
  if (!fs.existsSync(path.join(dir, f))) fs.writeFileSync(path.join(dir, f), s);
};
write('package.json', JSON.stringify(pkg, null, 2) + '\n');
write(
  'tsconfig.json',
  JSON.stringify(
    {
      extends: '../../tsconfig.base.json',
      compilerOptions: { rootDir: '.', outDir: 'dist-check', types: ['node', 'jest'] },
      include: ['src', 'test'],
    },
    null,
    2,
  ) + '\n',
);
write(
  'tsconfig.build.json',
  JSON.stringify(
    {
      extends: '../../tsconfig.base.json',
      compilerOptions: { rootDir: 'src', outDir: 'dist' },
      include: ['src'],
      exclude: ['src/**/*.spec.ts'],
    },
    null,
    2,
  ) + '\n',
);
write('jest.config.js', "module.exports = { ...require('../../jest.preset.js') };\n");
write('src/index.ts', 'export {};\n');
fs.copyFileSync(path.join(__dirname, '..', 'LICENSE'), path.join(dir, 'LICENSE'));
