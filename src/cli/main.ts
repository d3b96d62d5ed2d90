/**
 * The cetp-sim command line. Commands are a contract that tools and users script against; each
 * lives in its own module under commands/. Exit codes: 0 ok, 1 failed, 2 bad usage or input,
 * 3 internal error (see errors.ts).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { demoCommand } from './commands/demo.ts';
import { CliError, EXIT_OK, EXIT_USAGE } from './errors.ts';
import { type Io, processIo, reportError } from './io.ts';

export function parseIntArg(name: string, min = 0): (value: string) => number {
  return (value: string) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a whole number`);
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be at least ${min}`);
    return n;
  };
}

export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command();
  program
    .name('cetp-sim')
    .description(
      'Deterministic simulation, reference implementations and property-based fuzzing for CETP v2 on Android.',
    )
    .version('0.1.0')
    .showHelpAfterError(false)
    .configureOutput({
      writeOut: (s) => io.out(s.trimEnd()),
      writeErr: (s) => io.err(s.trimEnd()),
    })
    .exitOverride();

  program
    .command('demo')
    .description('hunt a check-then-insert race in a toy provider and print the shrunk minimal trace')
    .addOption(new Option('--seed <n>', 'fast-check seed').argParser(parseIntArg('--seed')).default(42))
    .addOption(new Option('--runs <n>', 'maximum runs').argParser(parseIntArg('--runs', 1)).default(300))
    .option('--mermaid', 'also print the trace as a Mermaid sequence diagram', false)
    .option('--json', 'print one JSON object', false)
    .action(async (opts: { seed: number; runs: number; mermaid: boolean; json: boolean }) => {
      setExit(await demoCommand(io, opts));
    });

  return program;
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. Never throws. */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  let exit = EXIT_OK;
  const json = argv.includes('--json');
  const program = buildProgram(io, (code) => {
    exit = code;
  });
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT_USAGE;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exit;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
      if (error.code === 'commander.help') return EXIT_OK;
      const code = error.code.replace('commander.', '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      return json ? reportError(io, new CliError(code, error.message), true) : EXIT_USAGE;
    }
    return reportError(io, error, json);
  }
}
