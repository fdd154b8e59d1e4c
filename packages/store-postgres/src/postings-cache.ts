import { Batcher } from './batcher';
import type { Queryable } from './vector-store';

/** One lexeme's postings in a project, by ascending chunk id. */
export interface PostingList {
  chunkIds: Int32Array;
  /** Weighted term frequencies (`chunk_postings.tf`, a real: sums of 4, 2.5, 1 and 0.5, exact). */
  tfs: Float32Array;
  docLens: Int32Array;
}

/**
 * Postings held by default: about 12 bytes each, the bound of the SQLite store's term score
 * lists (4M entries of 12 bytes). Half of it was too few: the benchmark questions' postings
 * evicted each other in turn.
 */
export const DEFAULT_CACHED_POSTINGS = 4_000_000;
/**
 * The index's generation: the sum of every project's (migration 4). Each write of chunks raises
 * its project's by one and none is ever lowered or deleted, so the sum rises with every write of
 * any project, a project's deletion of all its chunks included, and only then. Index-wide BM25
 * statistics (the chunk count, average length and document frequencies) hold while it is the
 * same; a chunk count alone misses writes that leave it equal (one project deletes ten chunks,
 * another adds ten). One row a project, so summing costs microseconds.
 */
export const INDEX_GENERATION_SQL = 'SELECT coalesce(sum(generation), 0)::float8 FROM index_generations';
/** A project's generation and the index's, read in one statement. */
interface Generations {
  generation: number;
  indexGeneration: number;
}
/** Tries before giving up when writes keep raising the generation between two reads. */
const ATTEMPTS = 3;

interface Entry {
  generation: number;
  list: PostingList;
}

/**
 * The postings of the lexemes questions ask about, held in the process so BM25 is summed here
 * instead of in PostgreSQL, where aggregating the postings was the busiest part of a chat. Each
 * list is tagged with its project's generation (migration 4, raised by every write of the
 * project's chunks in the same transaction) and used only while a read of that generation, made
 * in the same statement as any missing lists, finds it unchanged: a question sees the committed
 * index as a query would, whichever process wrote it. Least recently used lists go first past `maxPostings`.
 */
export class PostingsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly generations = new Map<number, number>();
  private held = 0;
  /** Generation reads of the questions of one turn of the event loop, in one statement. */
  private readonly generationReads = new Batcher((projectIds: number[]) => this.readGenerations(projectIds));

  constructor(
    private readonly db: Queryable,
    private readonly maxPostings = DEFAULT_CACHED_POSTINGS,
  ) {}

  /**
   * The postings of each lexeme in the project as committed now (`lists`, undefined when writes
   * raised the project's generation between each of a few reads: the caller then queries the
   * table), and the index's generation read in the same statement (see {@link INDEX_GENERATION_SQL}),
   * so whoever holds index-wide statistics learns without a round trip of its own whether they
   * still hold.
   */
  async lists(
    projectId: number,
    lexemes: string[],
  ): Promise<{ lists: Map<string, PostingList> | undefined; indexGeneration: number }> {
    let indexGeneration = -1;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const known = this.generations.get(projectId);
      const found = new Map<string, PostingList>();
      const missing: string[] = [];
      for (const lexeme of lexemes) {
        const entry = known === undefined ? undefined : this.entries.get(key(projectId, lexeme));
        if (entry && entry.generation === known) found.set(lexeme, entry.list);
        else missing.push(lexeme);
      }
      if (known !== undefined && missing.length === 0) {
        // Every list is held: only the generation is read, together with the other questions'.
        const read = await this.generationReads.add(projectId);
        const generation = read.generation;
        indexGeneration = read.indexGeneration;
        if (generation === known) {
          for (const lexeme of lexemes) this.touch(key(projectId, lexeme));
          return { lists: found, indexGeneration };
        }
        // A write committed since the lists were read: the next attempt reads them again.
        this.generations.set(projectId, generation);
        continue;
      }
      // Named: prepared once per connection, this statement runs on every question. One row a
      // list (and one row with a null `i` when none is missing): a bytea column is decoded from
      // hex natively, while a bytea[] went through node-postgres's array parser character by
      // character.
      const { rows } = await this.db.query<{
        generation: number;
        index_generation: number;
        i: number | null;
        list: Buffer | null;
      }>({
        name: 'kbqa_postings_list_rows',
        text: `SELECT g.generation, (${INDEX_GENERATION_SQL}) AS index_generation, x.i::int AS i,
             (SELECT coalesce(string_agg(int4send(p.chunk_id) || float4send(p.tf) || int4send(p.doc_len),
                                         ''::bytea ORDER BY p.chunk_id), ''::bytea)
              FROM chunk_postings p WHERE p.project_id = $1 AND p.lexeme = x.l) AS list
           FROM (SELECT coalesce((SELECT generation FROM index_generations WHERE project_id = $1), 0)::float8 AS generation) g
           LEFT JOIN unnest($2::text[]) WITH ORDINALITY AS x (l, i) ON true`,
        values: [projectId, missing],
      });
      const generation = rows[0]!.generation;
      indexGeneration = rows[0]!.index_generation;
      this.generations.set(projectId, generation);
      for (const row of rows) {
        if (row.i === null) continue;
        const lexeme = missing[row.i - 1]!;
        const list = decode(row.list!);
        this.put(key(projectId, lexeme), { generation, list });
        found.set(lexeme, list);
      }
      // The lists read earlier are those of `known`; a different generation means a write
      // committed since, so they are read again (the ones just read are current).
      if (known === undefined || known === generation || missing.length === lexemes.length) {
        for (const lexeme of lexemes) this.touch(key(projectId, lexeme));
        return { lists: found, indexGeneration };
      }
    }
    return { lists: undefined, indexGeneration };
  }

  /** Each project's committed generation (0 before its first write), as the lists statement reads it. */
  private async readGenerations(projectIds: number[]): Promise<Generations[]> {
    const { rows } = await this.db.query<{
      project_id: number;
      generation: number;
      index_generation: number;
    }>({
      name: 'kbqa_project_generations',
      text: `SELECT p.id AS project_id, coalesce(g.generation, 0)::float8 AS generation,
                (${INDEX_GENERATION_SQL}) AS index_generation
         FROM unnest($1::integer[]) AS p (id) LEFT JOIN index_generations g ON g.project_id = p.id`,
      values: [[...new Set(projectIds)]],
    });
    const of = new Map(rows.map((r) => [r.project_id, r]));
    return projectIds.map((id) => ({
      generation: of.get(id)!.generation,
      indexGeneration: of.get(id)!.index_generation,
    }));
  }

  private put(k: string, entry: Entry): void {
    const old = this.entries.get(k);
    if (old) {
      this.held -= old.list.chunkIds.length;
      this.entries.delete(k);
    }
    if (entry.list.chunkIds.length > this.maxPostings) return;
    this.entries.set(k, entry);
    this.held += entry.list.chunkIds.length;
    for (const [oldest, e] of this.entries) {
      if (this.held <= this.maxPostings) break;
      this.entries.delete(oldest);
      this.held -= e.list.chunkIds.length;
    }
  }

  /** Moves an entry to the young end of the map's order, which eviction reads from the old end. */
  private touch(k: string): void {
    const entry = this.entries.get(k);
    if (!entry) return;
    this.entries.delete(k);
    this.entries.set(k, entry);
  }
}

function key(projectId: number, lexeme: string): string {
  return `${projectId}\u0000${lexeme}`;
}

/** 12 bytes a posting, big-endian: chunk id (int4), tf (float4), length (int4). */
function decode(bytes: Buffer): PostingList {
  const n = bytes.length / 12;
  const list: PostingList = {
    chunkIds: new Int32Array(n),
    tfs: new Float32Array(n),
    docLens: new Int32Array(n),
  };
  for (let i = 0; i < n; i++) {
    list.chunkIds[i] = bytes.readInt32BE(i * 12);
    list.tfs[i] = bytes.readFloatBE(i * 12 + 4);
    list.docLens[i] = bytes.readInt32BE(i * 12 + 8);
  }
  return list;
}
