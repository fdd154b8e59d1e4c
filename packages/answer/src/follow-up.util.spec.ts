import { condenseFollowUp, followUpContext, isFollowUp } from './follow-up.util';

describe(isFollowUp.name, () => {
  it('takes continuations, pronouns, very short questions and questions without a topic as follow-ups', () => {
    expect(isFollowUp('and how do I restrict it to one origin?')).toBe(true);
    expect(isFollowUp('what about without TLS?')).toBe(true);
    expect(isFollowUp('How about the reply object, is it decorated the same way?')).toBe(true);
    expect(isFollowUp('also in production?')).toBe(true);
    expect(isFollowUp('can I change it for one route only?')).toBe(true);
    expect(isFollowUp('MongoDB?')).toBe(true);
    expect(isFollowUp('How do I change the default?')).toBe(true);
  });

  it('keeps questions that name their own topic standalone', () => {
    expect(isFollowUp('How do I add a hook that runs before every request handler?')).toBe(false);
    expect(isFollowUp('Is there a way to log every request body in production?')).toBe(false);
    expect(isFollowUp('How do I enable CORS?')).toBe(false);
    expect(isFollowUp('')).toBe(false);
  });
});

describe(followUpContext.name, () => {
  const history = [{ prompt: 'How do I enable CORS?', response: 'Register `@fastify/cors` [1].' }];

  it('gives the key terms of the previous prompts and code names of the last answer', () => {
    expect(followUpContext('and how do I restrict it to one origin?', history)).toBe(
      'enable CORS @fastify/cors',
    );
  });

  it('reaches back past a follow-up to the turn that set the topic, newest first', () => {
    const turns = [
      { prompt: 'What are decorators?', response: 'They add properties [1].' },
      { prompt: 'how do I add one to the request?', response: 'Use decorateRequest [1].' },
    ];
    expect(followUpContext('and to the reply?', turns)).toBe('add request decorators');
  });

  it('keeps a dotted or slashed name whole and skips what the question already says', () => {
    expect(
      followUpContext('what about without TLS?', [{ prompt: 'How do I serve over HTTP/2?', response: '' }]),
    ).toBe('serve HTTP/2');
    expect(followUpContext('and CORS for one origin?', history)).toBe('enable @fastify/cors');
  });

  it('is undefined without history or for a standalone question', () => {
    expect(followUpContext('and for one origin?', [])).toBeUndefined();
    expect(
      followUpContext('How do I add a hook that runs before every request handler?', history),
    ).toBeUndefined();
  });
});

describe(condenseFollowUp.name, () => {
  it('prepends the key terms of the last prompt to a follow-up once, for the answer to use', () => {
    expect(
      condenseFollowUp('what about its options?', [
        { prompt: 'How do I use fastify.register?', response: '' },
      ]),
    ).toBe('fastify.register: what about its options?');
    expect(
      condenseFollowUp('and how do I restrict it to one origin?', [
        { prompt: 'How do I enable CORS?', response: '' },
      ]),
    ).toBe('enable CORS: and how do I restrict it to one origin?');
  });
});
