import type BetterSqlite3 from 'better-sqlite3';
import { HammingKernel, type Scan, type ScanResult } from './hamming-kernel';
import type { ScanThread } from './scan-thread';

/**
 * Bytes of memory per cached vector at `dimension`: its code padded to 16-byte words, its chunk id
 * and its distance slot (56 bytes at 384 dimensions, so 56 MB for a project of 1M chunks).
 */
export function cachedBytesPerVector(dimension: number): number {
  return words(dimension) * 16 + 4 + 4;
}

/** Room for vectors written after a load, as a share of the loaded ones (at least MIN_ROOM). */
const ROOM_SHARE = 0.05;
const MIN_ROOM = 1_024;
/** A cache that replays more changes than this share of its vectors reloads instead. */
const RELOAD_FROM_SHARE = 0.1;
/** Changes the log keeps behind its newest entry when a writer prunes it. */
export const KEPT_CHANGES = 100_000;
/** i8x16 lane sums in the kernel hold 8 bits per word: at most 31 words (3,968 dimensions). */
const MAX_WORDS = 31;
/** Where codes start in kernel memory: the query code goes first. */
const CODES_AT = MAX_WORDS * 16 + 16;

function words(dimension: number): number {
  return Math.ceil(dimension / 128);
}

/** Whether codes of this dimension can be scanned in memory. */
export function cacheableDimension(dimension: number): boolean {
  return words(dimension) <= MAX_WORDS;
}

/**
 * The binary codes of one project's vectors held in WebAssembly memory and scanned with SIMD
 * (hamming-kernel.ts): a scan of 1M codes costs a few milliseconds, where sqlite-vec's kNN over
 * its `bit[]` table took 90 ms for 100 candidates (bench/retrieval/latency.js). Kept current by
 * replaying `vector_changes`, the log triggers write in the transaction of every code change from
 * any process, before each search: chunk ids loaded in order are found by binary search, codes
 * written later go to a tail, deleted ones become holes; many changes, a full tail or too many
 * holes reload the project instead.
 */
export class ProjectCodes {
  private kernel: HammingKernel;
  private ids = new Int32Array(0);
  /** Loaded (sorted) ids end here; slots after it up to `used` are the unsorted tail. */
  private sorted = 0;
  private used = 0;
  /** Slots of deleted codes, skipped by searches until the next load. */
  private holeSlots: number[] = [];
  private capacity = 0;
  private readonly words: number;
  /** Position in vector_changes this cache reflects. */
  private seq = -1;
  lastUsed = 0;

  /**
   * `thread`: where {@link beginNearest} runs its scans (the kernel memory is then shared);
   * without it scans run on the calling thread.
   */
  constructor(
    private readonly projectId: number,
    dimension: number,
    private readonly thread?: ScanThread,
  ) {
    this.words = words(dimension);
    this.kernel = this.newKernel();
  }

  private newKernel(): HammingKernel {
    return new HammingKernel({ shared: this.thread !== undefined });
  }

  /** Vectors held (holes excluded). */
  get size(): number {
    return this.used - this.holeSlots.length;
  }

  /** Bytes this cache holds (kernel memory and ids). */
  get bytes(): number {
    return this.kernel.byteLength + this.ids.byteLength;
  }

  /**
   * Brings the cache up to date with the committed vectors of the project; call outside write
   * transactions (an uncommitted change could be rolled back after the cache replayed it).
   */
  sync(statements: CodeStatements): void {
    const bounds = statements.changeBounds.get();
    const head = bounds?.head ?? 0;
    if (head === this.seq) return;
    const low = bounds?.low ?? null;
    const behind = head - this.seq;
    if (
      this.seq < 0 ||
      low === null ||
      low > this.seq + 1 ||
      behind > this.size * RELOAD_FROM_SHARE + MIN_ROOM
    ) {
      this.load(statements, head);
      return;
    }
    for (const chunkId of statements.changedSince.all(this.seq, head)) {
      const row = chunkId > 0 ? statements.codeOf.get(chunkId) : undefined;
      const ok =
        row !== undefined && row.project_id === this.projectId
          ? this.put(chunkId, row.code)
          : this.remove(chunkId);
      if (!ok) {
        this.load(statements, head);
        return;
      }
    }
    this.seq = head;
  }

  /**
   * The `wanted` chunk ids nearest to `code` (Hamming distance; ties in slot order). Call after
   * {@link sync}.
   */
  nearest(code: Uint8Array, wanted: number): number[] {
    return this.beginNearest(code, wanted)();
  }

  /**
   * {@link nearest} in two steps: the scan starts now, on the cache's {@link ScanThread} when it
   * has one, and the function returned waits for it and picks the ids. Until that function is
   * called the cache must not change (no {@link sync}). Call after {@link sync}.
   */
  beginNearest(code: Uint8Array, wanted: number): () => number[] {
    if (this.used === 0 || wanted <= 0) return () => [];
    const stride = this.words * 16;
    const query = new Uint8Array(stride);
    query.set(code.subarray(0, stride));
    this.kernel.bytes().set(query, 0);
    const scan: Scan = {
      codes: CODES_AT,
      query: 0,
      out: this.outAt(),
      groups: Math.ceil(this.used / 4),
      words: this.words,
      histogram: this.histogramAt(),
    };
    const memory = this.kernel.sharedMemory;
    if (this.thread?.usable && memory) {
      this.kernel.clearHistogram(scan);
      this.thread.start(memory, scan);
      return () => {
        try {
          this.thread?.finish();
        } catch {
          // The thread is gone: scan here instead.
          return this.pick(this.kernel.distances(scan), wanted);
        }
        return this.pick(this.kernel.result(scan), wanted);
      };
    }
    const result = this.kernel.distances(scan);
    return () => this.pick(result, wanted);
  }

  /** The `wanted` nearest ids from a scan's distances and histogram. */
  private pick({ distances, histogram }: ScanResult, wanted: number): number[] {
    const groups = Math.ceil(this.used / 4);
    // The kernel counted the padding after the last code and the holes too: uncount them.
    const n = this.used;
    for (let i = n; i < groups * 4; i++) decrement(histogram, distances[i] ?? 0);
    for (const slot of this.holeSlots) decrement(histogram, distances[slot] ?? 0);
    // The cut: the distance at which the nearest `wanted` codes end.
    let cut = 0;
    let below = 0;
    while (cut < histogram.length - 1 && below + (histogram[cut] ?? 0) < wanted)
      below += histogram[cut++] ?? 0;
    let atCut = wanted - below;
    const ids = this.ids;
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const d = distances[i] ?? 0;
      if (d > cut) continue;
      const id = ids[i] ?? 0;
      if (id !== 0 && (d < cut || atCut-- > 0)) out.push(id);
    }
    return out;
  }

  private load(statements: CodeStatements, head: number): void {
    const n = statements.countProject.get(this.projectId)?.n ?? 0;
    this.kernel = this.newKernel();
    this.capacity = roundUp4(n + Math.max(MIN_ROOM, Math.ceil(n * ROOM_SHARE)));
    this.kernel.reserve(this.histogramAt() + (this.words * 128 + 1) * 4);
    this.ids = new Int32Array(this.capacity);
    this.used = 0;
    this.holeSlots = [];
    const memory = this.kernel.bytes();
    for (const [chunkId, code] of statements.projectCodes.iterate(this.projectId)) {
      if (this.used === this.capacity) break; // written since the count; replayed next sync
      this.write(memory, this.used, code);
      this.ids[this.used++] = chunkId;
    }
    this.sorted = this.used;
    this.seq = head;
  }

  /** Writes or replaces a code; false when there is no room left (the caller reloads). */
  private put(chunkId: number, code: Buffer): boolean {
    let slot = this.slotOf(chunkId);
    if (slot < 0) {
      if (this.used === this.capacity) return false;
      slot = this.used++;
      this.ids[slot] = chunkId;
    }
    this.write(this.kernel.bytes(), slot, code);
    return true;
  }

  /** Turns a code into a hole; false when holes grew too many (the caller reloads). */
  private remove(chunkId: number): boolean {
    const slot = this.slotOf(chunkId);
    if (slot >= 0) {
      this.ids[slot] = 0;
      this.holeSlots.push(slot);
    }
    return this.holeSlots.length <= Math.max(MIN_ROOM, this.used * RELOAD_FROM_SHARE);
  }

  private slotOf(chunkId: number): number {
    let lo = 0;
    let hi = this.sorted - 1;
    // Holes (id 0) keep their place, so the loaded part stays searchable: step past them.
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      let probe = mid;
      while (probe <= hi && this.ids[probe] === 0) probe++;
      if (probe > hi) {
        hi = mid - 1;
        continue;
      }
      const id = this.ids[probe] ?? 0;
      if (id === chunkId) return probe;
      if (id < chunkId) lo = probe + 1;
      else hi = mid - 1;
    }
    for (let i = this.sorted; i < this.used; i++) if (this.ids[i] === chunkId) return i;
    return -1;
  }

  /** Stores a code at its slot in the four-way interleaved layout the kernel reads. */
  private write(memory: Uint8Array, slot: number, code: Uint8Array): void {
    const group = CODES_AT + (slot >> 2) * this.words * 64 + (slot & 3) * 16;
    for (let w = 0; w < this.words; w++) {
      const at = group + w * 64;
      memory.fill(0, at, at + 16);
      memory.set(code.subarray(w * 16, Math.min(code.length, w * 16 + 16)), at);
    }
  }

  private outAt(): number {
    return CODES_AT + (this.capacity / 4) * this.words * 64;
  }

  private histogramAt(): number {
    return this.outAt() + this.capacity * 4;
  }
}

function decrement(counts: Uint32Array, at: number): void {
  counts[at] = (counts[at] ?? 1) - 1;
}

function roundUp4(n: number): number {
  return Math.ceil(n / 4) * 4;
}

export interface CodeStatements {
  changeBounds: BetterSqlite3.Statement<[], { head: number | null; low: number | null }>;
  changedSince: BetterSqlite3.Statement<[number, number], number>;
  codeOf: BetterSqlite3.Statement<[number], { project_id: number; code: Buffer }>;
  countProject: BetterSqlite3.Statement<[number], { n: number }>;
  projectCodes: BetterSqlite3.Statement<[number], [number, Buffer]>;
  pruneChanges: BetterSqlite3.Statement<[number]>;
  quantize: BetterSqlite3.Statement<[Buffer], Buffer>;
}

export function codeStatements(db: BetterSqlite3.Database): CodeStatements {
  return {
    changeBounds: db.prepare(
      `SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'vector_changes') AS head,
              (SELECT min(seq) FROM vector_changes) AS low`,
    ),
    changedSince: db
      .prepare<[number, number], number>(
        'SELECT DISTINCT chunk_id FROM vector_changes WHERE seq > ? AND seq <= ?',
      )
      .pluck(),
    codeOf: db.prepare(
      'SELECT c.project_id, v.code FROM chunk_vector_codes v JOIN chunks c ON c.id = v.chunk_id WHERE v.chunk_id = ?',
    ),
    countProject: db.prepare('SELECT count(*) AS n FROM chunks WHERE project_id = ?'),
    projectCodes: db
      .prepare<[number], [number, Buffer]>(
        `SELECT v.chunk_id, v.code FROM chunks c JOIN chunk_vector_codes v ON v.chunk_id = c.id
         WHERE c.project_id = ? ORDER BY v.chunk_id`,
      )
      .raw(),
    pruneChanges: db.prepare('DELETE FROM vector_changes WHERE seq < ?'),
    quantize: db.prepare<[Buffer], Buffer>('SELECT vec_quantize_binary(?)').pluck(),
  };
}
