import { type CommandSpec, groupHelp, resolveCommand, UsageError } from './cli-args';

const run = () => undefined;
const COMMANDS: CommandSpec<typeof run>[] = [
  { path: ['start'], summary: ['serve'], run },
  { path: ['projects', 'create'], args: '<name>', summary: ['create'], positionals: { min: 1, max: 9 }, run },
  { path: ['projects', 'list'], summary: ['list'], run },
  {
    path: ['tools', 'sources', 'add'],
    args: "--mcp <url> [--header 'Name: value']…",
    summary: ['add a source'],
    options: { mcp: { type: 'string' }, header: { type: 'string', multiple: true } },
    run,
  },
];

function usageError(argv: string[]): UsageError {
  try {
    resolveCommand(COMMANDS, argv);
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe(resolveCommand.name, () => {
  it('asks for help instead of running a command given --help or -h, wherever it stands', () => {
    expect(resolveCommand(COMMANDS, ['start', '--help'])).toEqual({ kind: 'help', path: ['start'] });
    expect(resolveCommand(COMMANDS, ['-h', 'projects', 'list'])).toEqual({
      kind: 'help',
      path: ['projects', 'list'],
    });
    expect(resolveCommand(COMMANDS, ['projects', 'list', '--bogus', '-h'])).toEqual({
      kind: 'help',
      path: ['projects', 'list'],
    });
    expect(resolveCommand(COMMANDS, ['help', 'tools', 'sources'])).toEqual({
      kind: 'help',
      path: ['tools', 'sources'],
    });
    expect(resolveCommand(COMMANDS, ['-h'])).toEqual({ kind: 'help', path: [] });
  });

  it('answers a group named alone with its help', () => {
    expect(resolveCommand(COMMANDS, ['tools'])).toEqual({ kind: 'help', path: ['tools'] });
    expect(resolveCommand(COMMANDS, ['projects', '--json'])).toEqual({ kind: 'help', path: ['projects'] });
  });

  it('names an unknown command with the group it was looked for in', () => {
    expect(usageError(['bogus'])).toMatchObject({
      message: 'unknown command: bogus',
      path: [],
      code: 'BAD_REQUEST',
    });
    expect(usageError(['projects', 'bogus'])).toMatchObject({
      message: 'unknown command: projects bogus',
      path: ['projects'],
    });
    expect(usageError([]).message).toBe('no command given');
  });

  it('refuses unknown options and a wrong number of arguments', () => {
    expect(usageError(['projects', 'list', '--bogus']).message).toContain("'--bogus'");
    expect(usageError(['projects', 'list', 'extra']).message).toBe(
      'projects list: unexpected argument "extra"',
    );
    expect(usageError(['projects', 'create']).message).toBe('projects create needs <name>');
  });

  it('reads options wherever they stand and joins a repeated --header with line breaks', () => {
    const found = resolveCommand(COMMANDS, [
      '--json',
      'tools',
      'sources',
      'add',
      '--header',
      'A: 1',
      '--mcp=https://example.com/mcp',
      '--header',
      'B: 2',
    ]);
    expect(found).toMatchObject({ kind: 'run', positionals: [] });
    if (found.kind !== 'run') return;
    expect(found.command.path).toEqual(['tools', 'sources', 'add']);
    expect(Object.fromEntries(found.flags)).toEqual({
      json: true,
      mcp: 'https://example.com/mcp',
      header: 'A: 1\nB: 2',
    });
  });
});

describe(groupHelp.name, () => {
  it('lists every command under the group, and only those', () => {
    const text = groupHelp(COMMANDS, ['projects']);
    expect(text).toContain('Usage: kbqa projects <command>');
    expect(text).toContain('  projects create <name>');
    expect(text).toContain('  projects list');
    expect(text).not.toContain('tools');
  });
});
