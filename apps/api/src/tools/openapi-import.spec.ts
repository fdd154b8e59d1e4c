import { parseToolDefinition } from './tool-definition';
import { parseOpenApiText, resolveSchema, SchemaBudget, toolName, toolsFromOpenApi } from './openapi-import';
import {
  OPENAPI_MAX_SCHEMA_DEPTH,
  OPENAPI_MAX_SCHEMA_NODES,
  OPENAPI_MAX_YAML_ALIASES,
} from './openapi-limits';

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
        owner: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            friend: { description: '(cut: recursive reference to #/components/schemas/Person)' },
          },
        },
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

/** `S0…S{levels-1}`, each with two properties referring to the next: 2^levels nodes once inlined. */
function doublingDocument(levels: number): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) {
    const next = { $ref: `#/components/schemas/S${i + 1}` };
    schemas[`S${i}`] =
      i === levels - 1 ? { type: 'string' } : { type: 'object', properties: { l: next, r: next } };
  }
  return {
    openapi: '3.0.3',
    servers: [{ url: 'https://a.example' }],
    paths: {
      '/bomb': {
        post: {
          operationId: 'bomb',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } },
        },
      },
    },
    components: { schemas },
  };
}

/** Anchors 8 levels deep, each level aliasing the one below 10 times: 10^8 nodes once inlined. */
function yamlAliasBomb(): string {
  const lines = [
    'openapi: 3.0.3',
    'servers: [{url: "https://a.example"}]',
    'x-bomb:',
    '  l0: &l0 {type: string}',
  ];
  for (let level = 1; level <= 8; level++) {
    const props = Array.from({ length: 10 }, (_, i) => `p${i}: *l${level - 1}`).join(', ');
    lines.push(`  l${level}: &l${level} {type: object, properties: {${props}}}`);
  }
  lines.push(
    'paths:',
    '  /bomb:',
    '    post:',
    '      operationId: bomb',
    "      requestBody: {content: {'application/json': {schema: *l8}}}",
  );
  return lines.join('\n') + '\n';
}

/** Levels of nesting of a JSON value. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

describe(resolveSchema.name, () => {
  it('refuses the 40-level doubling schema with the node limit named instead of expanding it', () => {
    expect(() => toolsFromOpenApi(doublingDocument(40))).toThrow(
      `the OpenAPI document exceeds the schema node limit: its schemas expand to more than ${OPENAPI_MAX_SCHEMA_NODES} nodes once $refs are inlined; import fewer of its operations (the operations field) or simplify its schemas`,
    );
  });

  it('charges every use of a shared schema to one budget for the whole import', () => {
    const doc = doublingDocument(10);
    expect(toolsFromOpenApi(doc).tools).toHaveLength(1);
    expect(() => resolveSchema(doc, { $ref: '#/components/schemas/S0' }, new SchemaBudget(500))).toThrow(
      /schema node limit: .* more than 500 nodes/,
    );
  });

  it('refuses a YAML alias bomb with the node limit named', () => {
    const doc = parseOpenApiText(yamlAliasBomb());
    expect(() => toolsFromOpenApi(doc)).toThrow(/exceeds the schema node limit/);
  });

  it('cuts a cyclic schema where it recurs, with a note', () => {
    const doc = {
      components: {
        schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } },
      },
    };
    expect(resolveSchema(doc, { $ref: '#/components/schemas/Node' }, new SchemaBudget())).toEqual({
      type: 'object',
      properties: {
        next: { description: '(cut: recursive reference to #/components/schemas/Node)' },
      },
    });
  });

  it('cuts a schema nested deeper than the depth limit, with a note', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 200; i++) deep = { type: 'array', items: deep };
    const out = resolveSchema({}, deep, new SchemaBudget());
    expect(depthOf(out)).toBeLessThanOrEqual(OPENAPI_MAX_SCHEMA_DEPTH + 2);
    expect(JSON.stringify(out)).toContain(`(cut: nested deeper than ${OPENAPI_MAX_SCHEMA_DEPTH} levels)`);
  });

  it('refuses schemas whose text expands past the size limit', () => {
    const doc = { components: { schemas: { Big: { type: 'string', description: 'x'.repeat(1000) } } } };
    const many = {
      type: 'array',
      items: Array.from({ length: 20 }, () => ({ $ref: '#/components/schemas/Big' })),
    };
    expect(() => resolveSchema(doc, many, new SchemaBudget(1000, 10_000))).toThrow(
      'the OpenAPI document exceeds the schema size limit: its schemas expand to more than 10000 bytes once $refs are inlined; import fewer of its operations (the operations field) or simplify its schemas',
    );
  });
});

describe('OpenAPI import limits', () => {
  it('refuses more YAML aliases than the limit, naming it', () => {
    const aliases = Array.from({ length: OPENAPI_MAX_YAML_ALIASES + 1 }, () => '  - *a').join('\n');
    expect(() => parseOpenApiText(`a: &a {x: 1}\nb:\n${aliases}\n`)).toThrow(
      `the OpenAPI document exceeds the YAML alias limit: more than ${OPENAPI_MAX_YAML_ALIASES} aliases`,
    );
  });

  it('skips an operation whose parameters are too big for one tool, naming the limit', () => {
    const doc = {
      openapi: '3.0.3',
      servers: [{ url: 'https://a.example' }],
      paths: {
        '/x': {
          get: {
            operationId: 'x',
            parameters: [
              { name: 'q', in: 'query', schema: { type: 'string', description: 'd'.repeat(300_000) } },
            ],
          },
        },
      },
    };
    const { tools, skipped } = toolsFromOpenApi(doc);
    expect(tools).toEqual([]);
    expect(skipped).toEqual([
      { operation: 'x', reason: expect.stringMatching(/over the limit of 262144 bytes per tool$/) as string },
    ]);
  });

  it('keeps __proto__ and constructor as plain names, without "[object Object]" or polluted objects', () => {
    const doc = parseOpenApiText(
      JSON.stringify({
        openapi: '3.0.3',
        servers: [{ url: 'https://a.example' }],
        paths: {
          '/a': {
            post: {
              operationId: '__proto__',
              parameters: [
                { name: '__proto__', in: 'query', schema: { type: 'string' } },
                { name: 'constructor', in: 'query', schema: { type: 'integer' } },
              ],
            },
          },
          '/b': {
            post: {
              operationId: 'constructor',
              requestBody: {
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      // A computed key: a literal `__proto__:` would set the prototype.
                      properties: { ['__proto__']: { type: 'string' }, prototype: { type: 'boolean' } },
                    },
                  },
                },
              },
            },
          },
        },
      }),
    );
    const { tools, skipped } = toolsFromOpenApi(doc);
    expect(JSON.stringify(skipped)).not.toContain('[object Object]');
    expect(skipped).toEqual([]);
    const [a, b] = tools.map((t) => t.definition);
    expect(a?.name).toBe('proto');
    expect(JSON.stringify(a?.parameters)).toBe(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}',
    );
    expect(a?.url).toBe('https://a.example/a?__proto__={__proto__}&constructor={constructor}');
    expect(b?.name).toBe('constructor');
    expect(JSON.stringify(b?.body)).toBe('{"__proto__":"{__proto__}","prototype":"{prototype}"}');
    expect(Object.getPrototypeOf(b?.body)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
    for (const t of tools) expect(() => parseToolDefinition(t.definition)).not.toThrow();
  });
});
