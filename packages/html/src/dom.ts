import type { JSDOM as JSDOMType, VirtualConsole as VirtualConsoleType } from 'jsdom';

/** Which DOM implementation parses the page. */
export type DomImplementation = 'linkedom' | 'jsdom';

// linkedom's package types resolve only for ES-module importers; its CommonJS build is what
// node loads from our CommonJS output, so it is required with the one signature we use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseHTML } = require('linkedom') as { parseHTML: (html: string) => { document: unknown } };

let jsdom: { JSDOM: typeof JSDOMType; VirtualConsole: typeof VirtualConsoleType } | undefined;

/** Parses HTML into a document; no scripts run and no sub-resources load in either DOM. */
export function parseDocument(html: string, url: string, dom: DomImplementation): Document {
  if (dom === 'jsdom') {
    // jsdom takes half a second to load; only callers who ask for it pay that.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    jsdom ??= require('jsdom') as typeof jsdom & object;
    const { JSDOM, VirtualConsole } = jsdom;
    // A silent console: malformed CSS and the like are not our logs' business.
    return new JSDOM(html, { url, virtualConsole: new VirtualConsole() }).window.document;
  }
  // linkedom treats a document without <html> oddly; give fragments a shell.
  const source = /<html[\s>]/i.test(html.slice(0, 4096))
    ? html
    : `<!doctype html><html><body>${html}</body></html>`;
  return parseHTML(source).document as Document;
}
