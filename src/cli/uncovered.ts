/**
 * spec/uncovered.md: the testable MUST / MUST NOT rules that nothing covers yet, each with a reason.
 *
 * Parsing, precisely:
 * - an entry is a line whose first non-blank character is `-`, `*` or `|` and that contains a rule
 *   id (`CETP-<section>-<nn>`); every other line (headings, prose, blank lines) is ignored;
 * - the entry's rule is the first rule id on the line; its reason is the rest of the line after that
 *   id, with leading separators (spaces, `:`, `—`, `–`, `-`, `|`) and trailing `|` and spaces removed;
 * - a reason must contain a letter; an entry without one is reported, as is a rule listed twice.
 * So both `- CETP-4.4-09 — reason` and a table row `| CETP-4.4-09 | reason |` are entries.
 */

export interface UncoveredEntry {
  readonly rule: string;
  readonly reason: string;
  /** 1-based line number in the file. */
  readonly line: number;
}

export interface UncoveredList {
  readonly entries: readonly UncoveredEntry[];
  /** Malformed entries: `line N: problem`. */
  readonly problems: readonly string[];
}

const RULE_ID = /CETP-\d+(?:\.\d+)?-\d{2}/;

export function parseUncovered(text: string): UncoveredList {
  const entries: UncoveredEntry[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (!/^\s*[-*|]/.test(raw)) return;
    const match = RULE_ID.exec(raw);
    if (!match) return;
    const rule = match[0];
    const reason = raw
      .slice(match.index + rule.length)
      .replace(/^[\s:—–|-]+/, '')
      .replace(/[\s|]+$/, '');
    if (!/\p{L}/u.test(reason)) problems.push(`line ${line}: ${rule} has no reason`);
    const earlier = seen.get(rule);
    if (earlier !== undefined) problems.push(`line ${line}: ${rule} is already listed on line ${earlier}`);
    seen.set(rule, line);
    entries.push({ rule, reason, line });
  });
  return { entries, problems };
}
