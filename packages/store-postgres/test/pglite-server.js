// PGlite with pgvector served over the wire protocol, in a process of its own: PGlite loads its
// WebAssembly with a dynamic import, which jest's module sandbox refuses. Started by
// test/postgres-servers.ts, it reports its port over IPC and stops when told to (or when its
// parent goes away).
'use strict';
const { PGlite } = require('@electric-sql/pglite');
const { vector } = require('@electric-sql/pglite-pgvector');
const { PGLiteSocketServer } = require('@electric-sql/pglite-socket');

async function main() {
  const db = await PGlite.create({ extensions: { vector } });
  // A second argument allows that many connections (the socket server runs one transaction at a
  // time across them), for a pooled client such as the API's; the default is one.
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: Number(process.argv[2]),
    maxConnections: Number(process.argv[3] ?? 1),
  });
  await server.start();
  const stop = async () => {
    await server.stop();
    await db.close();
    process.disconnect?.();
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ ready: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
