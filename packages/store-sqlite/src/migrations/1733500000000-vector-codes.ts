import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The binary code of every chunk vector (one bit per dimension, 48 bytes at 384 dimensions) in a
 * plain table beside the float vectors. A filtered dense search over many chunks ranks them by
 * Hamming distance on these codes and rescores only the best in float: reading 100k float vectors
 * (150 MB) was most of the time of a filtered query at 1M chunks (bench/retrieval/latency.js).
 * Existing vectors are coded here; sqlite-vec is loaded on every connection.
 */
export class VectorCodes1733500000000 implements MigrationInterface {
  name = 'VectorCodes1733500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE chunk_vector_codes (
      chunk_id INTEGER PRIMARY KEY,
      code BLOB NOT NULL)`);
    await q.query(
      'INSERT INTO chunk_vector_codes (chunk_id, code) SELECT chunk_id, vec_quantize_binary(embedding) FROM chunk_vectors',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS chunk_vector_codes');
  }
}
