import { describe, expect, it } from 'vitest';
import { DEFAULT_VECTORS_DIR } from '../cli/commands/vectors.ts';
import { exportAdb } from './adb.ts';
import { type Corpus, loadCorpus } from './corpus.ts';
import type { Vector } from './format.ts';
import { TEST_VECTOR } from './testing.ts';

const corpus = loadCorpus(DEFAULT_VECTORS_DIR);

function only(vectors: Vector[]): Corpus {
  return {
    ...corpus,
    files: [{ path: 'x/x.json', content: { format: 'cetp-vectors/1', area: 'x', description: '', vectors } }],
  };
}

const base = { ...TEST_VECTOR, fresh: [] } as const;

describe('vectors export --adb', () => {
  it('a vector of flat literal calls becomes `adb shell content call` lines, colons escaped, quoted twice', () => {
    const vector: Vector = {
      ...base,
      id: 'x-flat',
      steps: [
        {
          op: 'call',
          method: 'execute_tool',
          arg: null,
          extras: {
            tool_name: { type: 'string', value: "it's" },
            args: { type: 'string', value: '{"a":1}' },
            n: { type: 'int', value: 2 },
            big: { type: 'long', value: '9' },
            no: { type: 'null' },
          },
          expect: { type: 'bundle', value: { status: { type: 'string', value: 'success' } } },
        },
      ],
    };
    const { files, exported } = exportAdb(only([vector]));
    expect(exported).toEqual(['x-flat']);
    const script = files.get('x-flat.sh') ?? '';
    expect(script).toContain(`--extra '\\''args:s:{"a"\\:1}'\\''`);
    expect(script).toContain(`--extra '\\''tool_name:s:it'\\''\\'\\'''\\''s'\\''`);
    expect(script).toContain("--extra '\\''n:i:2'\\'' --extra '\\''big:l:9'\\'' --extra '\\''no:n:'\\''");
    expect(script).toContain('content://com.example.alerts.clawseed.tools');
    expect(script).toContain('# expect: status=success');
  });

  it('lists what cannot be exported with the reason', () => {
    const kill: Vector = { ...base, id: 'x-kill', steps: [{ op: 'kill' }] };
    const ref: Vector = {
      ...base,
      id: 'x-ref',
      steps: [
        {
          op: 'call',
          method: 'm',
          arg: null,
          extras: { r: { type: 'string', ref: 'r1' } },
          expect: { $match: 'any' },
        },
      ],
    };
    const { skipped, files } = exportAdb(only([kill, ref]));
    expect(skipped).toEqual([
      { id: 'x-kill', reason: 'a kill step' },
      { id: 'x-ref', reason: "r is the run-time value of 'r1'" },
    ]);
    expect(files.get('NOT-EXPORTED.md')).toContain("| x-ref | r is the run-time value of 'r1' |");
  });

  it('the committed corpus exports its v1 vectors and says why negotiate-based ones cannot be', () => {
    const { exported, skipped } = exportAdb(corpus);
    expect(exported).toContain('desc-v1-execute-write-tool');
    expect(skipped.find((s) => s.id === 'conf-grant-approve')?.reason).toMatch(
      /consumer_versions is a int\[\]/,
    );
  });
});
