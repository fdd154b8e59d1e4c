import { SlackLiveAnswer, type UpdateClock } from './slack-live-answer';

/** A clock moved by hand: `tick(ms)` runs what falls due, in order. */
function manualClock() {
  let now = 0;
  let timers: Array<{ at: number; fn: () => void }> = [];
  const clock: UpdateClock = {
    now: () => now,
    after: (ms, fn) => {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
  };
  const tick = async (ms: number) => {
    now += ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      due.fn();
    }
    // Let the calls the timers chained run.
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return { clock, tick };
}

function fakeSlack(options: { failPost?: boolean } = {}) {
  const calls: Array<{ method: string; ts?: string; text: unknown; blocks?: unknown }> = [];
  return {
    calls,
    slack: {
      post: (m: Record<string, unknown>) => {
        calls.push({ method: 'post', text: m.text, blocks: m.blocks });
        return options.failPost ? Promise.reject(new Error('slack down')) : Promise.resolve('1.1');
      },
      update: (ts: string, m: Record<string, unknown>) => {
        calls.push({ method: 'update', ts, text: m.text, blocks: m.blocks });
        return Promise.resolve();
      },
    },
  };
}

describe(SlackLiveAnswer.name, () => {
  it('posts the first text at once, then edits at most once a second with the latest text', async () => {
    const { clock, tick } = manualClock();
    const { slack, calls } = fakeSlack();
    const live = new SlackLiveAnswer(slack, () => undefined, 1000, clock);
    live.text('Deploy');
    await tick(0);
    expect(calls).toEqual([{ method: 'post', text: 'Deploy …', blocks: undefined }]);
    live.text('Deploy with');
    live.text('Deploy with harbor');
    await tick(500);
    expect(calls).toHaveLength(1);
    await tick(500);
    expect(calls[1]).toEqual({
      method: 'update',
      ts: '1.1',
      text: 'Deploy with harbor …',
      blocks: undefined,
    });
    live.text('Deploy with harbor deploy');
    await tick(999);
    expect(calls).toHaveLength(2);
    const ts = await live.finish({ text: 'Deploy with `harbor deploy`.', blocks: ['final'] });
    expect(ts).toBe('1.1');
    // The pending edit is dropped: the final form follows at once and is the last call.
    expect(calls.slice(2)).toEqual([
      { method: 'update', ts: '1.1', text: 'Deploy with `harbor deploy`.', blocks: ['final'] },
    ]);
    await tick(5000);
    expect(calls).toHaveLength(3);
  });

  it('posts the final form alone when it comes before any text was shown', async () => {
    const { clock } = manualClock();
    const { slack, calls } = fakeSlack();
    const live = new SlackLiveAnswer(slack, () => undefined, 1000, clock);
    live.text('   ');
    expect(await live.finish({ text: 'Too many questions' })).toBe('1.1');
    expect(calls).toEqual([{ method: 'post', text: 'Too many questions', blocks: undefined }]);
  });

  it('stops editing after a failed call and still sends the final form', async () => {
    const { clock, tick } = manualClock();
    const { slack, calls } = fakeSlack({ failPost: true });
    const failures: unknown[] = [];
    const live = new SlackLiveAnswer(slack, (e) => failures.push(e), 1000, clock);
    live.text('a');
    await tick(0);
    live.text('ab');
    await tick(2000);
    expect(calls.map((c) => c.method)).toEqual(['post']);
    expect(failures).toHaveLength(1);
    await expect(live.finish({ text: 'final' })).rejects.toThrow('slack down');
    expect(calls.map((c) => c.text)).toEqual(['a …', 'final']);
  });
});
