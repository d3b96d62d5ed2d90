/**
 * `cetp-sim propose`: a wording that rules out the breaking reading of note 16 closes its break and
 * opens none; a wording that lets a provider forget a request after its idempotency window (a
 * proposed reading, NOTES 11) opens a double-effect break whose replay still fails; the classifier
 * tells closed, still open and new apart; a bad wording file is refused (exit 2) naming the file and
 * the field; the same arguments print the same bytes.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baselinePairings, checkWording, classifyBreaks, proposedPairings } from '../fuzz/propose.ts';
import { main } from './main.ts';
import { memoryIo, tempDir } from './testing.ts';

/** A checked wording file `<id>.json` whose only allowance is `provider` (text and source are stubs). */
function providerWording(id: string, provider: Record<string, string[]>) {
  return checkWording(`${id}.json`, {
    format: 'cetp-sim/wording@1',
    id,
    text: 't',
    source: 's',
    allow: { provider },
  });
}

const tmp = tempDir('cetp-propose-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Report {
  wordings: {
    id: string;
    breaks: { pairing: string; outcome: string; broken: { checker: string; replay?: string }[] }[];
    closes: number;
    stillOpen: number;
    opens: number;
    verified: boolean;
  }[];
}

async function propose(
  files: string[],
  runs: number,
): Promise<{ exit: number; report: Report; raw: string }> {
  const io = memoryIo();
  const exit = await main(
    ['propose', ...files, '--runs', String(runs), '--workers', '1', '--out', join(tmp, 'out'), '--json'],
    io,
  );
  const raw = io.stdout.join('\n');
  return { exit, report: exit === 0 ? (JSON.parse(raw) as Report) : { wordings: [] }, raw };
}

describe('cetp-sim propose', () => {
  it('verifies the note-16 wording (closes its break, opens none) and catches a wording that opens a double effect', async () => {
    const { exit, report } = await propose(
      ['spec/wordings/note16-expired-token.json', 'spec/wordings/note11-may-forget.json'],
      20,
    );
    expect(exit).toBe(0);
    const [good, bad] = report.wordings;
    expect(good).toMatchObject({
      id: 'note16-expired-token',
      closes: 1,
      stillOpen: 0,
      opens: 0,
      verified: true,
    });
    expect(good?.breaks).toEqual([
      expect.objectContaining({ pairing: 'note16-p-invalid-request-c-ref', outcome: 'closed' }),
    ]);
    expect(bad).toMatchObject({ id: 'note11-may-forget', closes: 0, verified: false });
    const opened = bad?.breaks.filter((b) => b.outcome === 'new') ?? [];
    expect(opened.length).toBeGreaterThan(0);
    expect(opened.flatMap((b) => b.broken.map((p) => p.checker))).toContain('single-effect');
    // The new break's replay reproduces it.
    const replay = opened[0]?.broken.find((p) => p.replay)?.replay as string;
    const io = memoryIo();
    expect(await main(['replay', replay, '--json'], io)).toBe(1);
    const replayed = JSON.parse(io.stdout.join('\n')) as { violations: { checker: string }[] };
    expect(replayed.violations.map((v) => v.checker)).toContain('single-effect');
  }, 600_000);

  it('classifies breaks: excluded is closed, kept is still open, only-proposed is new', () => {
    const baseline = baselinePairings(2);
    const w = providerWording('w', { consumedToken: ['replay'] });
    const proposal = proposedPairings(w, 2);
    expect(proposal.length).toBe(baseline.length / 2);
    const breaking = new Set(['note02-p-refuse-c-resend-give-up', 'note02-p-replay-c-once-query']);
    const verdict = (p: { id: string }) => (breaking.has(p.id) ? 'breaks' : 'interoperates');
    expect(classifyBreaks(baseline, proposal, verdict).map((b) => [b.pairing.id, b.outcome])).toEqual([
      ['note02-p-replay-c-once-query', 'still-open'],
      ['note02-p-refuse-c-resend-give-up', 'closed'],
    ]);
    const adds = providerWording('a', { afterWindow: ['re-execute'] });
    const added = proposedPairings(adds, 11);
    expect(added.map((p) => p.id)).toEqual([
      'note11-p-terminal-re-execute-c-ref',
      'note11-p-receipt-re-execute-c-ref',
    ]);
    const news = classifyBreaks(baselinePairings(11), added, (p) =>
      p.id.includes('receipt-re-execute') ? 'breaks' : 'interoperates',
    );
    expect(news.map((b) => b.outcome)).toEqual(['new']);
    // Allowing today's reading beside the proposed one keeps today's pairings under today's ids.
    const both = providerWording('b', { afterWindow: ['result-expired', 're-execute'] });
    const ids = proposedPairings(both, 11).map((p) => p.id);
    for (const p of baselinePairings(11)) expect(ids).toContain(p.id);
    expect(ids).toHaveLength(4);
  });

  it.each([
    [
      {
        format: 'cetp-sim/wording@1',
        id: 'x',
        text: 't',
        source: 's',
        allow: { provider: { consumedToken: ['sometimes'] } },
      },
      '$.allow.provider.consumedToken[0]',
    ],
    [
      {
        format: 'cetp-sim/wording@1',
        id: 'x',
        text: 't',
        source: 's',
        allow: { provider: { nosuch: ['a'] } },
      },
      '$.allow.provider.nosuch',
    ],
    [{ format: 'cetp-sim/wording@1', id: 'x', text: 't', source: 's', allow: {} }, '$.allow'],
    [{ format: 'cetp-sim/wording@1', id: 'x', text: '', source: 's', allow: {} }, '$.text'],
    [{ format: 'cetp-sim/wording@1', id: 'x', text: 't', source: 's', code: 'x', allow: {} }, '$.code'],
    [
      { format: 'cetp-sim/wording@1', id: 'x', text: 't', source: 's', rules: ['CETP-99-99'], allow: {} },
      '$.rules[0]',
    ],
  ])('refuses a bad wording file with exit 2, naming the file and %#', async (wording, field) => {
    const file = join(tmp, 'bad.json');
    writeFileSync(file, JSON.stringify(wording));
    const io = memoryIo();
    expect(await main(['propose', file, '--runs', '1'], io)).toBe(2);
    const text = io.stderr.join('\n');
    expect(text).toContain(file);
    expect(text).toContain(field);
    expect(text).not.toMatch(/\n\s+at /);
  });

  it('prints the same --json bytes for the same arguments', async () => {
    const a = await propose(['spec/wordings/note08-foreign-session.json'], 2);
    const b = await propose(['spec/wordings/note08-foreign-session.json'], 2);
    expect(a.raw).toBe(b.raw);
    expect(readFileSync('spec/wordings/note08-foreign-session.json', 'utf8')).toContain(
      'negotiation-required',
    );
  }, 300_000);
});
