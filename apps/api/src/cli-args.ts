import { parseArgs, type ParseArgsConfig } from 'node:util';
import { KbqaError } from '@kbqa/core';

/** A command line that does not make sense: the CLI prints the command's help with the message. */
export class UsageError extends KbqaError {
  constructor(
    message: string,
    /** The command or group whose help explains the mistake; the whole list when absent. */
    readonly path: readonly string[] = [],
  ) {
    super('BAD_REQUEST', message);
    this.name = 'UsageError';
  }
}

/** A positive integer argument, or a usage error naming it. */
export function intArg(value: string | true | undefined, what: string): number {
  const n = typeof value === 'string' ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${what} must be a positive integer`);
  return n;
}

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** One command of the command line, as its help shows it and its parser reads it. */
export interface CommandSpec<Run> {
  /** The words that name it: `['tools', 'sources', 'add']`. */
  path: readonly string[];
  /** What follows the words in its usage line: `<id> --export on|off`. */
  args?: string;
  /** What it does, one line or a few already wrapped to the help's width. */
  summary: readonly string[];
  /** Its options, for `parseArgs`; `--json` and `-h/--help` are added to every command. */
  options?: OptionSpecs;
  /** How many positional arguments it takes. */
  positionals?: { min: number; max: number };
  run: Run;
}

/** What `resolveCommand` found on the command line. */
export type Resolved<C> =
  | { kind: 'help'; path: readonly string[] }
  | { kind: 'run'; command: C; positionals: string[]; flags: Map<string, string | true> };

const GLOBAL_OPTIONS: OptionSpecs = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/**
 * Finds the command that argv names and parses its options with `node:util` `parseArgs` (strict:
 * an unknown option is a usage error, not silently ignored). `-h`/`--help` anywhere, `help <words>`,
 * and a group's name alone ask for help instead of running anything, so `kbqa start --help` never
 * starts a server.
 */
export function resolveCommand<C extends CommandSpec<unknown>>(
  commands: readonly C[],
  argv: readonly string[],
): Resolved<C> {
  const words: string[] = [];
  let asked = false;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--json') continue;
    if (arg === '--help' || arg === '-h') {
      asked = true;
      continue;
    }
    if (arg.startsWith('-')) break;
    if (words.length === 0 && arg === 'help') {
      asked = true;
      continue;
    }
    const next = [...words, arg];
    if (!commands.some((c) => startsWith(c.path, next))) {
      throw new UsageError(`unknown command: ${next.join(' ')}`, words);
    }
    words.push(arg);
    if (commands.some((c) => sameWords(c.path, words))) {
      i++;
      break;
    }
  }
  const command = commands.find((c) => sameWords(c.path, words));
  if (!command) {
    // Nothing, a group alone, or a group followed by options: the list of what it holds.
    if (words.length === 0 && !asked) throw new UsageError('no command given');
    return { kind: 'help', path: words };
  }
  // The words before the command may hold --json/-h; the rest are the command's own arguments.
  const rest = [...argv.slice(0, i).filter((a) => a.startsWith('-')), ...argv.slice(i)];
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    // node:util's messages name the option ("Unknown option '--x'"); they are the usage error.
    if (asked || rest.includes('--help') || rest.includes('-h')) return { kind: 'help', path: command.path };
    throw new UsageError(e instanceof Error ? e.message : String(e), command.path);
  }
  if (asked || parsed.values.help === true) return { kind: 'help', path: command.path };
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  const name = command.path.join(' ');
  if (parsed.positionals.length > max) {
    throw new UsageError(
      `${name}: unexpected argument ${JSON.stringify(parsed.positionals[max])}`,
      command.path,
    );
  }
  if (parsed.positionals.length < min) {
    throw new UsageError(`${name} needs ${command.args ?? 'an argument'}`, command.path);
  }
  const flags = new Map<string, string | true>();
  for (const [key, value] of Object.entries(parsed.values)) {
    if (key === 'help' || value === undefined || value === false) continue;
    // `--header` may repeat; a header line cannot hold a line break, so one joins them safely.
    if (Array.isArray(value)) flags.set(key, value.map(String).join('\n'));
    else flags.set(key, value === true ? true : String(value));
  }
  return { kind: 'run', command, positionals: parsed.positionals, flags };
}

/** Whether `path` begins with `prefix`. */
function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((w, i) => path[i] === w);
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && startsWith(a, b);
}

const COLUMN = 44;

/** A command's lines in a list: usage left, summary from column 44 (on its own line when longer). */
export function commandLines(c: CommandSpec<unknown>): string[] {
  const left = `  ${[...c.path, ...(c.args ? [c.args] : [])].join(' ')}`;
  const [first = '', ...more] = c.summary;
  const indent = ' '.repeat(COLUMN);
  const head = left.length < COLUMN - 1 ? [left.padEnd(COLUMN) + first] : [left, indent + first];
  return [...head, ...more.map((l) => indent + l)];
}

/** The commands under `path` (all of them for `[]`). */
export function commandsUnder<C extends CommandSpec<unknown>>(
  commands: readonly C[],
  path: readonly string[],
): C[] {
  return commands.filter((c) => startsWith(c.path, path));
}

/**
 * Help for one command: its usage line, what it does, the options every command takes. `program`
 * is how the user runs kbqa (`kbqa`, `pnpm kbqa`, `./kbqa-linux-x64`).
 */
export function commandHelp(c: CommandSpec<unknown>, program = 'kbqa'): string {
  const usage = `Usage: ${program} ${[...c.path, ...(c.args ? [c.args] : [])].join(' ')} [--json]`;
  return [
    usage,
    '',
    ...c.summary.map((l) => `  ${l}`),
    '',
    'Options every command takes:',
    '  --json       print exactly one JSON object (errors as {"error", "code"})',
    '  -h, --help   this help',
  ].join('\n');
}

/** Help for a group of commands (`kbqa tools`): each command under it, one per entry. */
export function groupHelp(
  commands: readonly CommandSpec<unknown>[],
  path: readonly string[],
  program = 'kbqa',
): string {
  const name = path.join(' ');
  return [
    `Usage: ${program} ${name} <command> [--json]`,
    '',
    ...commandsUnder(commands, path).flatMap(commandLines),
    '',
    `Run \`${program} ${name} <command> --help\` for one command's help.`,
  ].join('\n');
}
