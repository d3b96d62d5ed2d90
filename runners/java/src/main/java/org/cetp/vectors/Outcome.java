package org.cetp.vectors;

import java.util.Collections;
import java.util.List;

/** One vector's result: pass, fail, skip, xfail (baseline), stale (baseline), or error (malformed / transport). */
public final class Outcome {
  /** One mismatch or error at a step (-1: the consumer vector as a whole). */
  public static final class StepFailure {
    public final int step;
    public final String path;
    public final String message;

    public StepFailure(int step, String path, String message) {
      this.step = step;
      this.path = path;
      this.message = message;
    }

    @Override
    public String toString() {
      return "step " + step + ": " + path + ": " + message;
    }
  }

  public final String id;
  public final String title;
  public final String file;
  public final String level;
  public final String profile;
  public final List<String> rules;
  public final String status;
  public final String reason;
  public final List<StepFailure> failures;
  public final long ms;

  public Outcome(String id, String title, String file, String level, String profile, List<String> rules,
      String status, String reason, List<StepFailure> failures, long ms) {
    this.id = id;
    this.title = title;
    this.file = file;
    this.level = level;
    this.profile = profile;
    this.rules = rules;
    this.status = status;
    this.reason = reason;
    this.failures = failures == null ? Collections.emptyList() : failures;
    this.ms = ms;
  }

  Outcome with(String status, String reason, List<StepFailure> failures) {
    return new Outcome(id, title, file, level, profile, rules, status, reason, failures, ms);
  }

  /** The first failure as one line (what a JUnit failure message shows). */
  public String failureText() {
    if (status.equals("stale")) return "stale baseline entry: " + reason;
    if (!failures.isEmpty()) return failures.get(0).toString();
    return reason == null ? "" : reason;
  }
}
