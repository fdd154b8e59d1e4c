// Bundles the widget into one self-contained, minified script (dist/widget.js) that the API serves
// at /widget.js. esbuild rather than tsc: the browser needs one file with marked and DOMPurify in it.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/widget.ts'],
  outfile: 'dist/widget.js',
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  legalComments: 'none',
  logLevel: 'warning',
});
