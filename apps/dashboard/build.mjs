// Builds the dashboard into dist/: index.html, app.css and one bundled app.js (Preact, Chart.js,
// marked, DOMPurify), which the API serves under /dashboard.
import { copyFileSync, mkdirSync } from 'node:fs';
import { build } from 'esbuild';

mkdirSync('dist', { recursive: true });
await build({
  entryPoints: ['src/main.tsx'],
  outfile: 'dist/app.js',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync('src/index.html', 'dist/index.html');
copyFileSync('src/app.css', 'dist/app.css');
