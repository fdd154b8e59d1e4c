// One process of the "two processes start at once" case: migrates the database of argv[2] with
// the built store (turbo builds before it tests) and reports over IPC, then exits.
'use strict';
const { Pool } = require('pg');
const { migrate } = require('../dist');

async function main() {
  const pool = new Pool({ connectionString: process.argv[2], max: 1 });
  try {
    const { vectorsAvailable } = await migrate(pool);
    process.send({ ok: true, vectorsAvailable });
  } catch (e) {
    process.send({ ok: false, error: e instanceof Error ? e.message : String(e) });
  } finally {
    await pool.end();
    process.disconnect();
  }
}

void main();
