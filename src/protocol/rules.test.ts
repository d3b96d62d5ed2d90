import { describe, expect, it } from 'vitest';
import catalogue from '../../spec/rules.json' with { type: 'json' };
import { allRules, findRule, getRule, isRuleId, parseCatalogue, RULE_IDS, sectionOf } from './rules.ts';
import { itClassifies } from './testing/classifies.ts';
import { expectIssue, issuesOf } from './testing/expect-issue.ts';

describe('rule catalogue', () => {
  it('has 254 rules with unique ids', () => {
    const ids = allRules().map((r) => r.id);
    expect(ids).toHaveLength(254);
    expect(new Set(ids).size).toBe(254);
  });

  it('RULE_IDS lists exactly the catalogue ids, in order (regenerate rule-ids.ts if this fails)', () => {
    const fromJson = (catalogue as { id: string }[]).map((r) => r.id);
    expect([...RULE_IDS], `catalogue ids:\n${fromJson.join('\n')}`).toEqual(fromJson);
  });

  it('looks rules up by id with typed fields', () => {
    const rule = getRule('CETP-4.3-13');
    expect(rule).toMatchObject({ id: 'CETP-4.3-13', section: '4.3', level: 'MUST', actor: 'provider' });
    expect(rule.textEn).toContain('single-use');
    expect(findRule('CETP-4.3-13')).toBe(rule);
    expect(findRule('CETP-99-01')).toBeUndefined();
  });

  it.each([
    ['CETP-0-01', '0'],
    ['CETP-2.2-17', '2.2'],
    ['CETP-10-14', '10'],
  ] as const)('sectionOf(%s) = %s', (id, section) => {
    expect(sectionOf(id)).toBe(section);
  });

  itClassifies('isRuleId', isRuleId, {
    accepts: ['CETP-4.3-05'],
    rejects: ['CETP-4.3-5', 'cetp-4.3-05', ''],
  });

  it('counts levels as the notes do (181 MUST, 35 MUST NOT, 21 SHOULD, 17 MAY)', () => {
    const count = (level: string) => allRules().filter((r) => r.level === level).length;
    expect([count('MUST'), count('MUST NOT'), count('SHOULD'), count('MAY')]).toEqual([181, 35, 21, 17]);
  });

  describe('parseCatalogue reports a malformed catalogue instead of throwing', () => {
    const good = catalogue as Record<string, unknown>[];
    const mutate = (index: number, patch: Record<string, unknown>) =>
      good.map((r, i) => (i === index ? { ...r, ...patch } : r));

    it.each([
      ['not an array', { rules: [] }, ''],
      ['unknown level', mutate(0, { level: 'MUSTN' }), '/0/level'],
      ['unknown actor', mutate(1, { actor: 'llm' }), '/1/actor'],
      ['empty text', mutate(2, { text_en: '' }), '/2/text_en'],
      [
        'non-boolean testable flag',
        mutate(3, { testable_in_simulation: 'yes' }),
        '/3/testable_in_simulation',
      ],
      ['unknown id', mutate(4, { id: 'CETP-99-99' }), '/4/id'],
      ['duplicate id', mutate(5, { id: 'CETP-0-01' }), '/5/id'],
    ])('%s', (_name, raw, path) => {
      expectIssue(issuesOf(parseCatalogue(raw)), { code: 'catalogue_malformed', path });
    });

    it('a missing rule', () => {
      expectIssue(issuesOf(parseCatalogue(good.slice(1))), { code: 'catalogue_malformed' });
    });

    it('accepts the shipped catalogue', () => {
      expect(parseCatalogue(good).ok).toBe(true);
    });
  });
});
