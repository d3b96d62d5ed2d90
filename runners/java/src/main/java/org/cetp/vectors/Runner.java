package org.cetp.vectors;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Runs vectors through a {@link Transport}: the steps, captures and matching of
 * vectors/README.md, skips (deprecated, a missing ability, fixture or value type), the baseline
 * (xfail / stale) and the profile claims (a claim holds only if every MUST / MUST NOT vector of
 * the profile passes: CETP-9-10, CETP-9-11). Every problem of one vector — a malformed vector, a
 * transport that throws or answers nonsense — ends that vector with one clear outcome; the run
 * goes on.
 */
public final class Runner {
  public static final List<String> PROFILES = Arrays.asList("core", "async", "cancellation", "large-results");

  /** What to run and how. */
  public static final class Options {
    public List<String> profiles = PROFILES;
    /** Abilities to treat as missing even if the transport has them. */
    public Set<String> lacks = Collections.emptySet();
    /** Only these ids (null: all). */
    public Set<String> ids = null;
    public Map<String, String> baseline = Collections.emptyMap();
    /** Seeds UUIDs the runner makes itself; null: random. */
    public LongSupplier clock = () -> 0L;
  }

  /** The run: outcomes in corpus order, counts, claims, stale baseline ids. */
  public static final class Summary {
    public final List<Outcome> outcomes;
    public final Map<String, Integer> counts;
    public final Map<String, String> claims;
    public final List<String> unknownBaselineIds;
    public final boolean ok;

    Summary(List<Outcome> outcomes, Map<String, Integer> counts, Map<String, String> claims,
        List<String> unknownBaselineIds, boolean ok) {
      this.outcomes = outcomes;
      this.counts = counts;
      this.claims = claims;
      this.unknownBaselineIds = unknownBaselineIds;
      this.ok = ok;
    }
  }

  private final Transport transport;
  private final Options options;
  private Transport.Capabilities caps;

  public Runner(Transport transport, Options options) {
    this.transport = transport;
    this.options = options;
  }

  /** The profile a vector belongs to: the optional capability it needs, else core. */
  public static String profileOf(JSONObject vector) {
    JSONArray r = vector.optJSONArray("requires");
    Set<String> req = new HashSet<>();
    for (int i = 0; r != null && i < r.length(); i++) req.add(r.optString(i));
    if (req.contains("large_results")) return "large-results";
    if (req.contains("cancellation")) return "cancellation";
    if (req.contains("async_operations")) return "async";
    return "core";
  }

  private static List<String> strings(JSONArray a) {
    List<String> out = new ArrayList<>();
    for (int i = 0; a != null && i < a.length(); i++) out.add(a.optString(i));
    return out;
  }

  private boolean selected(JSONObject v) {
    return options.profiles.contains(profileOf(v)) && (options.ids == null || options.ids.contains(v.optString("id")));
  }

  public Summary run(Corpus corpus) {
    List<Outcome> outcomes = new ArrayList<>();
    Set<String> known = new LinkedHashSet<>();
    String capsError = null;
    try {
      caps = transport.capabilities();
    } catch (TransportException | RuntimeException e) {
      capsError = "the transport cannot say what it can do: " + message(e);
    }
    for (Corpus.VectorFile file : corpus.files) {
      if (file.error != null) {
        outcomes.add(new Outcome(file.path, file.path, file.path, "MUST", "core", Collections.emptyList(), "error",
            file.path + ": " + file.error, null, 0));
        continue;
      }
      for (String e : file.vectorErrors)
        outcomes.add(new Outcome(file.path, file.path, file.path, "MUST", "core", Collections.emptyList(), "error",
            file.path + ": " + e, null, 0));
      for (int i = 0; i < file.vectors.size(); i++) {
        JSONObject v = file.vectors.get(i);
        if (v.opt("id") instanceof String) known.add(v.optString("id"));
        if (!selected(v)) continue;
        Outcome o = capsError != null ? base(file, v, i).with("error", capsError, null) : runOne(corpus, file, v, i);
        outcomes.add(o);
      }
    }
    return summarize(outcomes, known);
  }

  private static Outcome base(Corpus.VectorFile file, JSONObject v, int index) {
    String id = v.opt("id") instanceof String ? v.optString("id") : file.path + "#" + index;
    return new Outcome(id, v.optString("title", id), file.path, v.optString("level", "MUST"), profileOf(v),
        strings(v.optJSONArray("rules")), "pass", null, null, 0);
  }

  private static String message(Throwable e) {
    if (e instanceof TransportException) return e.getMessage();
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  Outcome runOne(Corpus corpus, Corpus.VectorFile file, JSONObject v, int index) {
    Outcome base = base(file, v, index);
    String at = "$.vectors[" + index + "]";
    try {
      if (file.consumer) VectorCheck.consumer(v, at);
      else VectorCheck.provider(v, at);
    } catch (VectorFormatException e) {
      return base.with("error", file.path + ": " + e.getMessage(), null);
    }
    String skip = file.consumer ? consumerSkip(v) : skipReason(corpus, v);
    if (skip != null) return base.with("skip", skip, null);
    long start = options.clock.getAsLong();
    List<Outcome.StepFailure> failures;
    try {
      failures = file.consumer ? new ConsumerSession(v).run() : new Session(corpus, v).run();
    } catch (UnsupportedAbility e) {
      return base.with("skip", "needs " + e.ability + " (the transport lacks it)", null);
    } catch (TransportBroke e) {
      return base.with("error", e.getMessage(), null);
    } catch (RuntimeException e) {
      return base.with("error", "the runner or transport failed: " + message(e), null);
    } finally {
      try {
        transport.end();
      } catch (RuntimeException ignored) {
        // A transport that cannot end a vector is reported by the next vector's begin.
      }
    }
    Outcome timed = new Outcome(base.id, base.title, base.file, base.level, base.profile, base.rules, "pass", null,
        null, options.clock.getAsLong() - start);
    String expected = options.baseline.get(base.id);
    if (expected != null)
      return failures.isEmpty()
          ? timed.with("stale", "passes now; remove it from the baseline (" + expected + ")", null)
          : timed.with("xfail", expected, failures);
    return failures.isEmpty() ? timed : timed.with("fail", null, failures);
  }

  private Set<String> missing(JSONObject v) {
    Set<String> missing = new TreeSet<>();
    for (String a : strings(v.optJSONArray("requires")))
      if (options.lacks.contains(a) || !caps.abilities.contains(a)) missing.add(a);
    return missing;
  }

  private String skipReason(Corpus corpus, JSONObject v) {
    JSONObject dep = v.optJSONObject("deprecated");
    if (dep != null) return "deprecated since " + dep.optString("since") + ": " + dep.optString("reason");
    Set<String> missing = missing(v);
    if (!missing.isEmpty()) return "needs " + String.join(", ", missing);
    String fixture = v.optString("provider");
    if (!corpus.fixtures.containsKey(fixture) || (caps.fixtures != null && !caps.fixtures.contains(fixture)))
      return "no provider fixture '" + fixture + "'";
    Set<String> types = new TreeSet<>();
    JSONArray steps = v.optJSONArray("steps");
    for (int i = 0; i < steps.length(); i++) {
      JSONObject s = steps.optJSONObject(i);
      JSONObject call = s.has("call") ? s.optJSONObject("call") : s;
      String op = s.optString("op");
      if (op.equals("call") || op.equals("parallel") || op.equals("poll-until"))
        for (String t : Values.typesOf(call.optJSONObject("extras"))) if (!caps.valueTypes.contains(t)) types.add(t);
    }
    if (!types.isEmpty()) return "sends " + String.join(", ", types) + " values, which the transport cannot send";
    return null;
  }

  private String consumerSkip(JSONObject v) {
    JSONObject dep = v.optJSONObject("deprecated");
    if (dep != null) return "deprecated: " + dep.optString("reason");
    Set<String> missing = missing(v);
    if (!caps.abilities.contains("consumer-harness")) missing.add("consumer-harness");
    if (!missing.isEmpty()) return "needs " + String.join(", ", missing);
    return null;
  }

  /** The transport broke its contract (an answer that is not a tagged value): an error, not a verdict. */
  static final class TransportBroke extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TransportBroke(String message) {
      super(message);
    }
  }

  /** A step's failures (the vector stops there). */
  private static final class StepFailed extends Exception {
    private static final long serialVersionUID = 1L;
    final List<Outcome.StepFailure> failures;

    StepFailed(List<Outcome.StepFailure> failures) {
      super(failures.isEmpty() ? "step failed" : failures.get(0).message);
      this.failures = failures;
    }

    static StepFailed of(int step, List<Mismatch> mismatches) {
      List<Outcome.StepFailure> list = new ArrayList<>();
      for (Mismatch m : mismatches) list.add(new Outcome.StepFailure(step, m.path, m.message));
      return new StepFailed(list);
    }
  }

  /** Checks a transport's answer is a tagged value (bundle or null) before anything reads it. */
  static JSONObject checkReply(Object reply, String what) {
    if (!(reply instanceof JSONObject)) throw new TransportBroke("the transport answered " + what + " with " + Json.show(reply) + ", not a tagged value");
    JSONObject r = (JSONObject) reply;
    String type = r.optString("type");
    if (type.equals("null")) return r;
    if (!type.equals("bundle") || r.optJSONObject("value") == null)
      throw new TransportBroke("the transport answered " + what + " with " + Json.show(reply) + ", not a tagged Bundle");
    checkValues(r.optJSONObject("value"), what);
    return r;
  }

  private static final Set<String> REPLY_TYPES = new HashSet<>(Arrays.asList(
      "int", "long", "boolean", "double", "float", "string", "bytes", "string[]", "int[]", "long[]", "bundle",
      "null", "pending_intent", "fd", "other"));

  private static void checkValues(JSONObject values, String what) {
    for (String k : Json.keys(values)) {
      JSONObject v = values.optJSONObject(k);
      if (v == null || !REPLY_TYPES.contains(v.optString("type")))
        throw new TransportBroke("the transport answered " + what + " with a malformed value at " + k + ": " + Json.show(values.opt(k)));
      if (v.optString("type").equals("bundle")) {
        if (v.optJSONObject("value") == null) throw new TransportBroke("the transport answered " + what + " with a bundle without value at " + k);
        checkValues(v.optJSONObject("value"), what);
      }
    }
  }

  /** The running state of one provider vector. */
  private final class Session {
    private final Corpus corpus;
    private final JSONObject vector;
    private final JSONArray steps;
    private final Map<String, Object> vars = new LinkedHashMap<>();
    private JSONObject last = null;

    Session(Corpus corpus, JSONObject vector) {
      this.corpus = corpus;
      this.vector = vector;
      this.steps = vector.optJSONArray("steps");
    }

    List<Outcome.StepFailure> run() throws UnsupportedAbility {
      Transport.Fixture fixture = corpus.fixtures.get(vector.optString("provider"));
      List<String> fresh = strings(vector.optJSONArray("fresh"));
      String id = vector.optString("id");
      try {
        Transport.Start start = transport.begin(id, fixture, fresh, "vector:" + id);
        if (start == null || start.callerUid == null) throw new TransportBroke("the transport began " + id + " without a caller UID");
        vars.put("caller_uid", start.callerUid);
        for (String name : fresh) {
          String uuid = start.fresh == null ? null : start.fresh.get(name);
          vars.put(name, uuid != null ? uuid : java.util.UUID.randomUUID().toString());
        }
      } catch (UnsupportedAbility e) {
        throw e;
      } catch (TransportException e) {
        return Collections.singletonList(new Outcome.StepFailure(-1, "$", "cannot begin: " + e.getMessage()));
      }
      int index = 0;
      try {
        for (; index < steps.length(); index++) step(index, steps.getJSONObject(index));
      } catch (StepFailed e) {
        return e.failures;
      } catch (UnsupportedAbility e) {
        throw e;
      } catch (TransportException | Values.UnboundVariable e) {
        return Collections.singletonList(new Outcome.StepFailure(index, "$", e.getMessage()));
      } catch (JSONException e) {
        return Collections.singletonList(new Outcome.StepFailure(index, "$", "malformed step: " + e.getMessage()));
      }
      return Collections.emptyList();
    }

    private void expectOk(int index, Object expect, JSONObject actual) throws StepFailed {
      List<Mismatch> m = Matchers.match(expect, actual, vars, "$");
      if (!m.isEmpty()) throw StepFailed.of(index, m);
    }

    private JSONObject call(JSONObject spec) throws TransportException, Values.UnboundVariable {
      Object extras = spec.opt("extras");
      JSONObject resolved = Json.isNull(extras) ? null : Values.resolveExtras((JSONObject) extras, vars);
      Object arg = spec.opt("arg");
      JSONObject reply = transport.call(spec.optString("caller", "primary"), spec.optString("method"),
          Json.isNull(arg) ? null : (String) arg, resolved);
      return checkReply(reply, spec.optString("method"));
    }

    private JSONObject callOf(JSONObject step) throws JSONException {
      JSONObject earlier = steps.getJSONObject(step.getInt("step"));
      JSONObject spec = new JSONObject(earlier.toString());
      if (!Json.isNull(earlier.opt("extras")) && step.has("set")) {
        JSONObject extras = spec.getJSONObject("extras");
        JSONObject set = step.getJSONObject("set");
        for (String k : Json.keys(set)) extras.put(k, set.get(k));
      }
      spec.put("caller", step.optString("caller", earlier.optString("caller", "primary")));
      return spec;
    }

    private void step(int index, JSONObject step) throws StepFailed, TransportException, Values.UnboundVariable, JSONException {
      switch (step.getString("op")) {
        case "call":
          last = call(step);
          expectOk(index, step.get("expect"), last);
          return;
        case "repeat":
          last = call(callOf(step));
          expectOk(index, step.get("expect"), last);
          return;
        case "parallel":
          parallel(index, step);
          return;
        case "user":
          {
            JSONObject pi = last == null || last.optJSONObject("value") == null ? null : last.optJSONObject("value").optJSONObject("resolution");
            if (pi == null || !pi.optString("type").equals("pending_intent"))
              throw new TransportException("Error: a user step needs a reply with a resolution PendingIntent");
            transport.userAction(step.getString("answer"), pi.optString("handle"));
            return;
          }
        case "kill":
          transport.killProvider(step.optString("process", "main"));
          return;
        case "advance-clock":
          transport.advanceClock(step.getLong("ms"));
          return;
        case "read-fd":
          readFd(index, step);
          return;
        case "poll-until":
          pollUntil(index, step);
          return;
        default:
          throw new JSONException("unknown op " + step.optString("op"));
      }
    }

    private void parallel(int index, JSONObject step) throws StepFailed, TransportException, Values.UnboundVariable, JSONException {
      JSONObject spec = step.getJSONObject("call");
      int count = step.getInt("count");
      Object extras = spec.opt("extras");
      JSONObject resolved = Json.isNull(extras) ? null : Values.resolveExtras((JSONObject) extras, vars);
      Object arg = spec.opt("arg");
      List<JSONObject> replies = transport.parallel(count, spec.optString("caller", "primary"), spec.optString("method"),
          Json.isNull(arg) ? null : (String) arg, resolved);
      if (replies == null || replies.size() != count)
        throw new TransportBroke("the transport answered " + count + " parallel calls with " + (replies == null ? 0 : replies.size()) + " replies");
      List<JSONObject> actuals = new ArrayList<>();
      for (JSONObject r : replies) actuals.add(checkReply(r, spec.optString("method")));
      if (!actuals.isEmpty()) last = actuals.get(actuals.size() - 1);
      JSONArray groups = step.getJSONArray("expect");
      int[] left = new int[groups.length()];
      for (int g = 0; g < left.length; g++) left[g] = groups.getJSONObject(g).getInt("count");
      for (int n = 0; n < actuals.size(); n++) {
        int found = -1;
        for (int g = 0; g < left.length && found < 0; g++)
          if (left[g] > 0 && Matchers.match(groups.getJSONObject(g).get("reply"), actuals.get(n), vars).isEmpty()) found = g;
        if (found < 0)
          throw new StepFailed(Collections.singletonList(new Outcome.StepFailure(index, "$[" + n + "]",
              "an answer matches no expected group (or too many do)")));
        left[found]--;
      }
    }

    private void readFd(int index, JSONObject step) throws StepFailed, TransportException, JSONException {
      String key = step.getString("key");
      JSONObject fd = last == null || last.optJSONObject("value") == null ? null : last.optJSONObject("value").optJSONObject(key);
      if (fd == null || !fd.optString("type").equals("fd"))
        throw new StepFailed(Collections.singletonList(new Outcome.StepFailure(index, "$." + key, "no file descriptor in the reply")));
      byte[] bytes = transport.readFd(fd.optString("handle"));
      if (bytes == null) throw new TransportBroke("the transport read no bytes (null) from the file descriptor " + key);
      JSONObject got = new JSONObject().put("size", bytes.length).put("sha256", Corpus.sha256(bytes));
      List<Mismatch> m = Matchers.matchJsonValue(step.get("expect"), got, vars, "$." + key);
      if (!m.isEmpty()) throw StepFailed.of(index, m);
    }

    private void pollUntil(int index, JSONObject step) throws StepFailed, TransportException, Values.UnboundVariable, JSONException {
      int max = step.getInt("max_polls");
      for (int poll = 0; poll < max; poll++) {
        JSONObject reply = call(step.getJSONObject("call"));
        if (Matchers.match(step.get("until"), reply, new LinkedHashMap<>(vars)).isEmpty()) {
          last = reply;
          expectOk(index, step.get("expect"), reply);
          return;
        }
        transport.advanceClock(pollAfterMs(reply));
      }
      throw new StepFailed(Collections.singletonList(new Outcome.StepFailure(index, "$",
          "the condition did not hold within " + max + " polls")));
    }
  }

  /** The poll interval a reply asks for (data.poll_after_ms, 1..60000), else one second. */
  static long pollAfterMs(JSONObject reply) {
    JSONObject values = reply.optJSONObject("value");
    JSONObject data = values == null ? null : values.optJSONObject("data");
    if (data == null || !data.optString("type").equals("string")) return 1000;
    try {
      Object parsed = Json.parse(data.optString("value"));
      if (!(parsed instanceof JSONObject)) return 1000;
      Object ms = ((JSONObject) parsed).opt("poll_after_ms");
      if (ms instanceof Number && ((Number) ms).doubleValue() > 0 && ((Number) ms).doubleValue() <= 60000)
        return (long) Math.ceil(((Number) ms).doubleValue());
    } catch (JSONException e) {
      return 1000;
    }
    return 1000;
  }

  /** One consumer vector: the transport's harness runs the task; the runner judges what it saw. */
  private final class ConsumerSession {
    private final JSONObject vector;

    ConsumerSession(JSONObject vector) {
      this.vector = vector;
    }

    List<Outcome.StepFailure> run() throws UnsupportedAbility {
      Transport.ConsumerObservation seen;
      try {
        seen = transport.runConsumer(vector);
      } catch (UnsupportedAbility e) {
        throw e;
      } catch (TransportException e) {
        return Collections.singletonList(new Outcome.StepFailure(-1, "$", e.getMessage()));
      }
      if (seen == null || seen.requests == null || seen.launches == null)
        throw new TransportBroke("the consumer harness gave no observation");
      List<Outcome.StepFailure> failures = new ArrayList<>();
      Map<String, Object> vars = new LinkedHashMap<>();
      JSONObject requests = vector.optJSONObject("requests");
      List<String> methods = requests.length() > 0 ? Json.keys(requests) : new ArrayList<>(seen.requests.keySet());
      for (String method : methods) {
        List<JSONObject> sent = seen.requests.getOrDefault(method, Collections.emptyList());
        JSONArray expected = requests.optJSONArray(method);
        int n = expected == null ? 0 : expected.length();
        if (sent.size() != n) {
          failures.add(new Outcome.StepFailure(-1, "$.requests." + method, "sent " + sent.size() + ", expected " + n));
          continue;
        }
        for (int i = 0; i < n; i++)
          for (Mismatch m : Matchers.match(expected.opt(i), checkReply(sent.get(i), method + " request"), vars,
              "$.requests." + method + "[" + i + "]"))
            failures.add(new Outcome.StepFailure(-1, m.path, m.message));
      }
      List<String> launches = strings(vector.optJSONArray("launches"));
      if (!launches.equals(seen.launches))
        failures.add(new Outcome.StepFailure(-1, "$.launches", "opened " + seen.launches + ", expected " + launches));
      for (Mismatch m : Matchers.matchJsonValue(vector.opt("outcome"), seen.outcome, vars, "$.outcome"))
        failures.add(new Outcome.StepFailure(-1, m.path, m.message));
      return failures;
    }
  }

  private String claim(List<Outcome> outcomes, String profile) {
    List<Outcome> must = new ArrayList<>();
    for (Outcome o : outcomes)
      if (o.profile.equals(profile) && (o.level.equals("MUST") || o.level.equals("MUST NOT"))) must.add(o);
    for (Outcome o : must)
      if (o.status.equals("fail") || o.status.equals("xfail") || o.status.equals("stale") || o.status.equals("error"))
        return "not met";
    if (must.isEmpty()) return "unverified";
    for (Outcome o : must)
      if (o.status.equals("skip") && (o.reason == null || !o.reason.startsWith("deprecated"))) return "unverified";
    return "met";
  }

  private Summary summarize(List<Outcome> outcomes, Set<String> known) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String s : new String[] {"pass", "fail", "skip", "xfail", "stale", "error"}) counts.put(s, 0);
    for (Outcome o : outcomes) counts.merge(o.status, 1, Integer::sum);
    List<String> unknown = new ArrayList<>();
    for (String id : options.baseline.keySet()) if (!known.contains(id)) unknown.add(id);
    Map<String, String> claims = new LinkedHashMap<>();
    for (String p : options.profiles) claims.put(p, claim(outcomes, p));
    boolean ok = counts.get("fail") == 0 && counts.get("stale") == 0 && counts.get("error") == 0 && unknown.isEmpty();
    return new Summary(Collections.unmodifiableList(outcomes), counts, claims, unknown, ok);
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
