import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { makeDocx, makeEncryptedPdf, makePdf } from '@kbqa/loader-files/testing';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { cli } from './process-helpers';

const TOKEN = 'files-operator-token-0123456789';
const MAX_FILE = 200_000;
const MAX_REQUEST = 300_000;
const MAX_FILES = 6;

interface Upload {
  name: string;
  data: Buffer;
}

describe('ingestFiles (e2e)', () => {
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      KBQA_UPLOAD_MAX_FILE_BYTES: String(MAX_FILE),
      KBQA_UPLOAD_MAX_BYTES: String(MAX_REQUEST),
      KBQA_UPLOAD_MAX_FILES: String(MAX_FILES),
    });
    p = await t.createProject('files');
  });
  afterAll(async () => {
    await t.close();
  });

  const upload = (files: Upload[], fields: Record<string, string>, path = '/v1/ingestFiles') => {
    let req = request(t.http).post(path);
    for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
    // filepath keeps a folder in the part's file name (form-data sends the base name of `filename`).
    for (const f of files)
      req = req.attach('files', f.data, { filename: f.name, filepath: f.name } as { filename: string });
    return req;
  };
  const ingest = async (project: TestProject, files: Upload[], fields: Record<string, string> = {}) => {
    const res = await upload(files, { api_key: project.serverKey, ...fields }).expect(200);
    expect(Object.keys(res.body)).toEqual(['task_id']);
    const status = await t.waitForTask(res.body.task_id, 60_000);
    return { taskId: res.body.task_id as number, result: status.result as Record<string, unknown> };
  };
  const ask = async (project: TestProject, question: string) =>
    (
      await t
        .post('/v1/serviceChat', { api_key: project.serverKey, question, history: [], shouldStream: false })
        .expect(200)
    ).body as { sources: Array<{ link: string }> };
  const skippedOf = async (taskId: number) => {
    const [row] = await t.query<{ stats: string }>('SELECT stats FROM ingestion_tasks WHERE id = ?', [
      taskId,
    ]);
    return (JSON.parse(row!.stats) as { skipped: Array<{ url: string; code: string; reason: string }> })
      .skipped;
  };

  it('ingests PDF, Word, Markdown, HTML and text files and answers with the right file and page', async () => {
    const pdf = await makePdf(
      [
        'Espresso machine manual. Unpack the machine and rinse the water tank.',
        '',
        'Descaling: run citric acid through the boiler every ninety days.',
      ],
      'Espresso manual',
    );
    const docx = await makeDocx('Expense policy', [
      '## Hotels',
      'Hotel stays are reimbursed up to one hundred forty euros per night.',
    ]);
    const { taskId, result } = await ingest(
      p,
      [
        { name: 'manuals/espresso.pdf', data: pdf },
        { name: 'policy.docx', data: docx },
        { name: 'faq.md', data: Buffer.from('# FAQ\n\nParcels to Iceland take eleven working days.\n') },
        {
          name: 'shipping.html',
          data: Buffer.from(
            '<html><head><title>Returns</title></head><body><main><h1>Returns</h1><p>Opened headphones cannot be returned for hygiene reasons.</p></main></body></html>',
          ),
        },
        { name: 'notes.txt', data: Buffer.from('The warehouse in Tilburg closes at half past four.') },
      ],
      { metadata: JSON.stringify({ team: 'support' }) },
    );
    expect(result).toMatchObject({ success: true, error: '', indexed: 5, skipped: 0 });
    expect(await skippedOf(taskId)).toEqual([]);
    const sources = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
    expect(sources.body.map((s: { source: string }) => s.source).sort()).toEqual(
      ['faq.md', 'manuals/espresso.pdf', 'notes.txt', 'policy.docx', 'shipping.html'].sort(),
    );
    expect((await ask(p, 'How often should the boiler be descaled with citric acid?')).sources[0]?.link).toBe(
      'manuals/espresso.pdf#page=3',
    );
    expect((await ask(p, 'How much is reimbursed for a hotel night?')).sources[0]?.link).toBe('policy.docx');
    expect((await ask(p, 'How long do parcels to Iceland take?')).sources[0]?.link).toBe('faq.md');
    expect((await ask(p, 'Can opened headphones be returned?')).sources[0]?.link).toBe('shipping.html');
    expect((await ask(p, 'When does the Tilburg warehouse close?')).sources[0]?.link).toBe('notes.txt');
    // The metadata field reaches every document, for the chat's where filter.
    const filtered = await t
      .post('/v1/serviceChat', {
        api_key: p.serverKey,
        question: 'When does the Tilburg warehouse close?',
        history: [],
        shouldStream: false,
        where: { team: { $eq: 'other' } },
      })
      .expect(200);
    expect(filtered.body.sources).toEqual([]);
    const matching = await t
      .post('/v1/serviceChat', {
        api_key: p.serverKey,
        question: 'When does the Tilburg warehouse close?',
        history: [],
        shouldStream: false,
        where: { team: { $eq: 'support' } },
      })
      .expect(200);
    expect(matching.body.sources[0]?.link).toBe('notes.txt');
  });

  it('replaces a file uploaded again under the same name', async () => {
    const q = await t.createProject('replace');
    await ingest(q, [{ name: 'hours.txt', data: Buffer.from('The shop opens at seven on Mondays.') }]);
    await ingest(q, [{ name: 'hours.txt', data: Buffer.from('The shop opens at nine on Saturdays.') }]);
    const sources = await t.post('/v1/getSources', { api_key: q.serverKey }).expect(200);
    expect(sources.body.map((s: { source: string }) => s.source)).toEqual(['hours.txt']);
    const chunks = await t.query<{ content: string }>('SELECT content FROM chunks WHERE project_id = ?', [
      q.id,
    ]);
    expect(chunks.map((c) => c.content)).toEqual(['The shop opens at nine on Saturdays.']);
  });

  it('skips each bad file with its reason and ingests the good one beside them', async () => {
    const q = await t.createProject('bad files');
    const { taskId, result } = await ingest(q, [
      { name: 'scan.pdf', data: await makePdf(['', '']) },
      { name: 'locked.pdf', data: await makeEncryptedPdf() },
      { name: 'broken.pdf', data: (await makePdf(['hello'])).subarray(0, 300) },
      { name: 'logo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
      { name: 'ok.md', data: Buffer.from('Good file about lighthouse keepers.') },
    ]);
    expect(result).toMatchObject({ success: true, indexed: 1, skipped: 4 });
    const skipped = await skippedOf(taskId);
    expect(skipped).toEqual([
      { url: 'scan.pdf', code: 'NO_CONTENT', reason: expect.stringContaining('no text layer') },
      { url: 'locked.pdf', code: 'ENCRYPTED', reason: expect.stringContaining('encrypted') },
      { url: 'broken.pdf', code: 'CORRUPT', reason: expect.stringContaining('corrupt or unreadable PDF') },
      {
        url: 'logo.png',
        code: 'UNSUPPORTED',
        reason: expect.stringContaining('unsupported file type ".png"'),
      },
    ]);
  });

  it('reads PDF pages only up to the page limit, saying so', async () => {
    const small = await startTestApp({ KBQA_PDF_MAX_PAGES: '2' });
    try {
      const q = await small.createProject('pages');
      const res = await request(small.http)
        .post('/v1/ingestFiles')
        .field('api_key', q.serverKey)
        .attach('files', await makePdf(['first page', 'second page', 'third page about zebras']), 'long.pdf')
        .expect(200);
      const done = await small.waitForTask(res.body.task_id, 60_000);
      expect(done.result).toMatchObject({ success: true, indexed: 1, skipped: 1 });
      const links = await small.query<{ link: string }>('SELECT link FROM chunks WHERE project_id = ?', [
        q.id,
      ]);
      expect(links.map((l) => l.link).sort()).toEqual(['long.pdf#page=1', 'long.pdf#page=2']);
    } finally {
      await small.close();
    }
  });

  it("kbqa ingest queues a folder's readable files for the service, named by their path", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kbqa-ingest-'));
    // Pending tasks from another process are picked up on the reconcile pass.
    const svc = await startTestApp({ KBQA_QUEUE_RECONCILE_MS: '100' });
    try {
      const q = await svc.createProject('cli');
      const handbook = join(dir, 'handbook');
      mkdirSync(join(handbook, 'travel'), { recursive: true });
      mkdirSync(join(handbook, '.git'));
      writeFileSync(join(handbook, 'welcome.md'), '# Welcome\n\nLunch is served in the atrium at noon.\n');
      writeFileSync(join(handbook, 'travel', 'visas.txt'), 'Visa letters are signed by the office manager.');
      writeFileSync(join(handbook, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      writeFileSync(join(handbook, '.git', 'config.txt'), 'not part of the handbook');
      const single = join(dir, 'rota.pdf');
      writeFileSync(single, await makePdf(['Night shift starts at ten.']));
      const out = JSON.parse(
        await cli(['ingest', '--project', String(q.id), handbook, single, '--json'], {
          KBQA_DATA_DIR: svc.dataDir,
        }),
      ) as { task_ids: number[]; files: string[] };
      expect(out.files).toEqual(['handbook/travel/visas.txt', 'handbook/welcome.md', 'rota.pdf']);
      expect(out.task_ids).toHaveLength(1);
      const done = await svc.waitForTask(out.task_ids[0]!, 60_000);
      expect(done.result).toMatchObject({ success: true, indexed: 3 });
      const chat = await svc
        .post('/v1/serviceChat', {
          api_key: q.serverKey,
          question: 'Who signs visa letters?',
          history: [],
          shouldStream: false,
        })
        .expect(200);
      expect(chat.body.sources[0]?.link).toBe('handbook/travel/visas.txt');
    } finally {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    }
    // A second service and a CLI process each boot Node and Nest: slow on a loaded two-core machine.
  }, 180_000);

  it('fails a task whose files are all unreadable, naming them', async () => {
    const q = await t.createProject('nothing');
    const { result } = await ingest(q, [{ name: 'scan.pdf', data: await makePdf(['']) }]);
    expect(result).toMatchObject({ success: false, indexed: 0, skipped: 1 });
    expect(result.error).toContain('scan.pdf (the PDF has no text layer');
  });

  it('answers 413 for a file over the per-file limit', async () => {
    const res = await upload([{ name: 'big.txt', data: Buffer.alloc(MAX_FILE + 1, 'a') }], {
      api_key: p.serverKey,
    }).expect(413);
    expect(res.body).toEqual({
      error: `file "big.txt" is larger than ${MAX_FILE} bytes`,
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('answers 413 for files over the per-request limit together, however the body is sent', async () => {
    // A declared length far past the limit is refused before the files are read.
    const big = Buffer.alloc(MAX_FILE - 10, 'b');
    const declared = await upload(
      [
        { name: 'a.txt', data: big },
        { name: 'b.txt', data: big },
      ],
      { api_key: p.serverKey },
    ).expect(413);
    expect(declared.body).toEqual({
      error: `the upload is larger than ${MAX_REQUEST} bytes`,
      code: 'PAYLOAD_TOO_LARGE',
    });
    // Just past the limit, counted while the files are read.
    const part = Buffer.alloc(160_000, 'b');
    const res = await upload(
      [
        { name: 'a.txt', data: part },
        { name: 'b.txt', data: part },
      ],
      { api_key: p.serverKey },
    ).expect(413);
    expect(res.body).toEqual({
      error: `the files of one request are larger than ${MAX_REQUEST} bytes together`,
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('answers 413 for more files than allowed at once', async () => {
    const files = Array.from({ length: MAX_FILES + 1 }, (_, i) => ({
      name: `${i}.txt`,
      data: Buffer.from('x'),
    }));
    const res = await upload(files, { api_key: p.serverKey }).expect(413);
    expect(res.body).toEqual({
      error: `at most ${MAX_FILES} files can be uploaded at once`,
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('refuses bad requests with the API error shape', async () => {
    const one = [{ name: 'a.txt', data: Buffer.from('hello') }];
    expect((await upload([], { api_key: p.serverKey }).expect(400)).body).toEqual({
      error: 'send one or more files as multipart/form-data parts named "files"',
      code: 'BAD_REQUEST',
    });
    expect((await upload(one, { api_key: p.serverKey, metadata: '[1]' }).expect(400)).body.code).toBe(
      'BAD_REQUEST',
    );
    expect((await upload(one, { api_key: 'nope' }).expect(400)).body.code).toBe('INVALID_API_KEY');
    expect((await upload(one, { api_key: p.anonKey }).expect(403)).body.code).toBe('FORBIDDEN');
    expect((await upload(one, { api_key: p.serverKey, color: 'red' }).expect(400)).body).toMatchObject({
      error: expect.stringContaining('color should not exist'),
      code: 'BAD_REQUEST',
    });
    // Multipart goes only to the upload routes.
    expect((await upload(one, { api_key: p.serverKey }, '/v1/ingestDocuments').expect(400)).body).toEqual({
      error: 'multipart bodies are accepted only by ingestFiles; send JSON',
      code: 'BAD_REQUEST',
    });
  });

  it('takes uploads through the operator API for the dashboard, and never without the token', async () => {
    const q = await t.createProject('dashboard');
    const file = Buffer.from('Operator upload about the night shift rota.');
    await request(t.http)
      .post(`/admin/v1/projects/${q.id}/files`)
      .attach('files', file, 'rota.txt')
      .expect(401);
    const res = await request(t.http)
      .post(`/admin/v1/projects/${q.id}/files`)
      .set('Authorization', `Bearer ${TOKEN}`)
      .attach('files', file, 'rota.txt')
      .expect(201);
    expect((await t.waitForTask(res.body.task_id, 60_000)).result).toMatchObject({
      success: true,
      indexed: 1,
    });
    const sources = await t.post('/v1/getSources', { api_key: q.serverKey }).expect(200);
    expect(sources.body.map((s: { source: string }) => s.source)).toEqual(['rota.txt']);
  });
});
