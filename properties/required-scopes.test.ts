/**
 * The truth about a tool's scopes is expressible and judged (issue 30, CETP-3.4-14): a fixture's
 * `requiredScopes` says what each tool truly needs, and the `required-scopes` oracle fails an app
 * that declares fewer scopes in list_tools, or lets a caller not granted a needed scope succeed —
 * while the notes example and the reference apps, stating their true scopes, pass.
 */
import { describe, expect, it } from 'vitest';
import { addNote, deleteNote, listNotes, NOTES, NOTES_DESCRIPTOR } from '../examples/notes-provider/notes.ts';
import { ALERTS, PAYMENTS } from '../src/fuzz/scenario/fixtures.ts';
import { propertyById } from '../src/fuzz/suites.ts';
import { fuzzProvider } from '../src/harness/fuzz.ts';
import { defineProvider } from '../src/providers/sdk/define.ts';

const NOTES_TRUTH = { list_notes: ['notes.read'], add_note: ['notes.write'], delete_note: ['notes.write'] };
const POOLS = {
  list_notes: [{}],
  add_note: [{ title: 'groceries', body: 'milk' }, { title: 'todo' }],
  delete_note: [{ note_id: '$OWN:note_id' }, { note_id: 'NOTE-1' }],
};
/** The properties that judge required scopes. */
const JUDGING = ['idempotency', 'confirmation', 'identity', 'lifecycle', 'consumer'];
const ciRuns = (id: string) => propertyById(id)?.ciRuns ?? 40;

async function verdicts(fixture: Parameters<typeof fuzzProvider>[0], property: string) {
  const report = await fuzzProvider(fixture, { property, runs: ciRuns(property), replayDir: null });
  const [result] = report.properties;
  return { status: result?.status, violations: result?.violations ?? [] };
}

describe('required-scopes (CETP-3.4-14)', () => {
  it('fails a notes app whose add_note under-declares its scopes (declares none, needs notes.write)', async () => {
    const LEAKY = defineProvider({
      packageName: 'com.example.leakynotes',
      descriptor: NOTES_DESCRIPTOR,
      tools: [listNotes, { ...addNote, scopes: [] }, deleteNote],
    });
    const fixture = LEAKY.fixture({ name: 'leakynotes', tools: POOLS, requiredScopes: NOTES_TRUTH });
    for (const property of ['idempotency', 'consumer']) {
      const { status, violations } = await verdicts(fixture, property);
      expect(status, property).toBe('failed');
      const mine = violations.filter((v) => v.checker === 'required-scopes');
      expect(mine.length, property).toBeGreaterThan(0);
      expect(mine.every((v) => v.ruleIds.includes('CETP-3.4-14'))).toBe(true);
      const messages = mine.map((v) => v.message).join('\n');
      // The raw driver calls add_note without list_tools: its success without the grant is named.
      if (property === 'idempotency')
        expect(messages).toContain(
          'add_note without being granted notes.write, which it needs (CETP-3.4-14)',
        );
      // The reference consumer lists the tools first: the under-declaring list_tools is named.
      else
        expect(messages).toContain('list_tools declares add_note with scopes [], but it needs notes.write');
    }
  }, 300_000);

  it('fails an app that declares the scope but lets a caller not granted it succeed', async () => {
    // list_tools is right; the policy lets everyone through while claiming the user grants writes.
    const OPEN = defineProvider({
      packageName: 'com.example.opennotes',
      descriptor: NOTES_DESCRIPTOR,
      tools: [listNotes, addNote, deleteNote],
      authorize: () => ({ kind: 'allow' }),
    });
    const fixture = OPEN.fixture({
      name: 'opennotes',
      tools: POOLS,
      userGrantedScopes: ['notes.read', 'notes.write'],
      requiredScopes: NOTES_TRUTH,
    });
    const { status, violations } = await verdicts(fixture, 'idempotency');
    expect(status).toBe('failed');
    const messages = violations.filter((v) => v.checker === 'required-scopes').map((v) => v.message);
    expect(messages.join('\n')).toMatch(
      /without being granted notes\.(read|write), which it needs \(CETP-3\.4-14\)/,
    );
  }, 300_000);

  it.each(JUDGING)(
    'the notes example with its true scopes passes %s',
    async (property) => {
      const fixture = NOTES.fixture({ name: 'notes', tools: POOLS, requiredScopes: NOTES_TRUTH });
      const { status, violations } = await verdicts(fixture, property);
      expect(violations.map((v) => v.checker)).toEqual([]);
      expect(status).toBe('passed');
    },
    300_000,
  );

  it('the reference apps with their true scopes pass idempotency and identity', async () => {
    const truth = (f: typeof ALERTS) => ({ ...f, requiredScopes: f.scopes });
    for (const property of ['idempotency', 'identity']) {
      const { status, violations } = await verdicts([truth(ALERTS), truth(PAYMENTS)], property);
      expect(
        violations.map((v) => v.checker),
        property,
      ).toEqual([]);
      expect(status, property).toBe('passed');
    }
  }, 300_000);
});

describe('requiredScopes in a fixture', () => {
  it('is checked like the other per-tool maps: an unknown tool is refused, naming the field', async () => {
    const { checkProviderFixtures } = await import('../src/harness/subjects.ts');
    const fail = (message: string): never => {
      throw new Error(message);
    };
    const fixture = { ...ALERTS, requiredScopes: { nope: ['alerts.read'] } };
    await expect(checkProviderFixtures([fixture], undefined, 'test', fail)).rejects.toThrow(
      "providers[0].requiredScopes: 'nope' is not in tools",
    );
  });
});
