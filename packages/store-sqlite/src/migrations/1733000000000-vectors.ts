import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Full-precision chunk vectors (float32 blobs, used for exact scoring and rescoring) and an index
 * on documents.project_id for metadata filters. The binary-quantized sqlite-vec table that serves
 * kNN needs the embedding dimension, so `SqliteVectorIndex.attach` creates it.
 */
export class Vectors1733000000000 implements MigrationInterface {
  name = 'Vectors1733000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE chunk_vectors (
      chunk_id INTEGER PRIMARY KEY,
      embedding BLOB NOT NULL)`);
    await q.query(`CREATE INDEX documents_project ON documents(project_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS chunk_vectors_bits`);
    await q.query(`DROP TABLE IF EXISTS chunk_vectors`);
    await q.query(`DROP INDEX IF EXISTS documents_project`);
    await q.query(`DELETE FROM index_meta WHERE key IN ('embedder_id', 'dimension')`);
  }
}
