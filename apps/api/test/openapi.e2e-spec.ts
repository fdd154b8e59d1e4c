import { startServer, type TestServer } from '@kbqa/core/testing';
import { startTestApp, type TestApp, type TestProject } from './helpers';

/** A small API of our own: the second version renames a field, drops an operation and adds one. */
function spec(version: 1 | 2): string {
  const lines = [
    'openapi: 3.0.3',
    'info: { title: Invoices, version: "1.0" }',
    'paths:',
    '  /invoices/{id}:',
    '    get:',
    '      operationId: getInvoice',
    '      summary: Fetch one invoice',
    '      description: Returns the invoice with its line items; a draft invoice has no number yet.',
    '      parameters:',
    '        - { name: id, in: path, required: true, schema: { type: string } }',
    '      responses:',
    "        '200':",
    '          description: The invoice',
    '          content:',
    '            application/json:',
    "              schema: { $ref: '#/components/schemas/Invoice' }",
    '  /invoices:',
    '    post:',
    '      summary: Create an invoice',
    '      description: Creates a draft invoice for a customer. Drafts can be edited until they are finalized.',
    '      responses:',
    "        '201': { description: Created }",
  ];
  if (version === 1) {
    lines.push(
      '  /invoices/{id}/void:',
      '    post:',
      '      operationId: voidInvoice',
      '      summary: Void an invoice',
      '      description: Voiding cancels a finalized invoice; the refund is issued within five business days.',
      '      responses:',
      "        '200': { description: Voided }",
    );
  } else {
    lines.push(
      '  /invoices/{id}/send:',
      '    post:',
      '      operationId: sendInvoice',
      '      summary: Email an invoice',
      '      description: Emails the invoice as a PDF to the billing contact of the customer.',
      '      responses:',
      "        '202': { description: Queued }",
    );
  }
  lines.push(
    'components:',
    '  schemas:',
    '    Invoice:',
    '      type: object',
    '      properties:',
    version === 1
      ? '        total_cents: { type: integer, description: Amount due in cents }'
      : '        amount_due: { type: integer, description: Amount due in cents }',
    "        replaces: { $ref: '#/components/schemas/Invoice' }",
  );
  return lines.join('\n') + '\n';
}

const SWAGGER = JSON.stringify({
  swagger: '2.0',
  info: { title: 'Shipping', version: '2' },
  paths: {
    '/labels': {
      post: {
        operationId: 'printLabel',
        summary: 'Print a shipping label',
        description: 'Prints a parcel label; labels for oversized parcels need a freight account.',
        parameters: [{ in: 'body', name: 'label', schema: { $ref: '#/definitions/Label' } }],
        responses: { '200': { description: 'The label as a PDF' } },
      },
    },
  },
  definitions: { Label: { type: 'object', properties: { weight_grams: { type: 'integer' } } } },
});

describe('ingestData type openapi (e2e, a local API description on 127.0.0.1)', () => {
  let server: TestServer;
  let version: 1 | 2 = 1;
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/openapi.yaml')
        res.writeHead(200, { 'content-type': 'application/yaml' }).end(spec(version));
      else if (req.url === '/swagger.json')
        res.writeHead(200, { 'content-type': 'application/json' }).end(SWAGGER);
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    t = await startTestApp({ KBQA_ALLOW_PRIVATE_HOSTS: server.hostPort });
    p = await t.createProject('api');
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });

  const ingest = async (project: TestProject, url: string) => {
    const res = await t
      .post('/v1/ingestData', { api_key: project.serverKey, url, type: 'openapi' })
      .expect(200);
    return (await t.waitForTask(res.body.task_id, 60_000)).result as Record<string, unknown>;
  };
  const ask = async (project: TestProject, question: string) =>
    (
      await t
        .post('/v1/serviceChat', { api_key: project.serverKey, question, history: [], shouldStream: false })
        .expect(200)
    ).body as { sources: Array<{ link: string }> };

  it('indexes one source per operation and answers with the operation link', async () => {
    const url = `${server.origin}/openapi.yaml`;
    const result = await ingest(p, url);
    expect(result).toMatchObject({ success: true, error: '', indexed: 3, added: 3 });
    const sources = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
    expect(sources.body.map((s: { source: string }) => s.source).sort()).toEqual(
      [`${url}#getInvoice`, `${url}#post-/invoices`, `${url}#voidInvoice`].sort(),
    );
    const chat = await ask(p, 'When is the refund issued after voiding an invoice?');
    expect(chat.sources[0]?.link).toBe(`${url}#voidInvoice`);
  });

  it('re-syncs incrementally: a changed operation updated, a removed one gone, a new one added', async () => {
    const url = `${server.origin}/openapi.yaml`;
    version = 2;
    const result = await ingest(p, url);
    expect(result).toMatchObject({ success: true, added: 1, updated: 1, unchanged: 1, removed: 1 });
    const sources = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
    expect(sources.body.map((s: { source: string }) => s.source).sort()).toEqual(
      [`${url}#getInvoice`, `${url}#post-/invoices`, `${url}#sendInvoice`].sort(),
    );
    const chat = await ask(p, 'How do I email an invoice to the billing contact?');
    expect(chat.sources[0]?.link).toBe(`${url}#sendInvoice`);
    // One index, the same for both loads, as the operator API lists it.
    const [index] = await t.query<{ type: string; url: string }>(
      'SELECT type, url FROM indexes WHERE project_id = ?',
      [p.id],
    );
    expect(index).toEqual({ type: 'openapi', url });
  });

  it('reads a Swagger 2.0 document', async () => {
    const q = await t.createProject('swagger');
    const url = `${server.origin}/swagger.json`;
    expect(await ingest(q, url)).toMatchObject({ success: true, indexed: 1 });
    const chat = await ask(q, 'What do oversized parcels need for a label?');
    expect(chat.sources[0]?.link).toBe(`${url}#printLabel`);
  });

  it('fails the task of a document that answers 404, saying so', async () => {
    const q = await t.createProject('missing');
    const result = await ingest(q, `${server.origin}/gone.yaml`);
    expect(result).toMatchObject({ success: false, indexed: 0 });
    expect(result.error).toContain('HTTP 404');
  });

  it('refuses a non-http URL with 400', async () => {
    const res = await t
      .post('/v1/ingestData', { api_key: p.serverKey, url: 'file:///etc/openapi.yaml', type: 'openapi' })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST' });
  });
});
