import { execFile as execFileCallback } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);
import { buildAdminOpenApiDocument } from '../bootstrap';
import { loadConfig } from '../config/config';

describe(buildAdminOpenApiDocument.name, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-openapi-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds the operator routes' document without opening the data directory", async () => {
    const data = join(dir, 'data');
    const doc = await buildAdminOpenApiDocument(loadConfig({ KBQA_DATA_DIR: data }, dir));
    expect(Object.keys(doc.paths)).toContain('/admin/v1/projects');
    expect(doc.components?.schemas).toHaveProperty('TaskReportResponse');
    expect(() => readFileSync(join(data, 'kbqa.sqlite'))).toThrow(/ENOENT/);
  });

  it("is what the dashboard's committed api-types.gen.ts was generated from", async () => {
    const doc = await buildAdminOpenApiDocument(loadConfig({ KBQA_DATA_DIR: dir }, dir));
    const dashboard = join(__dirname, '..', '..', '..', 'dashboard');
    const render = execFile(process.execPath, [join(dashboard, 'scripts', 'api-types.cjs')], {
      maxBuffer: 16 * 1024 * 1024,
    });
    render.child.stdin?.end(JSON.stringify(doc));
    const fresh = (await render).stdout.split('\n');
    const committed = readFileSync(join(dashboard, 'src', 'api-types.gen.ts'), 'utf8').split('\n');
    const line = fresh.findIndex((text, i) => text !== committed[i]);
    const stale =
      line === -1 && fresh.length === committed.length
        ? undefined
        : `apps/dashboard/src/api-types.gen.ts is stale from line ${line + 1}: run \`pnpm build && pnpm --filter @kbqa/dashboard gen:types\``;
    expect(stale).toBeUndefined();
  });
});
