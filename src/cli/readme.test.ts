/**
 * The README is a user guide that must not drift from the tool: its command table lists exactly the
 * commands and options `--help` knows (both ways), and every file it points at exists in the repo.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT as REPO_ROOT } from '../harness/root.ts';
import { buildProgram } from './main.ts';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** Every leaf command of the CLI ("vectors run") with its long options, --help and --version aside. */
function cliCommands(): Map<string, string[]> {
  const program = buildProgram({ out() {}, err() {} } as never, () => {});
  const leaves = new Map<string, string[]>();
  const walk = (command: Command, path: string[]): void => {
    if (command.commands.length === 0) {
      const options = command.options.map((o) => o.long).filter((o): o is string => o !== undefined);
      leaves.set(path.join(' '), options.filter((o) => o !== '--help' && o !== '--version').sort());
      return;
    }
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return leaves;
}

/** The rows of the README's command table: command path → options named in its first cell. */
function readmeCommands(): Map<string, string[]> {
  const section = README.slice(README.indexOf('## Command line'));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cell = /^\| `cetp-sim ([^`]*)` \|/.exec(line)?.[1];
    if (cell === undefined) continue;
    const path: string[] = [];
    for (const word of cell.split(' ')) {
      if (!/^[a-z][a-z-]*$/.test(word)) break;
      path.push(word);
    }
    const options = [...new Set(cell.match(/--[a-z][a-z-]*/g) ?? [])].sort();
    rows.set(path.join(' '), options);
  }
  return rows;
}

describe('README', () => {
  it('lists every command of --help, and only those', () => {
    expect([...readmeCommands().keys()].sort()).toEqual([...cliCommands().keys()].sort());
  });

  it("names each command's options exactly as --help has them", () => {
    const readme = readmeCommands();
    for (const [command, options] of cliCommands()) {
      expect({ command, options: readme.get(command) }).toEqual({ command, options });
    }
  });

  it('points only at files that are in the repo (nothing behind ../shared)', () => {
    expect(README).not.toContain('../shared');
    const targets = [
      ...[...README.matchAll(/\]\(([^)#\s]+)\)/g)].map((m) => m[1]),
      ...[
        ...README.matchAll(/`((?:src|docs|spec|bench|vectors|properties|runners|examples)\/[^`\s]*)`/g),
      ].map((m) => m[1]),
    ]
      .filter((t): t is string => t !== undefined && !t.startsWith('http') && !t.includes('<'))
      .filter((t) => !t.startsWith('src/androidTest/')); // a path in the user's Android project
    const missing = targets.filter((t) => !existsSync(join(REPO_ROOT, t.replace(/[.,:;]$/, ''))));
    expect(missing).toEqual([]);
  });

  it('stays a user guide (at most 250 lines)', () => {
    expect(README.match(/\n/g)?.length ?? 0).toBeLessThanOrEqual(250); // lines, as wc -l counts them
  });
});
