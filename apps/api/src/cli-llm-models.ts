import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { KbqaError } from '@kbqa/core';
import {
  DEFAULT_LOCAL_MODEL,
  estimateRamBytes,
  inspectModelFile,
  LOCAL_MODEL_PROFILES,
  localModelProfile,
  localModelUrl,
  pullLocalModel,
  type LocalModelProfile,
} from '@kbqa/llm-local';
import { ProgressBar, type CommandOutput } from './cli-models';
import { localModelFile, type AppConfig } from './config/config';

const SHA256 = /^[0-9a-f]{64}$/;

function llmDir(config: AppConfig): string {
  return join(config.embedding.modelsDir, 'llm');
}

/** The table's entry for a file named as its publisher names it (`Llama-3.2-1B-Instruct-Q4_K_M.gguf`). */
function profileForFile(file: string): LocalModelProfile | undefined {
  const name = basename(file).toLowerCase();
  return LOCAL_MODEL_PROFILES.find((p) => p.ggufFile.toLowerCase() === name || `${p.name}.gguf` === name);
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * `kbqa models import <file> [--name <name>] [--sha256 <hex>]`: installs a GGUF chat model copied
 * to this host by hand as `<models dir>/llm/<name>.gguf`, where KBQA_LLM=local finds it. The file
 * is checked first (GGUF, complete, a chat architecture) and, when its sha256 is known (given, or
 * in the model table), hashed; a file that fails is not installed. The copy is written beside the
 * destination and renamed, so a half-copied file never takes a model's name.
 */
export async function importLlmModelCommand(
  config: AppConfig,
  file: string | undefined,
  options: { name?: string; sha256?: string },
): Promise<CommandOutput> {
  if (!file) throw new KbqaError('BAD_REQUEST', 'models import needs the path of a .gguf file');
  const info = await inspectModelFile(file);
  const profile = options.name ? localModelProfile(options.name) : profileForFile(file);
  const name = options.name ?? profile?.name ?? basename(file).replace(/\.gguf$/i, '');
  if (!/^[\w.-]+$/.test(name)) {
    throw new KbqaError(
      'BAD_REQUEST',
      `"${name}" cannot name a model: use letters, digits, ".", "_" and "-" (--name <name>)`,
    );
  }
  const expected = options.sha256?.toLowerCase() ?? profile?.sha256;
  if (expected !== undefined && !SHA256.test(expected)) {
    throw new KbqaError('BAD_REQUEST', '--sha256 must be 64 hexadecimal digits');
  }
  // Hashed either way: when no digest is known, the operator gets it to compare by hand.
  const sha256 = await sha256Of(file);
  if (expected !== undefined) {
    if (sha256 !== expected) {
      throw new KbqaError(
        'BAD_REQUEST',
        `${file} has sha256 ${sha256}, not the expected ${expected}: the file is damaged or another build; nothing was installed`,
      );
    }
  }
  const target = localModelFile(config.embedding.modelsDir, name);
  await mkdir(dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  try {
    await copyFile(file, partial);
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  const configured = config.llm.kind === 'local' && config.llm.model === name;
  const hint = configured
    ? 'KBQA_LLM=local uses it at the next start'
    : `answer with it: KBQA_LLM=local KBQA_LLM_MODEL=${name}`;
  return {
    text:
      `imported ${name} (${info.architecture}, ${(info.sizeBytes / 1024 / 1024).toFixed(1)} MB` +
      `${expected ? ', sha256 checked' : ''}) as ${target}; ${hint}` +
      (expected ? '' : `\n${uncheckedDigest(sha256)}`),
    json: {
      model: name,
      file: target,
      architecture: info.architecture,
      size_bytes: info.sizeBytes,
      context_tokens: info.trainedContextTokens ?? null,
      sha256_checked: expected !== undefined,
      sha256,
    },
  };
}

/** What to say of a file no known digest could check, with its own digest to compare by hand. */
function uncheckedDigest(sha256: string): string {
  return (
    `warning: the file could not be checked against a known digest (none is published for it; pass --sha256 <hex> ` +
    `to check one); its sha256 is ${sha256}: compare it with the publisher's before relying on the file`
  );
}

/** Whether `kbqa models pull <id>` means a chat model of the table. */
export function isLlmModelName(id: string): boolean {
  return localModelProfile(id) !== undefined;
}

/**
 * `kbqa models pull <name> | --llm`: downloads a chat model of the table (without a name, the
 * configured one, else the default) to `<models dir>/llm/<name>.gguf`, with progress; resumes an
 * interrupted download; checks the sha256 (given with --sha256, or known to the table) and the
 * GGUF header before the file takes its name.
 */
export async function pullLlmModelCommand(
  config: AppConfig,
  name: string | undefined,
  options: { quiet: boolean; sha256?: string },
): Promise<CommandOutput> {
  if (config.embedding.offline) {
    throw new KbqaError(
      'BAD_REQUEST',
      'KBQA_OFFLINE is set, so nothing can be downloaded; unset it to pull a model',
    );
  }
  const wanted = name ?? (config.llm.kind === 'local' ? config.llm.model : DEFAULT_LOCAL_MODEL);
  const profile = localModelProfile(wanted);
  if (!profile) {
    throw new KbqaError(
      'BAD_REQUEST',
      `"${wanted}" is not a chat model of \`kbqa models list\`; copy its GGUF file here and run \`kbqa models import <file>\``,
    );
  }
  const expected = options.sha256?.toLowerCase() ?? profile.sha256;
  if (expected !== undefined && !SHA256.test(expected)) {
    throw new KbqaError('BAD_REQUEST', '--sha256 must be 64 hexadecimal digits');
  }
  const url = localModelUrl(profile, config.embedding.remoteHost);
  const target = localModelFile(config.embedding.modelsDir, profile.name);
  const bar = new ProgressBar(`pulling ${profile.name}`, !options.quiet);
  const pulled = await pullLocalModel({
    url,
    target,
    sha256: expected,
    onProgress: (done, total) => bar.update(done, total),
  });
  bar.finish();
  return {
    text:
      `model ${profile.name} ready as ${target} (${pulled.info.architecture}, ` +
      `${(pulled.info.sizeBytes / 1024 / 1024).toFixed(1)} MB${expected ? ', sha256 checked' : ''}` +
      `${pulled.resumedFrom > 0 ? `, resumed at ${pulled.resumedFrom} bytes` : ''})` +
      (expected ? '' : `\n${uncheckedDigest(pulled.sha256)}`),
    json: {
      model: profile.name,
      file: target,
      url,
      architecture: pulled.info.architecture,
      size_bytes: pulled.info.sizeBytes,
      sha256: pulled.sha256,
      sha256_checked: expected !== undefined,
      resumed_from: pulled.resumedFrom,
    },
  };
}

/** The local chat models of `kbqa models list`: the table, then files imported under other names. */
export function listLlmModels(config: AppConfig): {
  text: string[];
  json: { llm_dir: string; configured: string | null; models: unknown[] };
} {
  const dir = llmDir(config);
  const configured = config.llm.kind === 'local' ? config.llm.model : null;
  const installedSize = (name: string): number | null => {
    const file = localModelFile(config.embedding.modelsDir, name);
    return existsSync(file) ? statSync(file).size : null;
  };
  const models = LOCAL_MODEL_PROFILES.map((p) => {
    const installed = installedSize(p.name);
    return {
      model: p.name,
      source: p.source,
      gguf_file: p.ggufFile,
      parameters_b: p.parametersB,
      context_tokens: p.contextTokens,
      licence: p.licence,
      file_bytes: installed ?? p.fileBytes ?? null,
      published_file_bytes: p.fileBytes ?? null,
      sha256: p.sha256 ?? null,
      quality: p.quality
        ? {
            hallucination_rate_pct: p.quality.hallucinationRatePct,
            factual_consistency_pct: p.quality.factualConsistencyPct,
            answer_rate_pct: p.quality.answerRatePct,
            source_url: p.quality.sourceUrl,
            source_date: p.quality.sourceDate,
          }
        : null,
      ram_bytes_estimate: estimateRamBytes(installed ? { ...p, fileBytes: installed } : p),
      installed: installed !== null,
      configured: p.name === configured,
    };
  });
  const known = new Set(LOCAL_MODEL_PROFILES.map((p) => p.name));
  const others = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.gguf') && !known.has(f.slice(0, -'.gguf'.length)))
        .map((f) => {
          const model = f.slice(0, -'.gguf'.length);
          return {
            model,
            file_bytes: statSync(join(dir, f)).size,
            installed: true,
            configured: model === configured,
          };
        })
    : [];
  const all = [...models, ...others];
  const gb = (n: number | null | undefined) =>
    !n ? '?' : n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${(n / 1e6).toFixed(1)} MB`;
  const rows = [
    ['model', 'params', 'file', 'context', 'licence', 'RAM (est.)', 'hallucination [1]', 'state'],
    ...all.map((m) => [
      `${m.model}${m.model === DEFAULT_LOCAL_MODEL ? ' (default)' : ''}`,
      'parameters_b' in m ? `${m.parameters_b}B` : '?',
      gb(m.file_bytes),
      'context_tokens' in m ? String(m.context_tokens) : '?',
      'licence' in m ? m.licence : '?',
      'ram_bytes_estimate' in m ? gb(m.ram_bytes_estimate) : '?',
      'quality' in m ? (m.quality ? `${m.quality.hallucination_rate_pct.toFixed(1)} %` : 'not listed') : '?',
      `${m.installed ? 'installed' : 'not installed'}${m.configured ? ', configured' : ''}`,
    ]),
  ];
  const sources = [
    ...new Set(
      LOCAL_MODEL_PROFILES.flatMap((p) => (p.quality ? [p.quality] : [])).map(
        (q) => `${q.sourceUrl} (${q.sourceDate})`,
      ),
    ),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const table = rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd());
  return {
    text: [
      `Local chat models (KBQA_LLM=local) in ${dir}${configured ? `; configured: ${configured}` : ''}:`,
      ...table,
      '  RAM is an estimate for a 2,048-token context; the file size is the published one until the model is installed.',
      "  [1] Published hallucination rate when grounded in a document (lower is better): Vectara's hallucination",
      `      leaderboard, HHEM-2.1, ${sources.join(', ')}`,
      '  Download one: kbqa models pull <model>; install a GGUF copied here by hand: kbqa models import <file>',
    ],
    json: { llm_dir: dir, configured, models: all },
  };
}
