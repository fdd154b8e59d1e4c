// Run in an empty folder after `npm install @kbqa/loader-github`: loads the documentation files of a
// repository, as packages/loader-github/README.md shows. CommonJS on purpose: `require` works too.
const { AddressPolicy } = require('@kbqa/fetcher');
const { GithubLoader } = require('@kbqa/loader-github');

async function main() {
  const [base, repoUrl] = process.argv.slice(2);
  const guard = new AddressPolicy({ allowPrivateHosts: [new URL(base).host] });
  const loader = new GithubLoader({ guard, baseUrls: [base] });
  const context = { signal: AbortSignal.timeout(60_000), progress: () => {} };
  const docs = [];
  for await (const doc of loader.load({ url: repoUrl }, context))
    docs.push({ source: doc.source, content: doc.content });
  process.stdout.write(JSON.stringify(docs));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
