/** `cetp-sim rules --fields`: the wire-field table in text and JSON, with no unjudged field. */
import { describe, expect, it } from 'vitest';
import { WIRE_FIELDS } from '../protocol/index.ts';
import { runCli } from './testing.ts';

describe('cetp-sim rules --fields', () => {
  it('--json lists every wire field with its oracles and reasons, and no unexplained gap', async () => {
    const r = await runCli(['rules', '--fields', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout[0] ?? '{}') as {
      fields: { id: string; judgedBy: { checker: string; aspect: string }[]; gap?: string }[];
      summary: {
        fields: number;
        unexplainedGaps: number;
        judgedForConsistency: number;
        explainedGaps: number;
      };
    };
    expect(report.fields.map((f) => f.id)).toEqual(WIRE_FIELDS.map((f) => f.id));
    expect(report.summary.unexplainedGaps).toBe(0);
    expect(report.summary.judgedForConsistency + report.summary.explainedGaps).toBe(report.summary.fields);
    const sha = report.fields.find((f) => f.id === 'json:execution_result/sha256');
    expect(sha?.judgedBy).toContainEqual(
      expect.objectContaining({ checker: 'file-result-matches', aspect: 'consistency' }),
    );
    const poll = report.fields.find((f) => f.id === 'json:accepted/poll_after_ms');
    expect(poll?.gap).toMatch(/^GAP/);
  });

  it('prints the table with a summary line', async () => {
    const r = await runCli(['rules', '--fields']);
    expect(r.code).toBe(0);
    const text = r.stdout.join('\n');
    expect(text).toContain('res:resolution:resolution');
    expect(text).not.toContain('UNJUDGED');
    expect(text).toMatch(/\d+ wire fields .* 0 unjudged/);
  });
});
