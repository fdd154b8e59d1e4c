/**
 * The "Ask the docs" widget: `<script src="https://kbqa.example/widget.js" data-anon-key="…" defer>`.
 * A launcher button and Ctrl/⌘ K open a panel that asks the project's docs through the anon-key
 * endpoints of the API the script came from, streams the answer as sanitized Markdown with its
 * sources, and rates answers. Its citation markers are renumbered by page (@kbqa/text/citations) and
 * link to the cited passage (a text fragment) unless `data-text-fragments="off"`. Everything lives
 * in an open shadow root on one host element.
 * No framework: the whole widget must stay small enough to add to any page (docs/architecture.md).
 */
import {
  type CitableSource,
  citeAnswer,
  citedMarkdown,
  type CitedPage,
  webAddress,
} from '@kbqa/text/citations';
import { controlName, ChatStreamParser, type StreamedSource } from './sse';
import { CSS } from './styles';
import { pageTheme, type Theme } from './theme';
import { metaContent, pageVersion } from './version';

interface Turn {
  prompt: string;
  response: string;
}

/** An answer the API refused or could not give, with the text the reader sees. */
class WidgetError extends Error {}

// Read while the script runs: document.currentScript is null in any later callback.
const script = (document.currentScript ??
  document.querySelector('script[data-anon-key][src*="widget.js"]')) as HTMLScriptElement | null;

const IS_MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** `tag` with attributes and children; `text` children are set as text, never parsed. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  el.append(...children);
  return el;
}

/** A thumb icon (drawn, not an emoji: emoji fonts are missing on many systems); CSS flips it for "bad". */
function thumb(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.innerHTML =
    '<path d="M2 10h4v11H2zM8 21h9.5a2 2 0 0 0 1.9-1.4l2.4-7A2 2 0 0 0 19.9 10H14l1-4.5A2 2 0 0 0 13 3l-5 7z"/>';
  return svg;
}

/** What the Markdown module (markdown.ts) gives. */
interface MarkdownModule {
  renderMarkdown: (target: HTMLElement, text: string) => void;
  fragmentHref: (address: string, passage: string, content: string | undefined) => string;
}
/** The Markdown module once it has loaded; until then answers show as plain text. */
let markdown: MarkdownModule | undefined;
let markdownLoad: Promise<void> | undefined;

/**
 * Loads the Markdown module (dist/widget-markdown.js, beside widget.js) once. Should it fail (a
 * page whose Content-Security-Policy refuses it, say), answers stay plain text, which is safe.
 */
function loadMarkdown(scriptSrc: string): Promise<void> {
  markdownLoad ??= import(new URL('widget-markdown.js', scriptSrc).href).then(
    (m: MarkdownModule) => {
      markdown = m;
    },
    () => undefined,
  );
  return markdownLoad;
}

/**
 * Renders an answer with its markers renumbered by page, and returns the pages. As Markdown each
 * marker links to its page (at the cited passage with `textFragments`); as plain text, before the
 * Markdown module arrives or when it cannot, the numbers are the same.
 */
function renderAnswer(
  target: HTMLElement,
  text: string,
  sources: CitableSource[],
  textFragments: boolean,
): CitedPage[] {
  if (markdown) {
    const { fragmentHref, renderMarkdown } = markdown;
    const cited = citedMarkdown(text, sources, {
      href: textFragments
        ? (c, address) => fragmentHref(address, c.passage, sources[c.source - 1]?.content)
        : undefined,
    });
    renderMarkdown(target, cited.text);
    return cited.pages;
  }
  const cited = citeAnswer(text, sources);
  target.textContent = cited.text;
  return cited.pages;
}

/** A readable sentence for a failed response, from its `{error, code}` body when it has one. */
async function failure(res: Response): Promise<WidgetError> {
  let code = '';
  let message = '';
  try {
    const body = (await res.json()) as { error?: unknown; code?: unknown };
    code = typeof body.code === 'string' ? body.code : '';
    message = typeof body.error === 'string' ? body.error : '';
  } catch {
    // Not JSON: the status says enough.
  }
  if (code === 'ORIGIN_NOT_ALLOWED' || res.status === 403) {
    return new WidgetError('This site is not allowed to use the docs assistant.');
  }
  if (res.status === 429) {
    return new WidgetError(
      `Too many questions for now. ${message ? `(${message})` : 'Try again in a minute.'}`,
    );
  }
  if (code === 'INVALID_API_KEY')
    return new WidgetError('The docs assistant is not set up correctly (unknown key).');
  return new WidgetError(
    message ? `Sorry, that did not work: ${message}` : `Sorry, that did not work (HTTP ${res.status}).`,
  );
}

class Widget {
  private readonly api: string;
  /** Where widget.js came from; the Markdown module sits beside it. */
  private readonly scriptSrc: string | undefined;
  private readonly key: string;
  private readonly title: string;
  private readonly themeSetting: string;
  /** Whether citation links carry text fragments (`data-text-fragments="off"` turns them off). */
  private readonly textFragments: boolean;
  /** The documentation version questions are about (`data-version`), when there is one. */
  private readonly version: string | undefined;
  private readonly host = document.createElement('kbqa-widget');
  private readonly launcher: HTMLButtonElement;
  private readonly panel: HTMLDivElement;
  private readonly log: HTMLDivElement;
  private readonly alert: HTMLDivElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private conversationId: number | undefined;
  private history: Turn[] = [];
  /** Aborts the answer being streamed (a new conversation drops it). */
  private inflight: AbortController | undefined;

  constructor(scriptEl: HTMLScriptElement | null) {
    this.scriptSrc = scriptEl?.src ? new URL(scriptEl.src, location.href).href : undefined;
    this.api = this.scriptSrc ? new URL(this.scriptSrc).origin : location.origin;
    this.key = scriptEl?.dataset.anonKey?.trim() ?? '';
    this.title = scriptEl?.dataset.title?.trim() || 'Ask the docs';
    this.themeSetting = scriptEl?.dataset.theme ?? 'auto';
    this.textFragments = !/^(off|false|no|0)$/i.test(scriptEl?.dataset.textFragments?.trim() ?? '');
    this.version = pageVersion(
      scriptEl?.dataset.version,
      scriptEl?.dataset.versionPattern,
      (name) => metaContent(document, name),
      location.pathname,
    );

    const root = this.host.attachShadow({ mode: 'open' });
    const shortcut = IS_MAC ? '⌘K' : 'Ctrl K';
    this.launcher = h(
      'button',
      {
        type: 'button',
        class: 'launcher',
        'aria-haspopup': 'dialog',
        'aria-expanded': 'false',
        'aria-keyshortcuts': 'Control+K Meta+K',
      },
      this.title,
      h('kbd', { 'aria-hidden': 'true' }, shortcut),
    );
    const newConversation = h('button', { type: 'button' }, 'New conversation');
    const close = h('button', { type: 'button', 'aria-label': 'Close' }, '×');
    this.log = h('div', { class: 'log', 'aria-live': 'polite' });
    this.alert = h('div', { class: 'alert', role: 'alert' });
    this.input = h('textarea', { id: 'q', rows: '2', placeholder: 'How do I…?' });
    this.send = h('button', { type: 'submit', class: 'send' }, 'Send');
    const form = h(
      'form',
      {},
      h('label', { for: 'q' }, 'Your question'),
      h('div', { class: 'row' }, this.input, this.send),
    );
    this.panel = h(
      'div',
      { class: 'panel', role: 'dialog', 'aria-label': this.title, hidden: '' },
      h('header', {}, h('h2', {}, this.title), newConversation, close),
      this.log,
      this.alert,
      form,
    );
    root.append(h('style', {}, CSS), this.launcher, this.panel);

    this.launcher.addEventListener('click', () => this.toggle());
    close.addEventListener('click', () => this.close());
    newConversation.addEventListener('click', () => this.reset());
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.ask();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.ask();
      }
    });
    root.addEventListener('keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Escape' && !this.panel.hidden) {
        e.stopPropagation();
        this.close();
      }
    });
    document.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        this.toggle();
      }
    });
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.applyTheme());
    this.applyTheme();
    document.body.append(this.host);

    if (!this.key) {
      this.showError(
        'This widget needs a data-anon-key attribute on its script tag (an anon key of the project).',
      );
      this.input.disabled = true;
      this.send.disabled = true;
    }
  }

  private applyTheme(): void {
    let theme: Theme;
    if (this.themeSetting === 'light' || this.themeSetting === 'dark') theme = this.themeSetting;
    else {
      const body = getComputedStyle(document.body);
      const html = getComputedStyle(document.documentElement);
      theme = pageTheme(
        [body.backgroundColor, html.backgroundColor],
        `${html.colorScheme} ${body.colorScheme}`.replace(/normal/g, '').trim(),
        matchMedia('(prefers-color-scheme: dark)').matches,
      );
    }
    this.host.setAttribute('data-theme', theme);
  }

  private toggle(): void {
    if (this.panel.hidden) this.open();
    else this.close();
  }

  private open(): void {
    if (this.scriptSrc) void loadMarkdown(this.scriptSrc);
    // The page may have switched themes since the last look.
    this.applyTheme();
    this.panel.hidden = false;
    this.launcher.setAttribute('aria-expanded', 'true');
    this.input.focus();
  }

  private close(): void {
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    this.launcher.focus();
  }

  private showError(text: string): void {
    this.alert.textContent = text;
  }

  private async post(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(this.api + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
        body: JSON.stringify({ anon_key: this.key, ...body }),
        signal,
        credentials: 'omit',
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      // A refused origin looks exactly like an unreachable server from here: the browser hides which.
      throw new WidgetError(
        'The docs assistant could not be reached. This site may not be allowed to use it, or the service is down.',
      );
    }
    if (!res.ok) throw await failure(res);
    return res;
  }

  private ask(): void {
    const question = this.input.value.trim();
    if (!question || this.send.disabled || !this.key) return;
    this.input.value = '';
    this.showError('');
    void this.answer(question).catch((e: unknown) => {
      if (e instanceof DOMException && e.name === 'AbortError') return; // a new conversation
      // The question goes back in the box, unless the reader typed another meanwhile: asking again
      // (once the site is allowed or the service is back) should not mean typing it again.
      if (!this.input.value) this.input.value = question;
      this.showError(e instanceof WidgetError ? e.message : 'Sorry, something went wrong while answering.');
    });
  }

  private async answer(question: string): Promise<void> {
    const controller = new AbortController();
    this.inflight = controller;
    this.send.disabled = true;
    const answer = h('div', { class: 'md' });
    const list = h('div', { class: 'src', hidden: '' });
    const bubble = h('div', { class: 'a', 'aria-busy': 'true' }, answer, list);
    const turn = h('div', { class: 'turn' }, h('div', { class: 'q' }, question), bubble);
    this.log.append(turn);
    this.log.scrollTop = this.log.scrollHeight;
    let text = '';
    let sources: CitableSource[] = [];
    try {
      if (this.conversationId === undefined) {
        const res = await this.post('/v1/newConversation', {}, controller.signal);
        this.conversationId = ((await res.json()) as { conversation_id: number }).conversation_id;
      }
      const res = await this.post(
        '/v1/serviceChat',
        {
          question,
          conversation_id: this.conversationId,
          history: this.history,
          ...(this.version !== undefined ? { version: this.version } : {}),
        },
        controller.signal,
      );
      if (!res.body) throw new WidgetError('Sorry, this browser cannot read streamed answers.');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new ChatStreamParser();
      let messageId: number | undefined;
      let frame = 0;
      // The whole answer is renumbered at every paint: a page's number is fixed by the first
      // citation of it, so numbers already shown never change as the answer grows.
      const paint = () => {
        frame = 0;
        this.showSources(list, renderAnswer(answer, text, sources, this.textFragments));
        this.log.scrollTop = this.log.scrollHeight;
      };
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (const event of parser.push(value)) {
          const control = controlName(event.chunk);
          if (control === 'source' && Array.isArray(event.metadata)) {
            sources = (event.metadata as StreamedSource[]).map((s) => ({
              link: typeof s.link === 'string' ? s.link : '',
              title: typeof s.title === 'string' ? s.title : undefined,
              content: typeof s.content === 'string' ? s.content : undefined,
            }));
            frame ||= requestAnimationFrame(paint);
          } else if (control === 'message_id' && typeof event.metadata === 'number') {
            messageId = event.metadata;
          } else if (control === 'error') {
            const m = event.metadata as { error?: string } | undefined;
            throw new WidgetError(`Sorry, the answer failed: ${m?.error ?? 'unknown error'}`);
          } else if (control === undefined) {
            text += event.chunk;
            // One Markdown render per frame, however fast the pieces come.
            frame ||= requestAnimationFrame(paint);
          }
        }
      }
      if (frame) cancelAnimationFrame(frame);
      if (this.scriptSrc) await loadMarkdown(this.scriptSrc);
      paint();
      if (messageId === undefined) throw new WidgetError('The answer was cut off; please ask again.');
      if (!text.trim()) answer.append(h('p', { class: 'muted' }, 'No answer.'));
      this.history.push({ prompt: question, response: text });
      bubble.append(this.rating(messageId));
      this.log.scrollTop = this.log.scrollHeight;
    } catch (e) {
      if (!text) turn.remove();
      throw e;
    } finally {
      bubble.removeAttribute('aria-busy');
      if (this.inflight === controller) {
        this.inflight = undefined;
        this.send.disabled = false;
      }
    }
  }

  /** The pages of an answer under the numbers its citations carry, as links named by title or address. */
  private showSources(box: HTMLElement, pages: CitedPage[]): void {
    const items = pages
      .filter((page) => page.link || page.title)
      .map((page) => {
        const href = webAddress(page.link);
        let label = page.title ?? page.link;
        if (href && !page.title) {
          const url = new URL(href);
          label = url.host + (url.pathname === '/' ? '' : url.pathname);
        }
        // A label, not an address (a raw document's `source`), is shown as text.
        const named = href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, label) : label;
        return h('li', { value: String(page.n) }, named);
      });
    box.replaceChildren(h('span', { class: 'muted' }, 'Sources'), h('ol', {}, ...items));
    box.hidden = items.length === 0;
  }

  private rating(messageId: number): HTMLElement {
    const up = h('button', { type: 'button', 'aria-label': 'Good answer', 'aria-pressed': 'false' }, thumb());
    const down = h(
      'button',
      { type: 'button', 'aria-label': 'Bad answer', 'aria-pressed': 'false' },
      thumb(),
    );
    const rate = (value: 1 | -1) => {
      const [chosen, other] = value === 1 ? [up, down] : [down, up];
      up.disabled = down.disabled = true;
      this.showError('');
      this.post('/v0/rateMessage', { message_id: messageId, rating_value: value })
        .then(() => {
          chosen.setAttribute('aria-pressed', 'true');
          other.setAttribute('aria-pressed', 'false');
        })
        .catch((e: unknown) =>
          this.showError(e instanceof WidgetError ? e.message : 'Could not save the rating.'),
        )
        .finally(() => (up.disabled = down.disabled = false));
    };
    up.addEventListener('click', () => rate(1));
    down.addEventListener('click', () => rate(-1));
    return h('div', { class: 'rate', role: 'group', 'aria-label': 'Rate this answer' }, up, down);
  }

  /** Ends the conversation on the server (best effort) and starts afresh. */
  private reset(): void {
    this.inflight?.abort();
    const ended = this.conversationId;
    this.conversationId = undefined;
    this.history = [];
    this.log.replaceChildren();
    this.showError('');
    this.send.disabled = !this.key;
    this.input.focus();
    if (ended !== undefined) {
      // Analytics only: a failure here must not get in the reader's way.
      this.post('/v1/endConversation', { conversation_id: ended }).catch(() => undefined);
    }
  }
}

function start(): void {
  // A page that includes the script twice gets one widget.
  if (document.querySelector('kbqa-widget')) return;
  new Widget(script);
}

if (document.body) start();
else document.addEventListener('DOMContentLoaded', start, { once: true });
