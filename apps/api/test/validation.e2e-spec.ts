import { startTestApp, type TestApp, type TestProject } from './helpers';

describe('Validation messages (e2e)', () => {
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('validation');
  });
  afterAll(() => t.close());

  const chat = (body: Record<string, unknown>) =>
    t.post('/v1/serviceChat', { api_key: p.serverKey, ...body }).expect(400);

  it('says once that a missing field is required', async () => {
    expect((await chat({})).body).toEqual({ error: 'question is required', code: 'BAD_REQUEST' });
  });

  it('names the type of a wrong field, once', async () => {
    expect((await chat({ question: 42 })).body.error).toBe('question must be a string');
  });

  it('gives one message per wrong field, and the range for a value out of it', async () => {
    const res = await chat({ question: '', temperature: 3 });
    expect(res.body.error.split('; ')).toEqual([
      'question should not be empty',
      'temperature must not be greater than 1',
    ]);
  });

  it('names the path of a wrong field inside a list', async () => {
    const res = await chat({ question: 'q', history: [{ prompt: 'hi' }] });
    expect(res.body.error).toBe('history.0.response is required');
  });
});
