import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { type Scan, SHARED_MODULE_BYTES, type WasmMemory } from './hamming-kernel';

/** States of the control word (index 0). */
const IDLE = 0;
const REQUESTED = 1;
const DONE = 2;
const FAILED = 3;
const STOP = 4;
/**
 * How long a scan may take before the thread counts as lost: a full 4 GiB memory scans in well
 * under a second, so this only trips when the thread died (or has not started in that time).
 */
const FINISH_WITHIN_MS = 30_000;
const WAIT_SLICE_MS = 1_000;
/** Control layout: state, the six scan arguments, the memory generation the scan is for. */
const ARGS_AT = 1;
const MEMORY_AT = 7;

/**
 * The thread's loop: wait for a request, take the newest memory posted before it, run the kernel
 * on it, report. Plain JavaScript evaluated in the worker, so it needs no file of its own (the
 * store also runs bundled into the single executable).
 */
const WORKER_SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { control, port, bytes } = workerData;
const module = new WebAssembly.Module(bytes);
let generation = -1;
let distances;
for (;;) {
  let state;
  while ((state = Atomics.load(control, 0)) !== ${REQUESTED} && state !== ${STOP}) Atomics.wait(control, 0, state);
  if (state === ${STOP}) break;
  for (let m; (m = receiveMessageOnPort(port)); ) {
    generation = m.message.generation;
    distances = new WebAssembly.Instance(module, { env: { memory: m.message.memory } }).exports.distances;
  }
  try {
    if (generation !== control[${MEMORY_AT}]) throw new Error('scan of a memory this thread was not given');
    distances(control[1], control[2], control[3], control[4], control[5], control[6]);
    Atomics.store(control, 0, ${DONE});
  } catch {
    Atomics.store(control, 0, ${FAILED});
  }
  Atomics.notify(control, 0);
}
port.close();
`;

/**
 * A thread that runs Hamming scans of a shared kernel memory (HammingKernel `shared`) while the
 * thread that asked does other work: hybrid search starts the dense scan, ranks the lexical side
 * with FTS5 meanwhile, then waits, so at 1M chunks the ~10 ms scan no longer adds to the query
 * when a core is free. Requests and results pass through a shared control word with Atomics
 * (a round trip costs a few microseconds); memories go by message, read by the thread when woken.
 * One scan at a time. The thread is unreferenced: it never keeps the process alive.
 */
export class ScanThread {
  private readonly control = new Int32Array(new SharedArrayBuffer(8 * 4));
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private memory: WasmMemory | undefined;
  private generation = 0;
  private pending = false;
  private closed = false;
  /** Set when a scan did not come back in time: later scans run on the caller's thread. */
  private broken = false;
  private readonly finishWithinMs: number;

  /** `finishWithinMs`: how long a scan may take before the thread counts as lost. */
  constructor(options: { finishWithinMs?: number } = {}) {
    this.finishWithinMs = options.finishWithinMs ?? FINISH_WITHIN_MS;
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { control: this.control, port: port2, bytes: SHARED_MODULE_BYTES },
      transferList: [port2],
    });
    this.worker.unref();
    this.port.unref();
  }

  /** Whether scans can be handed to the thread. */
  get usable(): boolean {
    return !this.closed && !this.broken;
  }

  /** A thread, or undefined where shared memory or worker threads are unavailable. */
  static tryCreate(): ScanThread | undefined {
    try {
      return new ScanThread();
    } catch {
      return undefined;
    }
  }

  /** Starts a scan of `memory` (a HammingKernel's shared memory); {@link finish} waits for it. */
  start(memory: WasmMemory, scan: Scan): void {
    if (this.closed || this.broken) throw new Error('The scan thread is closed');
    if (this.pending) this.finish();
    if (memory !== this.memory) {
      this.memory = memory;
      this.generation++;
      this.port.postMessage({ generation: this.generation, memory });
    }
    const c = this.control;
    c[ARGS_AT] = scan.codes;
    c[ARGS_AT + 1] = scan.query;
    c[ARGS_AT + 2] = scan.out;
    c[ARGS_AT + 3] = scan.groups;
    c[ARGS_AT + 4] = scan.words;
    c[ARGS_AT + 5] = scan.histogram;
    c[MEMORY_AT] = this.generation;
    this.pending = true;
    Atomics.store(c, 0, REQUESTED);
    Atomics.notify(c, 0);
  }

  /** Waits for the scan started last; throws if the thread could not run it. */
  finish(): void {
    if (!this.pending) return;
    const c = this.control;
    const deadline = Date.now() + this.finishWithinMs;
    let state: number;
    while ((state = Atomics.load(c, 0)) === REQUESTED) {
      if (Date.now() > deadline) {
        // The thread died or hangs: stop using it rather than wait forever.
        this.pending = false;
        this.broken = true;
        throw new Error('The scan thread did not answer');
      }
      Atomics.wait(c, 0, REQUESTED, Math.min(WAIT_SLICE_MS, this.finishWithinMs));
    }
    this.pending = false;
    Atomics.store(c, 0, IDLE);
    if (state !== DONE) throw new Error('The scan thread failed to run a scan');
  }

  /** Waits for a scan nobody collected (its result is dropped, a failure ignored). */
  settle(): void {
    try {
      this.finish();
    } catch {
      // Dropped with its result.
    }
  }

  /** Ends the thread (after the scan in progress, if any). */
  close(): Promise<number> {
    if (this.closed) return Promise.resolve(0);
    this.settle();
    this.closed = true;
    this.memory = undefined;
    Atomics.store(this.control, 0, STOP);
    Atomics.notify(this.control, 0);
    this.port.close();
    return this.worker.terminate();
  }
}
