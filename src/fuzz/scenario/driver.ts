/**
 * The raw protocol driver: runs one actor's commands against the providers, keeping what a client
 * keeps (session tokens, request ids used, the last resolution and operation) and sharing enough
 * with the other actors that commands can misuse each other's tokens and operations. A command goes
 * to its family: sessions and the v2 envelope (driver-session.ts), executions and resolutions
 * (driver-execute.ts), misuse (driver-misuse.ts), clock crossings (driver-clocks.ts), and the settle
 * phase (driver-settle.ts); the actor's memory is actor-state.ts.
 */

import { Bundle } from '../../sim/binder/bundle.ts';
import { cross } from './driver-clocks.ts';
import { execute, pollOrCancel, resumeForeign, resumeHeld, retry } from './driver-execute.ts';
import { collide, duplicateCall, hostileHost, malformed, stealSession } from './driver-misuse.ts';
import { DEFAULT_VERSIONS, DriverCore } from './driver-session.ts';
import { settle } from './driver-settle.ts';
import { sendHostileBatch } from './malformed.ts';
import type { Command } from './model.ts';

export class RawDriver extends DriverCore {
  async run(command: Command): Promise<void> {
    switch (command.kind) {
      case 'negotiate':
        this.capsJson = JSON.stringify(command.caps);
        this.versions = command.versions ?? DEFAULT_VERSIONS;
        for (const p of this.providers) await this.negotiate(p);
        return;
      case 'execute':
        return execute(this, command);
      case 'retry':
        return retry(this, command);
      case 'poll':
      case 'cancel':
        return pollOrCancel(this, command);
      case 'steal-session':
        return stealSession(this);
      case 'resume-foreign':
        await resumeForeign(this);
        return;
      case 'collide':
        return collide(this);
      case 'after-faults':
        for (let i = 0; i < 400 && !this.faultsDone(); i++) await this.ctx.sleep(50);
        return;
      case 'malformed':
        await malformed(this, this.provider(command.provider), command.flaw);
        return;
      case 'hostile-batch':
        await sendHostileBatch(hostileHost(this, this.provider(command.provider)), command);
        return;
      case 'v1-list':
        await this.call(this.provider(command.provider), 'list_tools', new Bundle());
        return;
      case 'wait':
        await this.ctx.sleep(command.ms);
        return;
      case 'cross':
        await cross(this, command.clock, command.side);
        return;
      case 'resume-held':
        await resumeHeld(this);
        return;
      case 'duplicate-call':
        await duplicateCall(this, command.method);
        return;
    }
  }

  /** Resumes the other actor's last resolution with its token (a foreign caller). */
  resumeForeign(): Promise<void> {
    return resumeForeign(this);
  }

  /** After the faults: poll every operation this actor started until it ends (bounded). */
  settle(): Promise<void> {
    return settle(this);
  }
}
