import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type CitedPage, webAddress } from '@kbqa/text/citations';
import { ApiError } from './api';

/**
 * A line that tells what an action did or why it failed, read out by screen readers. The polite
 * live region stays in the page while empty: a region inserted together with its text is often
 * not announced.
 */
export function Notice({ notice }: { notice: NoticeState }) {
  const said = notice && !notice.error ? notice.text : '';
  return (
    <>
      <p class={said ? 'notice' : 'notice empty'} role="status" aria-live="polite">
        {said}
      </p>
      {notice?.error && (
        <p class="notice error" role="alert">
          {notice.text}
        </p>
      )}
    </>
  );
}

export type NoticeState = { text: string; error: boolean } | undefined;

/** State for {@link Notice}, and a wrapper that reports an action's success or failure in it. */
export function useNotice(): [NoticeState, (action: () => Promise<string | void>) => Promise<void>] {
  const [notice, setNotice] = useState<NoticeState>(undefined);
  const run = useCallback(async (action: () => Promise<string | void>) => {
    try {
      const text = await action();
      setNotice(text ? { text, error: false } : undefined);
    } catch (e) {
      setNotice({ text: e instanceof ApiError || e instanceof Error ? e.message : String(e), error: true });
    }
  }, []);
  return [notice, run];
}

/** Loads data when `deps` change; `reload` loads again after a change. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: string | undefined; reload: () => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => {
        if (live) {
          setData(d);
          setError(undefined);
        }
      },
      (e: unknown) => {
        if (live) setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}

export function Loading({ error }: { error?: string | undefined }) {
  return error ? (
    <p class="notice error" role="alert">
      {error}
    </p>
  ) : (
    <p class="muted">Loading…</p>
  );
}

/** A page of the dashboard under its `h1`, which takes the focus when the page changes. */
export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h1 tabIndex={-1}>{title}</h1>
      {children}
    </section>
  );
}

/**
 * A checkbox saved by `save`. It shows the new state at once (a controlled checkbox would snap
 * back until the reload after saving) and goes back if saving fails; `run` reports the outcome.
 */
export function Switch(props: {
  id: string;
  label: string;
  name?: string;
  labelClass?: string;
  checked: boolean;
  run: (action: () => Promise<string | void>) => Promise<void>;
  save: (on: boolean) => Promise<string>;
}) {
  const { id, label, name, labelClass, checked, run, save } = props;
  const [shown, setShown] = useState(checked);
  useEffect(() => setShown(checked), [checked]);
  return (
    <span class="switch">
      <input
        id={id}
        type="checkbox"
        aria-label={name}
        checked={shown}
        onChange={(e) => {
          const on = e.currentTarget.checked;
          setShown(on);
          void run(async () => {
            try {
              return await save(on);
            } catch (err) {
              setShown(!on);
              throw err;
            }
          });
        }}
      />
      <label for={id} class={labelClass}>
        {label}
      </label>
    </span>
  );
}

/**
 * A table under its header row (an empty name leaves a column of buttons without a heading). On a
 * screen narrower than the table it scrolls sideways by itself, not the page; the scrolling box can
 * take the focus so that the keyboard scrolls it too.
 */
export function Table(props: { label: string; columns: string[]; children: ComponentChildren }) {
  const { label, columns, children } = props;
  return (
    <div class="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table>
        <thead>
          <tr>{columns.map((c) => (c ? <th>{c}</th> : <th />))}</tr>
        </thead>
        {children}
      </table>
    </div>
  );
}

/** A button that removes something, named for what it removes (`name`) for screen readers and tests. */
export function DangerButton(props: { id?: string; name: string; label: string; onClick: () => void }) {
  const { id, name, label, onClick } = props;
  return (
    <button id={id} type="button" class="danger" aria-label={name} onClick={onClick}>
      {label}
    </button>
  );
}

/**
 * The pages of an answer under the numbers its citations carry, each a link (new tab) named by its
 * title or address; `note` adds a remark after a page.
 */
export function CitedPages({ pages, note }: { pages: CitedPage[]; note?: (page: CitedPage) => string }) {
  return (
    <ol class="sources">
      {pages.map((page) => {
        const href = webAddress(page.link);
        return (
          <li value={page.n}>
            {href ? (
              <a href={href} target="_blank" rel="noopener noreferrer">
                {page.label}
              </a>
            ) : (
              page.label
            )}
            {note?.(page)}
            {page.title && href && <div class="muted address">{href}</div>}
          </li>
        );
      })}
    </ol>
  );
}
