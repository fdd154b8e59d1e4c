import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { load } from 'js-yaml';
import { REPO } from './docker';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = Record<string, any>;

/** YAML merge keys (`<<: *anchor`), which js-yaml 5 leaves as plain keys: the file's own values win. */
function merged(value: any): any {
  if (Array.isArray(value)) return value.map(merged);
  if (value === null || typeof value !== 'object') return value;
  const { '<<': base, ...own } = value as Doc;
  const out: Doc = {};
  for (const b of base === undefined ? [] : Array.isArray(base) ? base : [base])
    Object.assign(out, merged(b));
  for (const [k, v] of Object.entries(own)) out[k] = merged(v);
  return out;
}

export async function loadCompose(path: string): Promise<Doc> {
  const doc = merged(load(await readFile(resolve(REPO, path), 'utf8'))) as Doc;
  for (const key of Object.keys(doc)) if (key.startsWith('x-')) delete doc[key];
  return doc;
}

export interface HostNetwork {
  image: string;
  services: string;
  pgEntry: string;
  ports: { 'api-1': number; 'api-2': number; postgres: number; redis: number };
  password: string;
  extraEnv: Record<string, string>;
}

/**
 * deploy/compose.scale.yml as the test runs it: every service on the host's network (the daemon
 * here has no bridge) with its port moved to a free loopback port, the kbqa services on the image
 * just built, and PostgreSQL and Redis from the image test/base-image.sh made from Debian's
 * packages (pgvector/pgvector and redis cannot be pulled here), run with the file's own settings.
 */
export function onHostNetwork(scale: Doc, o: HostNetwork): Doc {
  const doc = structuredClone(scale);
  const database = `postgres://kbqa:${o.password}@127.0.0.1:${o.ports.postgres}/kbqa`;
  for (const [name, service] of Object.entries(doc.services as Record<string, Doc>)) {
    service.network_mode = 'host';
    delete service.ports;
    if (service.image === 'kbqa:latest') {
      delete service.build;
      service.image = o.image;
      service.environment = {
        ...service.environment,
        ...o.extraEnv,
        KBQA_DATABASE_URL: database,
        REDIS_URL: `redis://127.0.0.1:${o.ports.redis}`,
        HOST: '127.0.0.1',
        ...(name === 'api-1' || name === 'api-2' ? { PORT: String(o.ports[name]) } : {}),
      };
    }
  }
  const pg = doc.services.postgres as Doc;
  const pgArgs = (pg.command as string[]).slice(1);
  pg.image = o.services;
  pg.entrypoint = ['/pg-entry.sh'];
  pg.command = [String(o.ports.postgres), ...pgArgs];
  pg.volumes = [...(pg.volumes as string[]), `${o.pgEntry}:/pg-entry.sh:ro`];
  pg.healthcheck = {
    ...pg.healthcheck,
    test: [
      'CMD',
      'pg_isready',
      '-h',
      '127.0.0.1',
      '-p',
      String(o.ports.postgres),
      '-U',
      'kbqa',
      '-d',
      'kbqa',
    ],
    interval: '1s',
  };
  const redis = doc.services.redis as Doc;
  const redisArgs = (redis.command as string[]).slice(1);
  redis.image = o.services;
  redis.command = [
    'redis-server',
    '--bind',
    '127.0.0.1',
    '--port',
    String(o.ports.redis),
    '--dir',
    '/data',
    ...redisArgs,
  ];
  redis.healthcheck = {
    ...redis.healthcheck,
    test: ['CMD', 'redis-cli', '-p', String(o.ports.redis), 'ping'],
    interval: '1s',
  };
  return doc;
}
