import multipart from '@fastify/multipart';
import { KbqaError } from '@kbqa/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/config';
import { toErrorBody } from '../common/http-error.filter';

/** One uploaded file, as the upload hook leaves it on the request. */
export interface UploadedFile {
  /** The file's name within the project (its source): a relative path, `/`-separated. */
  name: string;
  data: Buffer;
}

/** Routes that take multipart uploads; every other route refuses a multipart body. */
export const UPLOAD_ROUTES: ReadonlySet<string> = new Set([
  '/v1/ingestFiles',
  '/v0/ingestFiles',
  '/admin/v1/projects/:id/files',
]);

/** The form field that holds the files. */
const FILES_FIELD = 'files';
/** Text fields a request may hold (the key, the metadata JSON): few and small. */
const MAX_FIELDS = 8;
const MAX_FIELD_BYTES = 64 * 1024;

type UploadRequest = FastifyRequest & { uploads?: UploadedFile[] };

/** The files the upload hook read from the request (none for a non-multipart request). */
export function requestUploads(req: unknown): UploadedFile[] {
  return (req as UploadRequest).uploads ?? [];
}

/**
 * Makes `ingestFiles` (and the operator's upload) read multipart bodies. @fastify/multipart only
 * marks the request; this hook, before guards and validation, reads the parts of the upload routes
 * within the limits (413 past the per-file or per-request bytes, or the file count) and leaves
 * the text fields as the body, so the key guard and DTO validation work as for JSON, and the
 * files on the request. Any other route refuses a multipart body.
 */
export async function registerUploads(
  instance: FastifyInstance,
  limits: AppConfig['uploads'],
): Promise<void> {
  await instance.register(multipart, {
    limits: {
      fileSize: limits.maxFileBytes,
      files: limits.maxFiles,
      fields: MAX_FIELDS,
      fieldSize: MAX_FIELD_BYTES,
      parts: limits.maxFiles + MAX_FIELDS,
    },
    // Folder uploads name files by their path within the folder (`guides/setup.md`).
    preservePath: true,
  });
  instance.addHook('preValidation', async (req, reply) => {
    if (!req.isMultipart()) return;
    try {
      if (!UPLOAD_ROUTES.has(req.routeOptions.url ?? '')) {
        throw new KbqaError('BAD_REQUEST', 'multipart bodies are accepted only by ingestFiles; send JSON');
      }
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxRequestBytes + 64 * 1024) {
        throw tooLarge(`the upload is larger than ${limits.maxRequestBytes} bytes`);
      }
      const { fields, files } = await readParts(req, limits);
      req.body = fields;
      (req as UploadRequest).uploads = files;
    } catch (e) {
      const { status, body } = toErrorBody(uploadError(e, limits));
      // The rest of a refused upload is not read: the connection closes after the answer.
      return reply.code(status).header('connection', 'close').send(body);
    }
  });
}

async function readParts(
  req: FastifyRequest,
  limits: AppConfig['uploads'],
): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  const fields: Record<string, string> = {};
  const files: UploadedFile[] = [];
  let total = 0;
  for await (const part of req.parts()) {
    if (part.type === 'field') {
      if (part.fieldname === FILES_FIELD) throw new KbqaError('BAD_REQUEST', 'files must be file parts');
      fields[part.fieldname] = String(part.value);
      continue;
    }
    if (part.fieldname !== FILES_FIELD) {
      throw new KbqaError('BAD_REQUEST', `unexpected file field "${part.fieldname}"; send files as "files"`);
    }
    const name = fileName(part.filename);
    let data: Buffer;
    try {
      data = await part.toBuffer();
    } catch (e) {
      if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
        throw tooLarge(`file "${name}" is larger than ${limits.maxFileBytes} bytes`);
      }
      throw e;
    }
    total += data.length;
    if (total > limits.maxRequestBytes) {
      throw tooLarge(`the files of one request are larger than ${limits.maxRequestBytes} bytes together`);
    }
    files.push({ name, data });
  }
  return { fields, files };
}

function tooLarge(message: string): KbqaError {
  return new KbqaError('PAYLOAD_TOO_LARGE', message);
}

/** The busboy and @fastify/multipart limit errors, said in the API's words. */
function uploadError(e: unknown, limits: AppConfig['uploads']): unknown {
  const code = (e as { code?: string } | null)?.code;
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return tooLarge(`at most ${limits.maxFiles} files can be uploaded at once`);
  }
  if (code === 'FST_FIELDS_LIMIT') return tooLarge(`at most ${MAX_FIELDS} form fields are accepted`);
  if (code === 'FST_PROTO_VIOLATION')
    return new KbqaError('BAD_REQUEST', 'a form field has a forbidden name');
  if (e instanceof Error && !(e instanceof KbqaError) && !('statusCode' in e)) {
    return new KbqaError('BAD_REQUEST', `malformed multipart body: ${e.message}`);
  }
  return e;
}

/**
 * A file's name within the project: its relative path with `/` separators, without a drive,
 * leading slashes, `.` or `..` segments or control characters, so it never names a place outside
 * the project's own names.
 */
export function fileName(raw: string): string {
  const segments = raw
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/\\/g, '/')
    .replace(/^[a-zA-Z]:/, '')
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== '.' && s !== '..');
  const name = segments.join('/');
  if (!name) throw new KbqaError('BAD_REQUEST', 'every file needs a file name');
  if (name.length > 1024) throw new KbqaError('BAD_REQUEST', 'a file name is longer than 1024 characters');
  return name;
}
