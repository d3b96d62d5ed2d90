/**
 * spec/rules.en.md, the English rendering of the normative text (scripts/rules-en.ts): up to date
 * with spec/rules.json and the Chinese source, one anchor per rule id, and a heading of the source
 * with no English title (or a rule's text changed) makes the check fail.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  RULES_EN_PATH,
  type RuleEntry,
  renderRepositoryRulesEn,
  renderRulesEn,
} from '../scripts/rules-en.ts';

const rules = JSON.parse(readFileSync(new URL('../spec/rules.json', import.meta.url), 'utf8')) as RuleEntry[];
const zh = readFileSync(new URL('../spec/cetp-v2.zh.md', import.meta.url), 'utf8');

describe('spec/rules.en.md', () => {
  it('is up to date (regenerate with npx tsx scripts/rules-en.ts)', () => {
    expect(readFileSync(RULES_EN_PATH, 'utf8')).toBe(renderRepositoryRulesEn());
  });

  it('has one anchor per rule id, with its English and Chinese text', () => {
    const doc = readFileSync(RULES_EN_PATH, 'utf8');
    for (const r of rules) {
      expect(doc.split(`<a id="${r.id}"></a>`).length, r.id).toBe(2);
      expect(doc).toContain(r.text_en.replaceAll('\n', ' '));
    }
  });

  it('fails when the source grows a section without an English title, or a rule changes', () => {
    expect(() => renderRulesEn(rules, `${zh}\n11. 新章节¶\n`)).toThrow(/section 11/);
    const changed = rules.map((r, i) => (i === 0 ? { ...r, text_en: `${r.text_en} (changed)` } : r));
    expect(renderRulesEn(changed, zh)).not.toBe(readFileSync(RULES_EN_PATH, 'utf8'));
  });
});
