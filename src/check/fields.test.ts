/**
 * Oracle completeness by construction (issue 22 item 6): every field of the wire — derived from the
 * key tables and the wire schemas, both directions — is judged by an oracle that declares it, for
 * its schema and for its consistency with what the world knows, or its consistency gap has a reason
 * in FIELD_GAPS. Neither side can drift: a declaration that names no field, and a reason for a field
 * an oracle now judges, fail here too.
 */
import { describe, expect, it } from 'vitest';
import { fieldMatches, WIRE_FIELDS } from '../protocol/index.ts';
import { ALL_CHECKERS } from './checkers/index.ts';
import { FIELD_GAPS, fieldTable, unexplainedGaps } from './fields.ts';

describe('the wire-field table', () => {
  const rows = fieldTable();

  it('lists every Bundle key of every request and response and every JSON field of every wire shape', () => {
    expect(rows.length).toBe(WIRE_FIELDS.length);
    const ids = rows.map((r) => r.field.id);
    expect(ids).toContain('req:execute_tool:args');
    expect(ids).toContain('res:resolution:resolution');
    expect(ids).toContain('json:execution_result/sha256');
    expect(ids).toContain('json:list_tools_response/tools[]/annotations/effect');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every field is judged for its schema by some oracle', () => {
    expect(
      rows.filter((r) => !r.judgedBy.some((j) => j.judgement.aspect === 'schema')).map((r) => r.field.id),
    ).toEqual([]);
  });

  it('every field is judged for its consistency by some oracle, or its gap has a reason', () => {
    expect(unexplainedGaps(rows).map((r) => r.field.id)).toEqual([]);
  });

  it('no gap reason is stale: each names a field no oracle judges for consistency', () => {
    const stale = Object.keys(FIELD_GAPS).filter(
      (pattern) =>
        !rows.some(
          (r) =>
            fieldMatches(pattern, r.field.id) &&
            !r.judgedBy.some((j) => j.judgement.aspect === 'consistency'),
        ),
    );
    expect(stale).toEqual([]);
  });

  it('every field an oracle declares exists on the wire', () => {
    const unknown = ALL_CHECKERS.flatMap((c) =>
      (c.fields ?? []).flatMap((j) =>
        j.fields.filter((p) => !WIRE_FIELDS.some((f) => fieldMatches(p, f.id))).map((p) => `${c.id}: ${p}`),
      ),
    );
    expect(unknown).toEqual([]);
  });

  it('a field whose oracle is withdrawn becomes a gap (the table is computed, not written)', () => {
    const without = fieldTable(ALL_CHECKERS.filter((c) => c.id !== 'session-expiry'));
    expect(unexplainedGaps(without).map((r) => r.field.id)).toEqual(['json:negotiate_response/expires_at']);
  });
});
