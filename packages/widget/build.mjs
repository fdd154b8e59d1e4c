// Bundles the widget into two minified files that the API serves beside each other:
// dist/widget.js, the script tag's file (launcher, panel, streaming, rating; a classic script), and
// dist/widget-markdown.js, an ES module with marked and DOMPurify that widget.js imports when the
// panel first opens, so that a page pays for Markdown only once a reader asks something.
import { build } from 'esbuild';

const common = { bundle: true, minify: true, target: ['es2020'], legalComments: 'none', logLevel: 'warning' };
await build({ ...common, entryPoints: ['src/widget.ts'], outfile: 'dist/widget.js', format: 'iife' });
await build({
  ...common,
  entryPoints: ['src/markdown.ts'],
  outfile: 'dist/widget-markdown.js',
  format: 'esm',
});
