import { afterEach, describe, expect, it } from '@jest/globals';
import { KbqaError } from '@kbqa/core';
import { collect, describeLoaderContract, startServer, type TestServer } from '@kbqa/core/testing';
import { SafeFetcher } from '@kbqa/fetcher';
import { OpenApiLoader } from './openapi.loader';

/** OpenAPI 3 in YAML: a Pet refers to itself (parent) and to a Category that lists Pets. */
const PETSTORE_YAML = `openapi: 3.0.3
info:
  title: Petstore
  version: 1.2.0
servers:
  - url: https://api.petstore.test/v1
security:
  - apiKey: []
paths:
  /pets/{id}:
    parameters:
      - $ref: '#/components/parameters/PetId'
    get:
      operationId: getPet
      summary: Fetch one pet
      description: Returns the pet with this id, with its parent and category.
      responses:
        '200':
          description: The pet
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Pet'
              example:
                id: 7
                name: Rex
        '404':
          $ref: '#/components/responses/NotFound'
    delete:
      summary: Remove a pet
      responses:
        '204':
          description: Removed
  /pets:
    post:
      operationId: createPet
      summary: Add a pet
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/NewPet'
            examples:
              dog:
                value:
                  name: Fido
                  species: dog
      responses:
        '201':
          description: Created
components:
  securitySchemes:
    apiKey:
      type: apiKey
      in: header
      name: X-Pet-Key
  parameters:
    PetId:
      name: id
      in: path
      description: Numeric id of the pet
      schema:
        type: integer
        format: int64
        minimum: 1
  responses:
    NotFound:
      description: No pet has this id
  schemas:
    NewPet:
      type: object
      required: [name]
      properties:
        name:
          type: string
          description: What the pet answers to
        species:
          type: string
          enum: [dog, cat, parrot]
    Pet:
      allOf:
        - $ref: '#/components/schemas/NewPet'
        - type: object
          required: [id]
          properties:
            id:
              type: integer
            parent:
              $ref: '#/components/schemas/Pet'
            category:
              $ref: '#/components/schemas/Category'
    Category:
      type: object
      properties:
        label:
          type: string
        pets:
          type: array
          items:
            $ref: '#/components/schemas/Pet'
`;

const SWAGGER_JSON = JSON.stringify({
  swagger: '2.0',
  info: { title: 'Legacy orders', version: '0.9' },
  host: 'orders.test',
  basePath: '/api',
  schemes: ['https'],
  produces: ['application/json'],
  paths: {
    '/orders': {
      post: {
        summary: 'Place an order',
        parameters: [
          {
            in: 'body',
            name: 'order',
            required: true,
            description: 'The order to place',
            schema: { $ref: '#/definitions/Order' },
          },
          { in: 'query', name: 'dry_run', type: 'boolean', default: false, description: 'Validate only' },
        ],
        responses: {
          '200': {
            description: 'The placed order',
            schema: { $ref: '#/definitions/Order' },
            examples: { 'application/json': { id: 'o-1', quantity: 3 } },
          },
        },
      },
    },
  },
  definitions: {
    Order: {
      type: 'object',
      properties: {
        id: { type: 'string', readOnly: true },
        quantity: { type: 'integer', minimum: 1, description: 'How many units' },
      },
    },
  },
});

async function setup(): Promise<{ server: TestServer; fetcher: SafeFetcher; loader: OpenApiLoader }> {
  const server = await startServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/openapi.yaml')
      res.writeHead(200, { 'content-type': 'application/yaml' }).end(PETSTORE_YAML);
    else if (path === '/swagger.json')
      res.writeHead(200, { 'content-type': 'application/json' }).end(SWAGGER_JSON);
    else if (path === '/not-a-spec.json')
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}');
    else if (path === '/empty.json')
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"openapi":"3.1.0","info":{"title":"x","version":"1"},"paths":{}}');
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  const fetcher = new SafeFetcher({ allowPrivateHosts: [server.hostPort], retries: 0 });
  return { server, fetcher, loader: new OpenApiLoader({ fetcher }) };
}

describeLoaderContract(OpenApiLoader.name, {
  async setup() {
    const { server, fetcher } = await setup();
    return {
      // Past two operations the third is skipped, for the contract's skip check.
      loader: new OpenApiLoader({ fetcher, maxOperations: 2 }),
      request: { url: `${server.origin}/openapi.yaml` },
      skipping: { url: `${server.origin}/openapi.yaml` },
      teardown: async () => {
        fetcher.close();
        await server.close();
      },
    };
  },
  invalidRequest: { url: 'file:///etc/openapi.yaml' },
});

describe(OpenApiLoader.name, () => {
  let env: Awaited<ReturnType<typeof setup>> | undefined;
  afterEach(async () => {
    env?.fetcher.close();
    await env?.server.close();
    env = undefined;
  });

  async function failure(path: string): Promise<KbqaError> {
    env = await setup();
    try {
      await collect(env.loader, { url: `${env.server.origin}${path}` });
    } catch (error) {
      if (error instanceof KbqaError) return error;
      throw error;
    }
    throw new Error('expected the load to fail');
  }

  it('yields one source per operation, linked by operationId or by method and path', async () => {
    env = await setup();
    const url = `${env.server.origin}/openapi.yaml`;
    const { documents } = await collect(env.loader, { url });
    expect(documents.map((d) => d.source).sort()).toEqual(
      [`${url}#createPet`, `${url}#delete-/pets/{id}`, `${url}#getPet`].sort(),
    );
    for (const d of documents) expect(d.link).toBe(d.source);
    const get = documents.find((d) => d.source.endsWith('#getPet'));
    expect(get?.title).toBe('GET /pets/{id}: Fetch one pet');
  });

  it('renders parameters, responses and schemas with refs resolved and cycles cut', async () => {
    env = await setup();
    const { documents } = await collect(env.loader, { url: `${env.server.origin}/openapi.yaml` });
    const get = documents.find((d) => d.source.endsWith('#getPet'))?.content ?? '';
    expect(get).toContain('# GET /pets/{id}');
    expect(get).toContain('Returns the pet with this id');
    // The path-level parameter, through its $ref.
    expect(get).toContain('- `id` (in path, integer (int64), required): Numeric id of the pet; minimum 1');
    // allOf merged: NewPet's fields beside Pet's own.
    expect(get).toContain('- `name` (string, required): What the pet answers to');
    expect(get).toContain('- `species` (string): one of `"dog"`, `"cat"`, `"parrot"`');
    expect(get).toContain('- `parent` (Pet (circular: Pet))');
    // Category is expanded once; its Pets are the cycle again.
    expect(get).toContain('- `category` (Category)');
    expect(get).toContain('- `pets` (array of Pet (circular: Pet))');
    expect(get).toContain('### 404: No pet has this id');
    expect(get).toContain('"name": "Rex"');
    expect(get).toContain('Base URL: https://api.petstore.test/v1');
    expect(get).toContain('Authentication: apiKey (apiKey header X-Pet-Key)');
    const post = documents.find((d) => d.source.endsWith('#createPet'))?.content ?? '';
    expect(post).toContain('## Request body');
    expect(post).toContain('Content type `application/json`: NewPet');
    expect(post).toContain('Example "dog":');
    expect(post).toContain('"species": "dog"');
  });

  it('reads a Swagger 2.0 document: body parameter, definitions and response examples', async () => {
    env = await setup();
    const url = `${env.server.origin}/swagger.json`;
    const { documents } = await collect(env.loader, { url });
    expect(documents).toHaveLength(1);
    const [doc] = documents;
    expect(doc?.source).toBe(`${url}#post-/orders`);
    expect(doc?.content).toContain('## Request body');
    expect(doc?.content).toContain('The order to place');
    expect(doc?.content).toContain('- `quantity` (integer): How many units; minimum 1');
    expect(doc?.content).toContain('- `id` (string, read-only)');
    expect(doc?.content).toContain('- `dry_run` (in query, boolean): Validate only; default `false`');
    expect(doc?.content).toContain('"quantity": 3');
    expect(doc?.content).toContain('Base URL: https://orders.test/api');
  });

  it('skips operations past its limit with LIMIT', async () => {
    env = await setup();
    const loader = new OpenApiLoader({ fetcher: env.fetcher, maxOperations: 2 });
    const { documents, skipped } = await collect(loader, { url: `${env.server.origin}/openapi.yaml` });
    expect(documents).toHaveLength(2);
    expect(skipped).toEqual([
      expect.objectContaining({ code: 'LIMIT', reason: 'operation limit of 2 reached' }),
    ]);
  });

  it('fails a 404 with FETCH_FAILED naming the status', async () => {
    const error = await failure('/missing.yaml');
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toContain('HTTP 404');
  });

  it('refuses a document that is not OpenAPI or Swagger', async () => {
    const error = await failure('/not-a-spec.json');
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toContain('not an OpenAPI 3.x or Swagger 2.0 document');
  });

  it('fails a document without operations with NO_CONTENT', async () => {
    expect((await failure('/empty.json')).code).toBe('NO_CONTENT');
  });

  it('refuses a document larger than its byte cap', async () => {
    env = await setup();
    const loader = new OpenApiLoader({ fetcher: env.fetcher, maxBytes: 100 });
    await expect(collect(loader, { url: `${env.server.origin}/openapi.yaml` })).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
  });
});
