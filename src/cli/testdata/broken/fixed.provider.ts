/**
 * The broken providers after the fix: the same app (fixture `broken`, package com.example.broken)
 * with the alerts tools' real handlers. Replaying a broken module's failure with this one shows the
 * "did my fix work?" flow: the run now passes (exit 0), and the changed code explains the new trace.
 */
import { brokenTools } from './kit.ts';

export const providers = [brokenTools(null)];
