import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { memoryIo } from './testing.ts';

describe('cetp-sim command line', () => {
  it('--help lists the commands and exits 0', async () => {
    const io = memoryIo();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdout.join('\n')).toContain('demo');
  });

  it('an unknown command is a usage error (exit 2) with a message, not a stack trace', async () => {
    const io = memoryIo();
    expect(await main(['frobnicate'], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain("unknown command 'frobnicate'");
    expect(io.stderr.join('\n')).not.toMatch(/\n\s+at /);
  });

  it('a malformed flag value is a usage error; with --json it is a JSON error object', async () => {
    const io = memoryIo();
    expect(await main(['demo', '--runs', 'many', '--json'], io)).toBe(2);
    const parsed = JSON.parse(io.stdout[0] ?? '{}') as { error?: { code: string; message: string } };
    expect(parsed.error?.code).toBe('invalid_argument');
    expect(parsed.error?.message).toContain('--runs must be a whole number');
  });

  it('no arguments prints help and exits 2', async () => {
    const io = memoryIo();
    expect(await main([], io)).toBe(2);
  });

  it('demo --json finds the race deterministically (same arguments ⇒ identical output)', async () => {
    const a = memoryIo();
    const b = memoryIo();
    expect(await main(['demo', '--json', '--runs', '100'], a)).toBe(0);
    expect(await main(['demo', '--json', '--runs', '100'], b)).toBe(0);
    expect(a.stdout).toEqual(b.stdout);
    const out = JSON.parse(a.stdout[0] ?? '{}') as { found: boolean; inserts: number; atomicPassed: boolean };
    expect(out).toMatchObject({ found: true, inserts: 2, atomicPassed: true });
  });
});
