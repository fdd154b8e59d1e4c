// Run in an empty folder after `npm install @kbqa/loader-url @kbqa/chunker`: loads one page and chunks
// it, as packages/loader-url/README.md shows. ES module on purpose: the packages are CommonJS, and this
// proves that `import { … }` of their named exports works.
import { SafeFetcher } from '@kbqa/fetcher';
import { UrlLoader } from '@kbqa/loader-url';
import { MarkdownChunker } from '@kbqa/chunker';

const url = process.argv[2];
const fetcher = new SafeFetcher({ allowPrivateHosts: [new URL(url).host] });
const loader = new UrlLoader({ fetcher });
const chunker = new MarkdownChunker({ targetSize: 800 });
const context = { signal: AbortSignal.timeout(30_000), progress: () => {} };
const chunks = [];
for await (const doc of loader.load({ url }, context)) {
  for (const chunk of chunker.chunk(doc))
    chunks.push({ title: chunk.title, headingPath: chunk.headingPath, content: chunk.content });
}
process.stdout.write(JSON.stringify(chunks));
