import { condenseFollowUp, followUpContext, isFollowUp, resolveFollowUp } from './follow-up.util';

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
  it('prepends the key terms of the last prompt to a follow-up once, for matching taught answers', () => {
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

describe(resolveFollowUp.name, () => {
  const after = (prompt: string, question: string) => resolveFollowUp(question, [{ prompt, response: '' }]);

  it("puts the previous subject in place of a pronoun, in the follow-up's own frame", () => {
    const answered = [
      {
        prompt: 'How do I register an onError hook for a route?',
        response: 'Pass `onError` to `app.route` [1].',
      },
    ];
    // The code names of the last answer stay as context; the rest of the last prompt was its frame.
    expect(resolveFollowUp('how do I make it apply to all routes?', answered)).toEqual({
      reading: 'refers-back',
      question: 'how do I make onError hook apply to all routes?',
      context: 'app.route',
    });
    expect(after('What does the keepAliveTimeout setting control?', 'can I disable it?').question).toBe(
      'can I disable keepAliveTimeout setting?',
    );
    expect(after('How do I set a body size limit?', 'can I raise it for one route only?').question).toBe(
      'can I raise body size limit for one route only?',
    );
  });

  it('asks the previous question of the new subject of "and for X?", searched for that subject', () => {
    expect(after('How do I apply interceptors globally?', 'and for guards?')).toEqual({
      reading: 'substitutes',
      question: 'How do I apply guards globally?',
      focus: 'guards',
      context: 'apply globally',
    });
    expect(after('How do I connect to Redis?', 'what about MySQL?').question).toBe(
      'How do I connect to MySQL?',
    );
  });

  it('replaces what followed the preposition the follow-up repeats, "for" standing for "to"', () => {
    expect(after('How do I add a hook that fires after routing?', 'and after the response?').question).toBe(
      'How do I add a hook that fires after the response?',
    );
    expect(after('How do I attach a helper to the request object?', 'and for the reply?')).toMatchObject({
      reading: 'substitutes',
      question: 'How do I attach a helper to the reply object?',
      focus: 'the reply object',
    });
  });

  it('narrows the previous question by a phrase with a preposition of its own', () => {
    expect(after('How do I write a middleware?', 'and in TypeScript?')).toEqual({
      reading: 'refines',
      question: 'How do I write a middleware in TypeScript?',
    });
    expect(after('How do I listen on a port?', 'what about with HTTPS?').question).toBe(
      'How do I listen on a port with HTTPS?',
    );
  });

  it('narrows rather than replaces with a counted phrase or one with a clause, even after "for"', () => {
    expect(after('How do I register a rate limiter?', 'and for one route only?')).toEqual({
      reading: 'refines',
      question: 'How do I register a rate limiter for one route only?',
    });
    expect(after('How do I write an error handler?', 'and for requests that time out?').question).toBe(
      'How do I write an error handler for requests that time out?',
    );
  });

  it('keeps the previous question whole for a follow-up that names nothing', () => {
    expect(after('What is the keepAliveTimeout setting?', 'what about the default?')).toEqual({
      reading: 'refines',
      question: 'What is the keepAliveTimeout setting: the default?',
    });
    expect(after('What is the keepAliveTimeout setting?', 'how do I change the default?').question).toBe(
      'how do I change the default for keepAliveTimeout setting?',
    );
  });

  it('keeps the subject a chain of follow-ups started with', () => {
    const turns = [
      { prompt: 'What are guards?', response: 'Guards decide whether a request goes on [1].' },
      { prompt: 'how do I write one?', response: 'Implement `canActivate` [1].' },
    ];
    expect(resolveFollowUp('and for pipes?', turns).question).toBe('how do I write pipes?');
  });

  it('leaves a follow-up with a subject of its own as asked, the conversation as context', () => {
    expect(after('How do I enable compression?', 'and how do I cache static files?')).toEqual({
      reading: 'own-topic',
      question: 'and how do I cache static files?',
      context: 'enable compression',
    });
    // "it" standing for nothing, as in "is it possible to …", points nowhere.
    expect(after('How do I enable compression?', 'is it possible to stream a file?').reading).toBe(
      'own-topic',
    );
  });

  it('leaves a standalone question, and any question without history, as asked', () => {
    expect(after('How do I enable compression?', 'How do I serve static files from a folder?')).toEqual({
      reading: 'standalone',
      question: 'How do I serve static files from a folder?',
    });
    expect(resolveFollowUp('and for guards?', [])).toEqual({
      reading: 'standalone',
      question: 'and for guards?',
    });
  });
});
