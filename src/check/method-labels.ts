/**
 * The frequency labels of how a run's calls to one provider met each other (frequencies.ts
 * computeLabels; the protocol's methods only): `method:M:duplicated`,
 * `method:M:repeated` and `race:M1+M2`. Each label is added once, in the order the calls first give
 * it (the labels are a Set; `fuzz --json` reports their counts).
 */
import type { CallView } from './observation.ts';

/** Adds the repetition and race labels of the calls of `all` (in the order made) whose method is `known`. */
export function methodLabels(
  all: readonly CallView[],
  known: ReadonlySet<string>,
  labels: Set<string>,
): void {
  // The protocol's methods only: a malformed call's made-up method name is not a method repeated or raced.
  const calls = all.filter((c) => known.has(c.method));
  repetitionLabels(calls, labels);
  const byProvider = new Map<string, CallView[]>();
  for (const c of calls) {
    const list = byProvider.get(c.provider);
    if (list) list.push(c);
    else byProvider.set(c.provider, [c]);
  }
  // Pairs of methods already labelled (a run has hundreds of overlapping pairs and ~6 methods): the
  // label of a pair is built once, in the same order as before. `partners` holds them both ways.
  const raced = new Map<string, Set<string>>();
  const partners = new Map<string, Set<string>>();
  for (const list of byProvider.values()) raceLabels(list, raced, partners, labels);
}

/** The calls with one key so far, and the earliest and latest end (answer step, or never) among them. */
interface SameKey {
  readonly calls: CallView[];
  minEnd: number;
  maxEnd: number;
}

/**
 * `method:M:duplicated` (a call made while an earlier one with its key was unanswered) and
 * `method:M:repeated` (made after one was answered), each once, in the order the priors first give
 * them. Which of the two the priors give follows from their earliest and latest ends; the priors are
 * scanned only when both are new and both given (at most once per method: a hostile batch repeats
 * negotiate hundreds of times, and the pairs are quadratic).
 */
function repetitionLabels(calls: readonly CallView[], labels: Set<string>): void {
  // By provider, caller, method, then request id ('' for negotiate): nested Maps of the calls' own
  // strings, not one key string per call (a hostile batch makes hundreds, some with a 1 MiB id).
  const byKey = new Map<string, Map<string, Map<string, Map<string, SameKey>>>>();
  const names = new Map<string, readonly [dup: string, rep: string]>();
  for (const c of calls) {
    const rid = c.method === 'negotiate' ? '' : (c.requestId ?? '');
    const byRid = level(level(level(byKey, c.provider), c.caller), c.method);
    const end = c.replyStep ?? Number.POSITIVE_INFINITY;
    const same = byRid.get(rid);
    if (!same) {
      byRid.set(rid, { calls: [c], minEnd: end, maxEnd: end });
      continue;
    }
    let name = names.get(c.method);
    if (!name) {
      name = [`method:${c.method}:duplicated`, `method:${c.method}:repeated`];
      names.set(c.method, name);
    }
    const [dupLabel, repLabel] = name;
    const dup = c.step < same.maxEnd;
    const rep = c.step >= same.minEnd;
    if (dup && rep && !labels.has(dupLabel) && !labels.has(repLabel)) {
      for (const prior of same.calls) {
        labels.add(c.step < (prior.replyStep ?? Number.POSITIVE_INFINITY) ? dupLabel : repLabel);
        if (labels.has(dupLabel) && labels.has(repLabel)) break;
      }
    } else {
      if (dup) labels.add(dupLabel);
      if (rep) labels.add(repLabel);
    }
    same.calls.push(c);
    same.minEnd = Math.min(same.minEnd, end);
    same.maxEnd = Math.max(same.maxEnd, end);
  }
}

/** The Map under `key` in `map`, made empty the first time. */
function level<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = map.get(key);
  if (!inner) {
    inner = new Map();
    map.set(key, inner);
  }
  return inner;
}

/**
 * `race:M1+M2` for each pair of methods with two calls to one provider in flight at once (`b` made
 * before `a` was answered). Calls made in step order (as a run records them; checked): none after the
 * first made at or after a's answer overlaps a. A call whose method is already labelled with every
 * method of the list is skipped: it can add nothing.
 */
function raceLabels(
  list: readonly CallView[],
  raced: Map<string, Set<string>>,
  partners: Map<string, Set<string>>,
  labels: Set<string>,
): void {
  const ordered = list.every((c, i) => i === 0 || (list[i - 1] as CallView).step <= c.step);
  const methods = [...new Set(list.map((c) => c.method))];
  for (let i = 0; i < list.length; i++) {
    const a = list[i] as CallView;
    const known = partners.get(a.method);
    if (known && methods.every((m) => known.has(m))) continue;
    const aEnd = a.replyStep ?? Number.POSITIVE_INFINITY;
    for (let j = i + 1; j < list.length; j++) {
      const b = list[j] as CallView;
      if (b.step >= aEnd) {
        if (ordered) break;
        continue;
      }
      // The two names in sort() order (UTF-16 code units, as `<` compares strings).
      const swap = b.method < a.method;
      const m1 = swap ? b.method : a.method;
      const m2 = swap ? a.method : b.method;
      let seconds = raced.get(m1);
      if (!seconds) {
        seconds = new Set();
        raced.set(m1, seconds);
      }
      if (seconds.has(m2)) continue;
      seconds.add(m2);
      addPartner(partners, m1, m2);
      addPartner(partners, m2, m1);
      labels.add(`race:${m1}+${m2}`);
    }
  }
}

function addPartner(partners: Map<string, Set<string>>, m: string, other: string): void {
  const set = partners.get(m);
  if (set) set.add(other);
  else partners.set(m, new Set([other]));
}
