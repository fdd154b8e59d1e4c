import { toMrkdwn } from './slack';

/** The two calls a live answer makes: post the message (returns its ts) and edit it. */
export interface SlackMessageCalls {
  post(message: Record<string, unknown>): Promise<string | undefined>;
  update(ts: string, message: Record<string, unknown>): Promise<void>;
}

/** The clock a live answer throttles by; tests hand in one they move by hand. */
export interface UpdateClock {
  now(): number;
  /** Runs `fn` after `ms`; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const realClock: UpdateClock = {
  now: () => Date.now(),
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    // A pending edit never keeps a stopping process alive: finish() sends the whole answer.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** How often a message is edited while its answer streams: Slack allows about one edit a second. */
export const UPDATE_INTERVAL_MS = 1000;

/** Longest partial text shown; the final message carries the whole answer in blocks. */
const PARTIAL_MAX = 2990;

/**
 * One Slack message that shows an answer while it is generated: posted with the first text, edited
 * (chat.update) with the text so far at most once per `intervalMs`, and given its final form
 * (sources, rating buttons, or a refusal) by finish(). Calls go one after another, never two at a
 * time, so an older text never overwrites a newer one. After a failed partial call no other is
 * tried: the final message says everything.
 */
export class SlackLiveAnswer {
  private ts: string | undefined;
  private latest = '';
  private shown = '';
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private cancel: (() => void) | undefined;
  private calls: Promise<void> = Promise.resolve();
  private finished = false;
  private failed = false;

  constructor(
    private readonly slack: SlackMessageCalls,
    private readonly onPartialFailed: (e: unknown) => void,
    private readonly intervalMs = UPDATE_INTERVAL_MS,
    private readonly clock: UpdateClock = realClock,
  ) {}

  /** The answer's text so far (each call the whole of it, not a piece). */
  text(soFar: string): void {
    if (this.finished || !soFar.trim()) return;
    this.latest = soFar;
    if (this.cancel) return;
    const wait = Math.max(0, this.lastSentAt + this.intervalMs - this.clock.now());
    this.cancel = this.clock.after(wait, () => {
      this.cancel = undefined;
      this.calls = this.calls.then(() => this.showLatest());
    });
  }

  /** Gives the message its final form (posting it if no text came before); returns its ts. */
  async finish(message: Record<string, unknown>): Promise<string | undefined> {
    this.finished = true;
    this.cancel?.();
    this.cancel = undefined;
    await this.calls;
    if (this.ts === undefined) return this.slack.post(message);
    await this.slack.update(this.ts, message);
    return this.ts;
  }

  private async showLatest(): Promise<void> {
    if (this.finished || this.failed || this.latest === this.shown) return;
    const text = this.latest;
    const message = { text: `${toMrkdwn(text.trim()).slice(0, PARTIAL_MAX)} …` };
    this.lastSentAt = this.clock.now();
    try {
      if (this.ts === undefined) {
        this.ts = await this.slack.post(message);
        if (this.ts === undefined) this.failed = true;
      } else await this.slack.update(this.ts, message);
      this.shown = text;
    } catch (e) {
      this.failed = true;
      this.onPartialFailed(e);
    }
    // The interval counts from the end of a call: a slow Slack gets fewer edits, never a queue.
    this.lastSentAt = this.clock.now();
  }
}
