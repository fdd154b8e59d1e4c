import { parseToolDefinition } from './tool-definition';
import { parseOpenApiText, toolName, toolsFromOpenApi } from './openapi-import';

const PETSTORE = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'https://{region}.pets.example/v1', variables: { region: { default: 'eu' } } }],
  paths: {
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        operationId: 'getPet',
        summary: 'Find a pet',
        description: 'By its id.',
        parameters: [
          { name: 'fields', in: 'query', schema: { type: 'string' }, description: 'comma-separated' },
          { $ref: '#/components/parameters/Lang' },
        ],
      },
      delete: { summary: 'Remove a pet' },
    },
    '/pets': {
      post: {
        operationId: 'add pet!',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
        },
      },
      put: {
        operationId: 'uploadPhoto',
        requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } },
      },
      options: { operationId: 'preflight' },
    },
    '/remote': {
      get: {
        operationId: 'remote',
        parameters: [{ $ref: 'https://elsewhere.example/params.json#/Q' }],
      },
    },
  },
  components: {
    parameters: {
      Lang: { name: 'lang', in: 'query', required: true, schema: { $ref: '#/components/schemas/Lang' } },
    },
    schemas: {
      Lang: { type: 'string', enum: ['en', 'fr'] },
      NewPet: {
        type: 'object',
        required: ['name'],
        properties: {
          id: { type: 'integer', readOnly: true },
          name: { type: 'string', example: 'Rex' },
          tag: { type: 'string', nullable: true },
          owner: { $ref: '#/components/schemas/Person' },
        },
      },
      Person: {
        type: 'object',
        properties: { name: { type: 'string' }, friend: { $ref: '#/components/schemas/Person' } },
      },
    },
  },
};

describe(toolsFromOpenApi.name, () => {
  const { tools, skipped } = toolsFromOpenApi(PETSTORE);
  const byName = new Map(tools.map((t) => [t.definition.name, t.definition]));

  it('turns a GET with path and query parameters into a URL template with every parameter declared', () => {
    expect(byName.get('getPet')).toEqual({
      name: 'getPet',
      description: 'Find a pet\n\nBy its id.',
      method: 'GET',
      url: 'https://eu.pets.example/v1/pets/{petId}?fields={fields}&lang={lang}',
      parameters: {
        type: 'object',
        properties: {
          petId: { type: 'integer' },
          fields: { type: 'string', description: 'comma-separated' },
          lang: { type: 'string', enum: ['en', 'fr'] },
        },
        required: ['petId', 'lang'],
      },
    });
  });

  it('names an operation without operationId by method and path, described by its summary', () => {
    expect(byName.get('delete_pets_petId')).toMatchObject({
      description: 'Remove a pet',
      method: 'DELETE',
      url: 'https://eu.pets.example/v1/pets/{petId}',
    });
  });

  it('spreads a JSON body into arguments and a body template, without read-only fields and with refs inlined', () => {
    const add = byName.get('add_pet');
    expect(add?.body).toEqual({ name: '{name}', tag: '{tag}', owner: '{owner}' });
    expect(add?.parameters).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        tag: { type: ['string', 'null'] },
        owner: { type: 'object', properties: { name: { type: 'string' }, friend: {} } },
      },
      required: ['name'],
    });
  });

  it('gives definitions the tool rules accept', () => {
    for (const t of tools) expect(() => parseToolDefinition(t.definition)).not.toThrow();
  });

  it('reports skipped operations with the reason', () => {
    expect(skipped).toEqual([
      {
        operation: 'uploadPhoto',
        reason: 'request body is multipart/form-data; only JSON bodies are supported',
      },
      { operation: 'preflight', reason: 'method OPTIONS is not supported' },
      {
        operation: 'remote',
        reason:
          '$ref https://elsewhere.example/params.json#/Q points outside the document; only local references (#/…) are supported',
      },
    ]);
  });

  it('keeps only the listed operations and reports the ones it did not find', () => {
    const only = toolsFromOpenApi(PETSTORE, { operations: ['getPet', 'nope'] });
    expect(only.tools.map((t) => t.definition.name)).toEqual(['getPet']);
    expect(only.skipped).toEqual([{ operation: 'nope', reason: 'no operation with this operationId' }]);
  });

  it('resolves a relative server URL against the document URL, and refuses it without one', () => {
    const doc = {
      openapi: '3.1.0',
      servers: [{ url: '/api' }],
      paths: { '/x': { get: { operationId: 'x' } } },
    };
    expect(
      toolsFromOpenApi(doc, { documentUrl: 'http://127.0.0.1:9/spec/openapi.json' }).tools[0]?.definition.url,
    ).toBe('http://127.0.0.1:9/api/x');
    expect(toolsFromOpenApi(doc).skipped[0]?.reason).toMatch(/server URL "\/api" is relative/);
  });

  it('skips an operation needing a header parameter unless the import sets that header', () => {
    const doc = {
      openapi: '3.0.0',
      servers: [{ url: 'https://a.example' }],
      paths: {
        '/x': { get: { operationId: 'x', parameters: [{ name: 'X-Key', in: 'header', required: true }] } },
      },
    };
    expect(toolsFromOpenApi(doc).skipped[0]?.reason).toMatch(/required header parameter X-Key/);
    expect(toolsFromOpenApi(doc, { headerNames: ['x-key'] }).tools).toHaveLength(1);
  });

  it('refuses what is not an OpenAPI 3 document', () => {
    expect(() => toolsFromOpenApi({ swagger: '2.0', paths: {} })).toThrow(/Swagger 2/);
    expect(() => toolsFromOpenApi([])).toThrow(/must be an object/);
  });
});

describe(toolName.name, () => {
  it('keeps the function-name characters and cuts at 64', () => {
    expect(toolName('pets.list-all v2')).toBe('pets_list-all_v2');
    expect(toolName('x'.repeat(80))).toHaveLength(64);
    expect(toolName('...')).toBeUndefined();
  });
});

describe(parseOpenApiText.name, () => {
  it('reads JSON and YAML, and refuses what is neither without quoting it', () => {
    expect(parseOpenApiText('{"openapi":"3.0.0"}')).toEqual({ openapi: '3.0.0' });
    expect(parseOpenApiText('openapi: 3.1.0\npaths:\n  /x: {}\n')).toEqual({
      openapi: '3.1.0',
      paths: { '/x': {} },
    });
    expect(() => parseOpenApiText('a: [b\nsecret-ish: {')).toThrow(
      'the OpenAPI document is neither valid JSON nor valid YAML',
    );
  });
});
