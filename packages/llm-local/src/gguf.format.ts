/**
 * The parts of the GGUF file format (ggml's docs/gguf.md) kbqa needs without loading llama.cpp:
 * reading the header to tell a model file from anything else, and writing the tiny test model.
 * All numbers are little-endian.
 */

/** "GGUF" as the first four bytes of the file. */
export const GGUF_MAGIC = 0x46554747;
export const GGUF_DEFAULT_ALIGNMENT = 32;

/** Metadata value types, as numbered in the file. */
export enum GgufValueType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

/** ggml tensor types kbqa writes itself. */
export const GGML_TYPE_F32 = 0;

/**
 * Block size (elements) and block bytes of the ggml tensor types, to compute how many bytes a
 * tensor's data needs. A type missing here (a newer quantization) is not size-checked.
 */
const GGML_TYPE_SIZES: Readonly<Record<number, readonly [number, number]>> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  9: [32, 36], // Q8_1
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  15: [256, 292], // Q8_K
  16: [256, 66], // IQ2_XXS
  17: [256, 74], // IQ2_XS
  18: [256, 98], // IQ3_XXS
  19: [256, 50], // IQ1_S
  20: [32, 18], // IQ4_NL
  21: [256, 110], // IQ3_S
  22: [256, 82], // IQ2_S
  23: [256, 136], // IQ4_XS
  24: [1, 1], // I8
  25: [1, 2], // I16
  26: [1, 4], // I32
  27: [1, 8], // I64
  28: [1, 8], // F64
  29: [256, 56], // IQ1_M
  30: [1, 2], // BF16
};

export type GgufValue = number | bigint | boolean | string | GgufValue[];

export interface GgufTensorInfo {
  name: string;
  dims: bigint[];
  type: number;
  /** From the start of the data section. */
  offset: bigint;
}

/** What the header of a GGUF file says. */
export interface GgufHeader {
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
  /** Where the tensor data starts in the file. */
  dataOffset: number;
  /** The file size the header's tensors need; undefined when a tensor type is unknown. */
  expectedSize: bigint | undefined;
}

/** Bytes of one tensor's data, or undefined for a type not in {@link GGML_TYPE_SIZES}. */
export function tensorBytes(tensor: Pick<GgufTensorInfo, 'dims' | 'type'>): bigint | undefined {
  const size = GGML_TYPE_SIZES[tensor.type];
  if (!size) return undefined;
  const elements = tensor.dims.reduce((a, b) => a * b, 1n);
  return (elements / BigInt(size[0])) * BigInt(size[1]);
}

/** The header ended before it was complete: the file is cut short. */
export class GgufTruncatedError extends Error {}
/** The bytes are not a GGUF file, or not one this reader understands. */
export class GgufFormatError extends Error {}

/**
 * Reads bytes from a source on demand. The header of a real model holds its whole vocabulary
 * (megabytes), so it is read in chunks rather than all at once, and never the tensor data.
 */
export interface ByteSource {
  size: number;
  read(position: number, length: number): Promise<Buffer>;
}

class HeaderReader {
  private buffer: Buffer = Buffer.alloc(0);
  private bufferStart = 0;
  position = 0;

  constructor(private readonly source: ByteSource) {}

  private async need(n: number): Promise<void> {
    const end = this.position + n;
    if (end > this.source.size) throw new GgufTruncatedError('the file ends inside its header');
    if (this.position >= this.bufferStart && end <= this.bufferStart + this.buffer.length) return;
    const length = Math.min(Math.max(n, 1 << 20), this.source.size - this.position);
    this.buffer = await this.source.read(this.position, length);
    this.bufferStart = this.position;
    if (this.buffer.length < n) throw new GgufTruncatedError('the file ends inside its header');
  }

  private async take(n: number): Promise<Buffer> {
    await this.need(n);
    const start = this.position - this.bufferStart;
    this.position += n;
    return this.buffer.subarray(start, start + n);
  }

  async u32(): Promise<number> {
    return (await this.take(4)).readUInt32LE(0);
  }

  async u64(): Promise<bigint> {
    return (await this.take(8)).readBigUInt64LE(0);
  }

  /** A count or length; refuses values no real file has (a garbage header would ask for terabytes). */
  async length(what: string): Promise<number> {
    const value = await this.u64();
    if (value > BigInt(this.source.size)) {
      throw new GgufFormatError(`the header's ${what} (${value}) is larger than the file`);
    }
    return Number(value);
  }

  async string(): Promise<string> {
    const n = await this.length('string length');
    return (await this.take(n)).toString('utf8');
  }

  async value(type: number): Promise<GgufValue> {
    switch (type as GgufValueType) {
      case GgufValueType.UINT8:
        return (await this.take(1)).readUInt8(0);
      case GgufValueType.INT8:
        return (await this.take(1)).readInt8(0);
      case GgufValueType.UINT16:
        return (await this.take(2)).readUInt16LE(0);
      case GgufValueType.INT16:
        return (await this.take(2)).readInt16LE(0);
      case GgufValueType.UINT32:
        return (await this.take(4)).readUInt32LE(0);
      case GgufValueType.INT32:
        return (await this.take(4)).readInt32LE(0);
      case GgufValueType.FLOAT32:
        return (await this.take(4)).readFloatLE(0);
      case GgufValueType.BOOL:
        return (await this.take(1)).readUInt8(0) !== 0;
      case GgufValueType.STRING:
        return this.string();
      case GgufValueType.UINT64:
        return (await this.take(8)).readBigUInt64LE(0);
      case GgufValueType.INT64:
        return (await this.take(8)).readBigInt64LE(0);
      case GgufValueType.FLOAT64:
        return (await this.take(8)).readDoubleLE(0);
      case GgufValueType.ARRAY: {
        const itemType = await this.u32();
        const n = await this.length('array length');
        const items: GgufValue[] = [];
        for (let i = 0; i < n; i++) items.push(await this.value(itemType));
        return items;
      }
      default:
        throw new GgufFormatError(`unknown metadata value type ${type}`);
    }
  }
}

/**
 * Reads and checks the header of a GGUF file: the magic, a version this reader knows (2 or 3),
 * the metadata and the tensor list. Throws {@link GgufFormatError} for anything that is not a
 * GGUF file and {@link GgufTruncatedError} when the header itself is cut short; whether the
 * tensor data is all there is for the caller to compare with {@link GgufHeader.expectedSize}.
 */
export async function readGgufHeader(source: ByteSource): Promise<GgufHeader> {
  const reader = new HeaderReader(source);
  if (source.size < 4) throw new GgufFormatError('the file is too short to be a GGUF file');
  const magic = await reader.u32();
  if (magic !== GGUF_MAGIC) throw new GgufFormatError('the file does not start with the GGUF magic');
  const version = await reader.u32();
  if (version !== 2 && version !== 3) throw new GgufFormatError(`GGUF version ${version} is not supported`);
  const tensorCount = await reader.length('tensor count');
  const kvCount = await reader.length('metadata count');
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = await reader.string();
    const type = await reader.u32();
    metadata.set(key, await reader.value(type));
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = await reader.string();
    const nDims = await reader.u32();
    if (nDims > 8) throw new GgufFormatError(`tensor ${name} has ${nDims} dimensions`);
    const dims: bigint[] = [];
    for (let d = 0; d < nDims; d++) dims.push(await reader.u64());
    const type = await reader.u32();
    const offset = await reader.u64();
    tensors.push({ name, dims, type, offset });
  }
  const alignmentValue = metadata.get('general.alignment');
  const alignment =
    typeof alignmentValue === 'number' && alignmentValue > 0 ? alignmentValue : GGUF_DEFAULT_ALIGNMENT;
  const dataOffset = alignUp(reader.position, alignment);
  let expectedSize: bigint | undefined = BigInt(dataOffset);
  for (const tensor of tensors) {
    const bytes = tensorBytes(tensor);
    if (bytes === undefined) {
      expectedSize = undefined;
      break;
    }
    const end = BigInt(dataOffset) + tensor.offset + bytes;
    if (end > expectedSize) expectedSize = end;
  }
  return { version, metadata, tensors, dataOffset, expectedSize };
}

export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/** A metadata entry to write: the type is explicit because JavaScript numbers do not say it. */
export type GgufEntry =
  | { type: GgufValueType.UINT32 | GgufValueType.INT32 | GgufValueType.FLOAT32; value: number }
  | { type: GgufValueType.BOOL; value: boolean }
  | { type: GgufValueType.STRING; value: string }
  | {
      type: GgufValueType.ARRAY;
      itemType: GgufValueType.STRING | GgufValueType.FLOAT32 | GgufValueType.INT32;
      value: ReadonlyArray<string | number>;
    };

export interface GgufTensorData {
  name: string;
  /** ggml order: the first dimension is the one that varies fastest. */
  dims: number[];
  data: Float32Array;
}

/** Serializes a GGUF version 3 file with F32 tensors. */
export function encodeGguf(metadata: ReadonlyArray<[string, GgufEntry]>, tensors: GgufTensorData[]): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const u64 = (n: number | bigint): Buffer => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const str = (s: string): Buffer => {
    const bytes = Buffer.from(s, 'utf8');
    return Buffer.concat([u64(bytes.length), bytes]);
  };
  type ScalarType =
    | GgufValueType.STRING
    | GgufValueType.UINT32
    | GgufValueType.INT32
    | GgufValueType.FLOAT32
    | GgufValueType.BOOL;
  const scalar = (type: ScalarType, value: string | number | boolean): Buffer => {
    switch (type) {
      case GgufValueType.STRING:
        return str(String(value));
      case GgufValueType.UINT32:
        return u32(Number(value));
      case GgufValueType.INT32: {
        const b = Buffer.alloc(4);
        b.writeInt32LE(Number(value));
        return b;
      }
      case GgufValueType.FLOAT32: {
        const b = Buffer.alloc(4);
        b.writeFloatLE(Number(value));
        return b;
      }
      case GgufValueType.BOOL:
        return Buffer.from([value ? 1 : 0]);
    }
  };

  parts.push(u32(GGUF_MAGIC), u32(3), u64(tensors.length), u64(metadata.length));
  for (const [key, entry] of metadata) {
    parts.push(str(key), u32(entry.type));
    if (entry.type === GgufValueType.ARRAY) {
      parts.push(u32(entry.itemType), u64(entry.value.length));
      for (const item of entry.value) parts.push(scalar(entry.itemType, item));
    } else {
      parts.push(scalar(entry.type, entry.value));
    }
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const tensor of tensors) {
    offsets.push(offset);
    parts.push(str(tensor.name), u32(tensor.dims.length));
    for (const d of tensor.dims) parts.push(u64(d));
    parts.push(u32(GGML_TYPE_F32), u64(offset));
    offset = alignUp(offset + tensor.data.byteLength, GGUF_DEFAULT_ALIGNMENT);
  }
  const headerLength = parts.reduce((n, p) => n + p.length, 0);
  parts.push(Buffer.alloc(alignUp(headerLength, GGUF_DEFAULT_ALIGNMENT) - headerLength));
  for (const [i, tensor] of tensors.entries()) {
    const bytes = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
    parts.push(bytes);
    const next = i + 1 < tensors.length ? (offsets[i + 1] ?? 0) : alignUp(offset, GGUF_DEFAULT_ALIGNMENT);
    const pad = next - ((offsets[i] ?? 0) + bytes.length);
    if (pad > 0) parts.push(Buffer.alloc(pad));
  }
  return Buffer.concat(parts);
}
