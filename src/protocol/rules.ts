/**
 * The rule catalogue (spec/rules.json): every normative statement of the CETP v2 spec with a stable
 * id such as CETP-4.3-05, its level (MUST, MUST NOT, SHOULD, MAY), actor and English text. Checks
 * everywhere cite these ids; a rule can be looked up, listed, or switched off by id (ablation).
 */
import catalogue from '../../spec/rules.json' with { type: 'json' };
import { issue, type ProtocolIssue, resultOf, type WireResult } from './issues.ts';
import { RULE_IDS, type RuleId } from './rule-ids.ts';

export { RULE_IDS, type RuleId } from './rule-ids.ts';

export const RULE_LEVELS = ['MUST', 'MUST NOT', 'SHOULD', 'SHOULD NOT', 'MAY'] as const;
export type RuleLevel = (typeof RULE_LEVELS)[number];

export const RULE_ACTORS = ['provider', 'consumer', 'both', 'sdk'] as const;
export type RuleActor = (typeof RULE_ACTORS)[number];

export interface Rule {
  readonly id: RuleId;
  /** The spec section the rule sits in: '4.3' for CETP-4.3-05; '0' is the preamble. */
  readonly section: string;
  readonly level: RuleLevel;
  readonly actor: RuleActor;
  readonly topic: string;
  readonly textZh: string;
  readonly textEn: string;
  readonly testableInSimulation: boolean;
  readonly howToTest: string;
}

const RULE_ID_SET: ReadonlySet<string> = new Set(RULE_IDS);

export function isRuleId(id: string): id is RuleId {
  return RULE_ID_SET.has(id);
}

/** Parses a raw catalogue (the JSON array in spec/rules.json) into typed rules. */
export function parseCatalogue(raw: unknown): WireResult<readonly Rule[]> {
  if (!Array.isArray(raw)) {
    return resultOf([], [malformed('the catalogue must be a JSON array', '')]);
  }
  const issues: ProtocolIssue[] = [];
  const rules: Rule[] = [];
  const seen = new Set<string>();
  raw.forEach((entry: unknown, index) => {
    const rule = parseRule(entry, `/${index}`, issues);
    if (rule === null) return;
    if (seen.has(rule.id)) issues.push(malformed(`duplicate rule id ${rule.id}`, `/${index}/id`));
    seen.add(rule.id);
    rules.push(rule);
  });
  for (const id of RULE_IDS) {
    if (!seen.has(id)) issues.push(malformed(`rule ${id} is missing from the catalogue`, ''));
  }
  return resultOf(Object.freeze(rules), issues);
}

function parseRule(entry: unknown, path: string, issues: ProtocolIssue[]): Rule | null {
  if (typeof entry !== 'object' || entry === null) {
    issues.push(malformed('a rule must be an object', path));
    return null;
  }
  const e = entry as Record<string, unknown>;
  const text = (field: string): string | null => {
    const v = e[field];
    if (typeof v === 'string' && v.length > 0) return v;
    issues.push(malformed(`field ${field} must be a non-empty string`, `${path}/${field}`));
    return null;
  };
  const id = text('id');
  const level = text('level');
  const actor = text('actor');
  const topic = text('topic');
  const textZh = text('text_zh');
  const textEn = text('text_en');
  const howToTest = text('how_to_test');
  const testable = e.testable_in_simulation;
  if (typeof testable !== 'boolean') {
    issues.push(malformed('testable_in_simulation must be a boolean', `${path}/testable_in_simulation`));
  }
  if (id !== null && !isRuleId(id)) issues.push(malformed(`unknown rule id ${id}`, `${path}/id`));
  if (level !== null && !isOneOf(RULE_LEVELS, level)) {
    issues.push(malformed(`unknown level ${level}`, `${path}/level`));
  }
  if (actor !== null && !isOneOf(RULE_ACTORS, actor)) {
    issues.push(malformed(`unknown actor ${actor}`, `${path}/actor`));
  }
  if (id === null || !isRuleId(id) || level === null || !isOneOf(RULE_LEVELS, level)) return null;
  if (actor === null || !isOneOf(RULE_ACTORS, actor) || typeof testable !== 'boolean') return null;
  if (topic === null || textZh === null || textEn === null || howToTest === null) return null;
  return Object.freeze({
    id,
    section: sectionOf(id),
    level,
    actor,
    topic,
    textZh,
    textEn,
    testableInSimulation: testable,
    howToTest,
  });
}

/** 'CETP-4.3-05' → '4.3'. */
export function sectionOf(id: RuleId): string {
  return id.slice('CETP-'.length, id.lastIndexOf('-'));
}

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

function malformed(message: string, path: string): ProtocolIssue {
  return issue('catalogue_malformed', message, [], path);
}

function loadCatalogue(): readonly Rule[] {
  const parsed = parseCatalogue(catalogue);
  // The catalogue ships with the code: a malformed one is a build defect, not untrusted input.
  if (!parsed.ok) {
    const first = parsed.issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`);
    throw new Error(`spec/rules.json is malformed: ${first.join('; ')}`);
  }
  return parsed.value;
}

const RULES: readonly Rule[] = loadCatalogue();
const RULES_BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((r) => [r.id, r]));

/** Total for every RuleId: loading checked that the catalogue holds exactly RULE_IDS. */
export function getRule(id: RuleId): Rule {
  return RULES_BY_ID.get(id)!;
}

/** Looks up an id that came from outside the type system (CLI input, a vector file). */
export function findRule(id: string): Rule | undefined {
  return RULES_BY_ID.get(id);
}

/** Every rule, in catalogue order. */
export function allRules(): readonly Rule[] {
  return RULES;
}
