import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * First schema. Documents and chunks are written with prepared statements on the hot ingestion
 * path, so they have no TypeORM entity; FTS5 rows are contentless (chunk text lives once, in
 * `chunks`) with contentless_delete so a source can be removed row by row.
 */
export class Initial1732000000000 implements MigrationInterface {
  name = 'Initial1732000000000';

  async up(q: QueryRunner): Promise<void> {
    const statements = [
      `CREATE TABLE projects (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        export_enabled INTEGER NOT NULL DEFAULT 0,
        system_prompt TEXT,
        created_at TEXT NOT NULL)`,
      `CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('server', 'anon')),
        prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT)`,
      `CREATE INDEX api_keys_project ON api_keys(project_id)`,
      `CREATE TABLE sources (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        source TEXT NOT NULL,
        kind TEXT NOT NULL,
        date_added TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        auto_sync INTEGER NOT NULL DEFAULT 0,
        UNIQUE (project_id, source))`,
      `CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        project_id INTEGER NOT NULL,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        link TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        content_hash TEXT NOT NULL,
        created_at TEXT NOT NULL)`,
      `CREATE INDEX documents_source ON documents(source_id)`,
      `CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        project_id INTEGER NOT NULL,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        heading_path TEXT NOT NULL,
        link TEXT NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        embedded_with TEXT)`,
      `CREATE INDEX chunks_project ON chunks(project_id)`,
      `CREATE INDEX chunks_source ON chunks(source_id)`,
      `CREATE INDEX chunks_document ON chunks(document_id)`,
      `CREATE INDEX chunks_unembedded ON chunks(project_id) WHERE embedded_with IS NULL`,
      `CREATE VIRTUAL TABLE chunks_fts USING fts5(
        title, headings, content,
        content='', contentless_delete=1,
        tokenize='porter unicode61 remove_diacritics 2')`,
      `CREATE TABLE index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      `CREATE TABLE ingestion_tasks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        current INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL DEFAULT 0,
        current_step TEXT NOT NULL DEFAULT 'PENDING',
        payload TEXT NOT NULL,
        success INTEGER,
        error_code TEXT,
        error TEXT,
        stats TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT)`,
      `CREATE INDEX ingestion_tasks_open ON ingestion_tasks(status) WHERE status <> 'completed'`,
      `CREATE TABLE conversations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        role_info TEXT,
        created_at TEXT NOT NULL,
        ended_at TEXT)`,
      `CREATE INDEX conversations_project ON conversations(project_id)`,
      `CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        sender TEXT NOT NULL CHECK (sender IN ('Human', 'AI')),
        text TEXT NOT NULL,
        reply_to INTEGER,
        sources TEXT NOT NULL DEFAULT '[]',
        rating_value INTEGER NOT NULL DEFAULT 0,
        complete INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL)`,
      `CREATE INDEX messages_conversation ON messages(conversation_id)`,
      `CREATE INDEX messages_project_time ON messages(project_id, created_at)`,
    ];
    for (const sql of statements) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'messages',
      'conversations',
      'ingestion_tasks',
      'index_meta',
      'chunks_fts',
      'chunks',
      'documents',
      'sources',
      'api_keys',
      'projects',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
