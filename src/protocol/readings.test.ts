import { describe, expect, it } from 'vitest';
import { isRuleId } from './index.ts';
import { VARIANTS } from './readings.ts';

describe('the interpretation registry (readings.json)', () => {
  it('every variant has the fields of VariantDef, two readings or more, unique names, known rule ids', () => {
    expect(VARIANTS.length).toBeGreaterThan(10);
    const problems = VARIANTS.flatMap((v) => {
      const names = v.readings.map((r) => r.name);
      const ids = [...v.ruleIds, ...v.readings.flatMap((r) => r.allowedBy)];
      return [
        typeof v.id === 'string' && Number.isInteger(v.note) && typeof v.question === 'string' ? [] : [v.id],
        new Set(names).size === names.length ? [] : [`${v.id}: reading names repeat`],
        ids.filter((id) => !isRuleId(id)).map((id) => `${v.id}: unknown rule id ${id}`),
        v.readings
          .filter((r) => typeof r.does !== 'string' || !['string', 'boolean'].includes(typeof r.value))
          .map((r) => `${v.id}.${r.name}: needs does (text) and value (string or boolean)`),
      ].flat();
    });
    expect(problems).toEqual([]);
    expect(new Set(VARIANTS.map((v) => `${v.side} ${v.id}`)).size).toBe(VARIANTS.length);
  });
});
