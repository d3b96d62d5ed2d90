/**
 * The notes provider in a plain test of your own: a simulated device with the notes app, the
 * reference consumer and a user who answers the provider's screens (docs/writing-a-provider.md).
 * A World's user is silent unless told otherwise: a screen nobody answers never resolves.
 */
import { describe, expect, it } from 'vitest';
import {
  bridgeIn,
  CONSUMER_PACKAGE,
  consumerApp,
  consumerPackage,
  type ToolOutcome,
  World,
} from '../../src/index.ts';
import { NOTES, NOTES_PACKAGE } from './notes.ts';

describe('the notes provider on a simulated device', () => {
  it('asks the user to grant each scope once, then confirms the delete on its own screen', async () => {
    const world = new World({
      seed: 1,
      // The provider's screens, in order: grant notes.write, grant notes.read, confirm the delete.
      user: { kind: 'scripted', decisions: ['approve', 'approve', 'approve'] },
    });
    NOTES.install(world);
    world.install(consumerPackage(), consumerApp());
    const outcomes: ToolOutcome[] = [];
    world.spawnIn(CONSUMER_PACKAGE, 'agent', async (ctx) => {
      const agent = bridgeIn(ctx);
      outcomes.push(await agent.execute(NOTES_PACKAGE, 'add_note', { title: 'milk' }));
      outcomes.push(await agent.execute(NOTES_PACKAGE, 'list_notes', {}));
      outcomes.push(await agent.execute(NOTES_PACKAGE, 'delete_note', { note_id: 'NOTE-1' }));
      outcomes.push(await agent.execute(NOTES_PACKAGE, 'list_notes', {}));
    });
    await world.run();
    expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(world.truth.screens.map((s) => s.title)).toEqual([
      'Allow com.clawseed.agent to use Example Notes?',
      'Allow com.clawseed.agent to use Example Notes?',
      'Example Notes: Delete the note',
    ]);
    expect(JSON.stringify(outcomes[1])).toContain('NOTE-1');
    expect(JSON.stringify(outcomes[3])).not.toContain('NOTE-1');
  });

  it('without a user who answers, a write waits for a grant that never comes', async () => {
    const world = new World({ seed: 1 }); // the default user is silent
    NOTES.install(world);
    world.install(consumerPackage(), consumerApp());
    let outcome: ToolOutcome | null = null;
    world.spawnIn(CONSUMER_PACKAGE, 'agent', async (ctx) => {
      outcome = await bridgeIn(ctx).execute(NOTES_PACKAGE, 'add_note', { title: 'milk' });
    });
    await world.run();
    expect(world.truth.screens.map((s) => s.answer ?? null)).toEqual([null]);
    expect(outcome).toBeNull(); // the agent is still waiting on the unanswered grant screen
  });
});
