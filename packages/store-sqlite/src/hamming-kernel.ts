/**
 * Hamming distances between one binary code and many, in WebAssembly SIMD (xor, i8x16.popcnt,
 * widening adds: 16 bytes of code per step). Hand-assembled here so the store needs no build step
 * or native module for it. The codes live in the module's own memory, which grows on demand and
 * is released with the kernel.
 */
export class HammingKernel {
  private readonly memory: WasmMemory;
  private readonly distancesFn: DistancesFn;

  /**
   * `shared`: the memory is a shared WebAssembly memory (a SharedArrayBuffer that grows in place
   * up to 4 GiB), so a {@link ScanThread} can run the scan while this thread does other work.
   */
  constructor(options: { shared?: boolean } = {}) {
    if (options.shared) {
      this.memory = new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true });
      const instance = new WebAssembly.Instance(sharedModule(), { env: { memory: this.memory } });
      this.distancesFn = (instance.exports as { distances: DistancesFn }).distances;
      return;
    }
    const instance = new WebAssembly.Instance(ownModule());
    const exports = instance.exports as unknown as { memory: WasmMemory; distances: DistancesFn };
    this.memory = exports.memory;
    this.distancesFn = exports.distances;
  }

  /** The shared memory a {@link ScanThread} scans (undefined unless built `shared`). */
  get sharedMemory(): WasmMemory | undefined {
    return this.memory.buffer instanceof SharedArrayBuffer ? this.memory : undefined;
  }

  /** Bytes of module memory. */
  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /** Grows memory to hold at least `bytes`; views taken before a call are invalid after it. */
  reserve(bytes: number): void {
    const missing = bytes - this.memory.buffer.byteLength;
    if (missing > 0) this.memory.grow(Math.ceil(missing / PAGE));
  }

  /** A byte view of module memory (re-take it after {@link reserve}). */
  bytes(): Uint8Array {
    return new Uint8Array(this.memory.buffer);
  }

  /**
   * Distances from the code at `query` (`words` × 16 bytes, zero-padded) to the `groups` × 4 codes
   * at `codes` (interleaved in groups of four, see below), written as uint32 at `out`, and how many
   * codes are at each distance, as uint32 counts at `histogram` (words × 128 + 1 of them). Offsets
   * are byte offsets into module memory; `out` and `histogram` multiples of 4.
   */
  distances(scan: Scan): ScanResult {
    this.clearHistogram(scan);
    this.distancesFn(scan.codes, scan.query, scan.out, scan.groups, scan.words, scan.histogram);
    return this.result(scan);
  }

  /** Zeroes the histogram of a scan: the kernel only counts into it. */
  clearHistogram(scan: Scan): void {
    new Uint32Array(this.memory.buffer, scan.histogram, scan.words * 128 + 1).fill(0);
  }

  /** Views of what a finished scan wrote. */
  result(scan: Scan): ScanResult {
    return {
      distances: new Uint32Array(this.memory.buffer, scan.out, scan.groups * 4),
      histogram: new Uint32Array(this.memory.buffer, scan.histogram, scan.words * 128 + 1),
    };
  }
}

/** The arguments of one kernel call (byte offsets into kernel memory, counts). */
export interface Scan {
  codes: number;
  query: number;
  out: number;
  groups: number;
  words: number;
  histogram: number;
}

export interface ScanResult {
  distances: Uint32Array;
  histogram: Uint32Array;
}

type DistancesFn = (
  codes: number,
  query: number,
  out: number,
  groups: number,
  words: number,
  histogram: number,
) => void;

/** The most pages a wasm32 memory can have (4 GiB). */
const MAX_PAGES = 65_536;

const PAGE = 65_536;

// The WebAssembly global of Node, typed here: the shared tsconfig has no DOM library, which is
// where TypeScript declares it.
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: object };
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
};

// Opcodes used below (WebAssembly core and SIMD proposal).
const I32_CONST = 0x41;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const I32_GE_U = 0x4f;
const I32_LT_U = 0x49;
const BLOCK = 0x02;
const LOOP = 0x03;
const BR = 0x0c;
const BR_IF = 0x0d;
const END = 0x0b;
const VOID = 0x40;
const I32 = 0x7f;
const V128 = 0x7b;
const SIMD = 0xfd;
const V128_LOAD = [SIMD, 0x00];
const V128_CONST = [SIMD, 0x0c];
const V128_XOR = [SIMD, 0x51];
const I8X16_POPCNT = [SIMD, 0x62];
const I16X8_EXTADD_PAIRWISE_I8X16_U = [SIMD, 0x7d];
const I32X4_EXTADD_PAIRWISE_I16X8_U = [SIMD, 0x7f];
const I8X16_ADD = [SIMD, 0x6e];
const I8X16_SHUFFLE = [SIMD, 0x0d];
const I32X4_ADD = [SIMD, 0xae, 0x01];
const I32X4_EXTRACT_LANE = [SIMD, 0x1b];
const I32_LOAD = 0x28;
const I32_STORE = 0x36;
const V128_STORE = [SIMD, 0x0b];

// Codes are stored in groups of four, interleaved by 16-byte word (w0 of codes 0-3, then w1 of
// codes 0-3, ...), so one pass over a group reads memory in order and keeps four accumulators.
// Parameters 0-5: codes, query, out, groups, words, histogram; locals 6 i, 7 w, 8 p, 9 t (i32),
// 10 q, 11-14 a0-a3 (v128).
const [CODES, QUERY, OUT, GROUPS, WORDS, HISTOGRAM, I, W, P, T, Q] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const A = [11, 12, 13, 14] as const;

const EVENS = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27];
const ODDS = EVENS.map((b) => b + 4);
/** Pairwise sums of i32x4 locals x and y: [x0+x1, x2+x3, y0+y1, y2+y3]. */
const hadd = (x: number, y: number) => [
  ...[LOCAL_GET, x, LOCAL_GET, y, ...I8X16_SHUFFLE, ...EVENS],
  ...[LOCAL_GET, x, LOCAL_GET, y, ...I8X16_SHUFFLE, ...ODDS],
  ...I32X4_ADD,
];
const accumulate = (a: number, j: number) => [
  ...[LOCAL_GET, a, LOCAL_GET, P, ...V128_LOAD, 0, j * 16, LOCAL_GET, Q, ...V128_XOR],
  ...[...I8X16_POPCNT, ...I8X16_ADD, LOCAL_SET, a],
];
const widen = (a: number) => [
  ...[LOCAL_GET, a, ...I16X8_EXTADD_PAIRWISE_I8X16_U, ...I32X4_EXTADD_PAIRWISE_I16X8_U, LOCAL_SET, a],
];
const ZERO = [...V128_CONST, ...new Array<number>(16).fill(0)];

const body = [
  // locals: 4 × i32, 5 × v128
  ...[2, 4, I32, 5, V128],
  ...[LOCAL_GET, CODES, LOCAL_SET, P],
  ...[BLOCK, VOID, LOOP, VOID],
  ...[LOCAL_GET, I, LOCAL_GET, GROUPS, I32_GE_U, BR_IF, 1],
  ...A.flatMap((a) => [...ZERO, LOCAL_SET, a]),
  ...[I32_CONST, 0, LOCAL_SET, W],
  ...[LOOP, VOID],
  ...[LOCAL_GET, QUERY, LOCAL_GET, W, I32_CONST, 4, I32_SHL, I32_ADD, ...V128_LOAD, 0, 0, LOCAL_SET, Q],
  ...A.flatMap((a, j) => accumulate(a, j)),
  ...[LOCAL_GET, P, I32_CONST, 0xc0, 0x00, I32_ADD, LOCAL_SET, P],
  ...[LOCAL_GET, W, I32_CONST, 1, I32_ADD, LOCAL_TEE, W, LOCAL_GET, WORDS, I32_LT_U, BR_IF, 0],
  END,
  ...A.flatMap(widen),
  // out[4i .. 4i+3] = the four distances, as uint32, each counted in histogram[distance]
  ...hadd(A[0], A[1]),
  ...[LOCAL_SET, A[0]],
  ...hadd(A[2], A[3]),
  ...[LOCAL_SET, A[2]],
  ...hadd(A[0], A[2]),
  ...[LOCAL_SET, A[0]],
  ...[LOCAL_GET, OUT, LOCAL_GET, I, I32_CONST, 4, I32_SHL, I32_ADD, LOCAL_GET, A[0], ...V128_STORE, 0, 0],
  ...[0, 1, 2, 3].flatMap((lane) => [
    ...[LOCAL_GET, HISTOGRAM, LOCAL_GET, A[0], ...I32X4_EXTRACT_LANE, lane, I32_CONST, 2, I32_SHL, I32_ADD],
    ...[LOCAL_TEE, T, LOCAL_GET, T, I32_LOAD, 2, 0, I32_CONST, 1, I32_ADD, I32_STORE, 2, 0],
  ]),
  ...[LOCAL_GET, I, I32_CONST, 1, I32_ADD, LOCAL_SET, I],
  ...[BR, 0, END, END, END],
];

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];

const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
// type 0: (i32 × 6) -> ()
const types = section(1, [1, 0x60, 6, I32, I32, I32, I32, I32, I32, 0]);
const functions = section(3, [1, 0]);
const code = section(10, [1, ...uleb(body.length), ...body]);

/** The kernel with its own memory (1 page minimum, no maximum), exported as `memory`. */
export const MODULE_BYTES = new Uint8Array([
  ...header,
  ...types,
  ...functions,
  ...section(5, [1, 0x00, 1]),
  ...section(7, [2, ...name('memory'), 0x02, 0, ...name('distances'), 0x00, 0]),
  ...code,
]);

/**
 * The kernel importing `env.memory`, a shared memory of 1 to {@link MAX_PAGES} pages (limits flag
 * 3: a maximum, shared), which the thread that asks for a scan and the {@link ScanThread} that runs
 * it both instantiate.
 */
export const SHARED_MODULE_BYTES = new Uint8Array([
  ...header,
  ...types,
  ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x03, 1, ...uleb(MAX_PAGES)]),
  ...functions,
  ...section(7, [1, ...name('distances'), 0x00, 0]),
  ...code,
]);

const compiled: { own?: object; shared?: object } = {};
const ownModule = () => (compiled.own ??= new WebAssembly.Module(MODULE_BYTES));
const sharedModule = () => (compiled.shared ??= new WebAssembly.Module(SHARED_MODULE_BYTES));
