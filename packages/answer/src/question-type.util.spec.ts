import { analyzeQuestion, detectQuestionType } from './question-type.util';

describe(detectQuestionType.name, () => {
  it.each([
    ['What is a decorator?', 'definition'],
    ['What are hooks?', 'definition'],
    ['Explain encapsulation', 'definition'],
    ['How do I register a plugin?', 'how-to'],
    ['How to set up TypeScript', 'how-to'],
    ["What's the best way to log requests?", 'how-to'],
    ['What is the difference between onRequest and preHandler hooks?', 'comparison'],
    ['reply.send vs return in async handlers', 'comparison'],
    ['How does fastify.inject differ from a real HTTP request?', 'comparison'],
    ['What does the bodyLimit option do?', 'option'],
    ['What does `trustProxy` do?', 'option'],
    ['Why does my hook run twice?', 'troubleshooting'],
    ['My readiness probe cannot reach the app, why?', 'troubleshooting'],
    ['The probe cannot reach the server', 'troubleshooting'],
    ['I get FST_ERR_CTP_BODY_TOO_LARGE when posting a file', 'troubleshooting'],
    ['My decorator is undefined in a sibling plugin', 'troubleshooting'],
    ['request.ip shows the proxy address instead of the client', 'troubleshooting'],
    ['my mounted / route answers on /shop but not on /shop/', 'troubleshooting'],
    ['I want to read the validation error in my handler instead of a 400. How?', 'how-to'],
    ['req.params.hasOwnProperty is not a function after moving to v5', 'troubleshooting'],
    ['Should I use hooks instead of middleware?', 'comparison'],
    ['How is decorateRequest different from decorateReply?', 'comparison'],
    ['Should I return the payload or call reply.send?', 'comparison'],
    ['Which is better, hooks or middleware?', 'comparison'],
    ['Is a hook or a generic middleware faster for hot paths?', 'comparison'],
    ['and how do I reuse a schema across routes?', 'how-to'],
    ['but what is a decorator?', 'definition'],
    ['Can I use Express middleware?', 'yes-no'],
    ['Is HTTP/2 supported?', 'yes-no'],
    ['What is the default body limit?', 'other'],
    ['Which plugins handle CORS?', 'other'],
    // A problem reported without an error word.
    ['My onSend hook never runs for cached routes', 'troubleshooting'],
    ['The custom header is ignored behind the proxy', 'troubleshooting'],
    ['Requests to /upload get a 413 from the server', 'troubleshooting'],
    ['Starting the server reports EADDRINUSE', 'troubleshooting'],
    ['The server exits right after start in production', 'troubleshooting'],
    // A lookup of a name keeps its type whatever the name does.
    ['Which option stops HEAD routes being created?', 'other'],
    ['How do I return a 404 for missing pages?', 'how-to'],
    ['Can a hook stop the request early?', 'yes-no'],
  ])('reads "%s" as %s', (question, type) => {
    expect(detectQuestionType(question)).toBe(type);
  });
});

describe(analyzeQuestion.name, () => {
  it('carries the topic of a definition and an option, and the sides of a comparison', () => {
    expect(analyzeQuestion('What is a decorator?').topic).toBe('decorator');
    expect(analyzeQuestion('What does the bodyLimit option do?').topic).toBe('bodyLimit');
    expect(analyzeQuestion('What is the difference between onRequest and preHandler hooks?').sides).toEqual([
      'onRequest',
      'preHandler hooks',
    ]);
    expect(analyzeQuestion('reply.send vs return').sides).toEqual(['reply.send', 'return']);
    expect(analyzeQuestion('Should I return the payload or call reply.send?').sides).toEqual([
      'return the payload',
      'call reply.send',
    ]);
    // A question tacked on after the sides is not part of the second side.
    expect(analyzeQuestion('onSecret error vs remove, what does each do?').sides).toEqual([
      'onSecret error',
      'remove',
    ]);
  });

  it('reads other ways of asking what something is as definitions of it', () => {
    expect(analyzeQuestion('Can you explain encapsulation?')).toEqual({
      type: 'definition',
      topic: 'encapsulation',
    });
    expect(analyzeQuestion('Tell me about hooks')).toEqual({ type: 'definition', topic: 'hooks' });
    expect(analyzeQuestion('What is meant by encapsulation?').topic).toBe('encapsulation');
    expect(analyzeQuestion('What exactly is a decorator?').topic).toBe('decorator');
    expect(analyzeQuestion('What is fastify-plugin used for?').topic).toBe('fastify-plugin');
    expect(analyzeQuestion('What does reply.raw refer to?')).toEqual({
      type: 'definition',
      topic: 'reply.raw',
    });
  });

  it('reads "what do X do" as a definition and keeps only the core of its topic', () => {
    expect(analyzeQuestion('what do decorators do')).toEqual({ type: 'definition', topic: 'decorators' });
    // "object" only classifies the topic and "in a handler" only places it: pages name it "Request".
    expect(analyzeQuestion('What is the Request object in a handler?').topic).toBe('Request');
    expect(analyzeQuestion('What is encapsulation in Fastify?').topic).toBe('encapsulation');
    expect(analyzeQuestion('What is the listen method?').topic).toBe('listen');
    // "policy" only classifies, and "what does X promise" asks what X is.
    expect(analyzeQuestion('What does the LTS policy promise?')).toEqual({
      type: 'definition',
      topic: 'LTS',
    });
    // A kind noun that is the whole topic stays.
    expect(analyzeQuestion('What is an object?').topic).toBe('object');
  });
});
