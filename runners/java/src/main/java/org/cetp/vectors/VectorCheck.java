package org.cetp.vectors;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Checks one vector against the format before it runs (the checks of
 * vectors/schemas/*.schema.json a runner needs, plus a repeat of an earlier call and regexes that
 * compile), so a malformed vector is one error naming its JSON path instead of a crash mid-run.
 */
public final class VectorCheck {
  private VectorCheck() {}

  static final Set<String> LEVELS = set("MUST", "MUST NOT", "SHOULD", "MAY");
  static final Set<String> RESULTS = set("valid", "invalid", "acceptable");
  static final Set<String> ABILITIES =
      set("core", "async_operations", "cancellation", "large_results", "user-action", "process-kill",
          "clock-control", "second-uid", "resign");
  static final Set<String> OPS = set("call", "repeat", "parallel", "user", "kill", "advance-clock", "read-fd", "poll-until");
  static final Set<String> ANSWERS = set("approve", "deny", "back", "never");
  /** A kill step's process (src/vectors/format.ts KILL_TARGETS). */
  static final Set<String> KILL_PROCESSES = set("main", "provider");
  static final Set<String> SEND_TYPES =
      set("int", "long", "boolean", "double", "float", "string", "bytes", "string[]", "int[]", "long[]", "bundle", "null", "fd");
  private static final Pattern ID = Pattern.compile("^[a-z0-9][a-z0-9-]{1,63}$");
  private static final Pattern NAME = Pattern.compile("^[a-z_][a-z0-9_]{0,63}$");
  private static final Pattern LONG = Pattern.compile("^-?[0-9]{1,19}$");
  private static final Pattern SHA = Pattern.compile("^[0-9a-f]{64}$");

  private static Set<String> set(String... values) {
    return new HashSet<>(Arrays.asList(values));
  }

  private static VectorFormatException bad(String path, String message) {
    return new VectorFormatException(path, message);
  }

  private static JSONObject object(Object v, String path) throws VectorFormatException {
    if (!(v instanceof JSONObject)) throw bad(path, "must be an object, got " + Json.show(v));
    return (JSONObject) v;
  }

  private static JSONArray array(Object v, String path) throws VectorFormatException {
    if (!(v instanceof JSONArray)) throw bad(path, "must be an array, got " + Json.show(v));
    return (JSONArray) v;
  }

  private static String string(JSONObject o, String key, String path) throws VectorFormatException {
    Object v = o.opt(key);
    if (!(v instanceof String)) throw bad(path + "." + key, v == null ? "is missing" : "must be a string");
    return (String) v;
  }

  private static long integer(JSONObject o, String key, String path, long min) throws VectorFormatException {
    Object v = o.opt(key);
    if (!Json.isInteger(v)) throw bad(path + "." + key, v == null ? "is missing" : "must be an integer");
    long n = ((Number) v).longValue();
    if (n < min) throw bad(path + "." + key, "must be >= " + min);
    return n;
  }

  private static void strings(JSONObject o, String key, String path, Set<String> allowed) throws VectorFormatException {
    JSONArray a = array(o.opt(key), path + "." + key);
    for (int i = 0; i < a.length(); i++) {
      if (!(a.opt(i) instanceof String)) throw bad(path + "." + key + "[" + i + "]", "must be a string");
      if (allowed != null && !allowed.contains(a.optString(i)))
        throw bad(path + "." + key + "[" + i + "]", "unknown value '" + a.optString(i) + "'");
    }
  }

  private static void oneOf(JSONObject o, String key, String path, Set<String> allowed) throws VectorFormatException {
    String v = string(o, key, path);
    if (!allowed.contains(v)) throw bad(path + "." + key, "must be one of " + new java.util.TreeSet<>(allowed) + ", got '" + v + "'");
  }

  /** The header every vector has (id, title, level, result, rules, flags, requires, deprecated). */
  private static void header(JSONObject v, String at) throws VectorFormatException {
    String id = string(v, "id", at);
    if (!ID.matcher(id).matches()) throw bad(at + ".id", "not a vector id: " + id);
    string(v, "title", at);
    string(v, "since", at);
    oneOf(v, "level", at, LEVELS);
    oneOf(v, "result", at, RESULTS);
    strings(v, "rules", at, null);
    strings(v, "flags", at, null);
    strings(v, "requires", at, ABILITIES);
    if (v.has("deprecated")) {
      JSONObject d = object(v.opt("deprecated"), at + ".deprecated");
      string(d, "since", at + ".deprecated");
      string(d, "reason", at + ".deprecated");
    }
  }

  /** A provider vector. */
  public static void provider(JSONObject v, String at) throws VectorFormatException {
    header(v, at);
    string(v, "provider", at);
    strings(v, "fresh", at, null);
    JSONArray steps = array(v.opt("steps"), at + ".steps");
    if (steps.length() == 0) throw bad(at + ".steps", "must have at least one step");
    for (int i = 0; i < steps.length(); i++) step(steps, i, at + ".steps[" + i + "]");
  }

  private static void callSpec(JSONObject c, String at) throws VectorFormatException {
    if (c.has("caller")) oneOf(c, "caller", at, set("primary", "second"));
    if (string(c, "method", at).isEmpty()) throw bad(at + ".method", "must not be empty");
    if (!c.has("arg")) throw bad(at + ".arg", "is missing");
    Object arg = c.opt("arg");
    if (!(arg instanceof String) && !Json.isNull(arg)) throw bad(at + ".arg", "must be a string or null");
    if (!c.has("extras")) throw bad(at + ".extras", "is missing");
    if (!Json.isNull(c.opt("extras"))) sendValues(object(c.opt("extras"), at + ".extras"), at + ".extras");
  }

  private static void step(JSONArray steps, int i, String at) throws VectorFormatException {
    JSONObject s = object(steps.opt(i), at);
    String op = string(s, "op", at);
    switch (op) {
      case "call":
        callSpec(s, at);
        expect(s.opt("expect"), at + ".expect");
        return;
      case "repeat":
        {
          long n = integer(s, "step", at, 0);
          if (n >= i) throw bad(at + ".step", "repeats a later step");
          JSONObject earlier = steps.optJSONObject((int) n);
          if (earlier == null || !"call".equals(earlier.optString("op")))
            throw bad(at + ".step", "repeats step " + n + ", which is not an earlier call");
          if (s.has("set")) sendValues(object(s.opt("set"), at + ".set"), at + ".set");
          if (s.has("caller")) oneOf(s, "caller", at, set("primary", "second"));
          expect(s.opt("expect"), at + ".expect");
          return;
        }
      case "parallel":
        {
          integer(s, "count", at, 1);
          callSpec(object(s.opt("call"), at + ".call"), at + ".call");
          JSONArray groups = array(s.opt("expect"), at + ".expect");
          for (int g = 0; g < groups.length(); g++) {
            JSONObject group = object(groups.opt(g), at + ".expect[" + g + "]");
            integer(group, "count", at + ".expect[" + g + "]", 1);
            expect(group.opt("reply"), at + ".expect[" + g + "].reply");
          }
          return;
        }
      case "user":
        oneOf(s, "answer", at, ANSWERS);
        return;
      case "kill":
        if (s.has("process")) oneOf(s, "process", at, KILL_PROCESSES);
        return;
      case "advance-clock":
        integer(s, "ms", at, 0);
        return;
      case "read-fd":
        {
          string(s, "key", at);
          JSONObject e = object(s.opt("expect"), at + ".expect");
          if (!e.has("size") || !e.has("sha256")) throw bad(at + ".expect", "needs size and sha256");
          if (!Json.isInteger(e.opt("size"))) matcher(object(e.opt("size"), at + ".expect.size"), at + ".expect.size", false);
          if (!(e.opt("sha256") instanceof String)) matcher(object(e.opt("sha256"), at + ".expect.sha256"), at + ".expect.sha256", false);
          return;
        }
      case "poll-until":
        callSpec(object(s.opt("call"), at + ".call"), at + ".call");
        expect(s.opt("until"), at + ".until");
        integer(s, "max_polls", at, 1);
        expect(s.opt("expect"), at + ".expect");
        return;
      default:
        throw bad(at + ".op", "unknown step op '" + op + "'; one of " + new java.util.TreeSet<>(OPS));
    }
  }

  static void sendValues(JSONObject values, String at) throws VectorFormatException {
    for (String key : Json.keys(values)) sendValue(values.opt(key), at + "." + key);
  }

  static void sendValue(Object value, String at) throws VectorFormatException {
    JSONObject v = object(value, at);
    String type = string(v, "type", at);
    if (type.equals("pending_intent")) {
      oneOf(v, "creator", at, set("provider", "other"));
      oneOf(v, "target", at, set("provider", "other", "implicit"));
      if (!(v.opt("immutable") instanceof Boolean)) throw bad(at + ".immutable", "must be a boolean");
      return;
    }
    if (!SEND_TYPES.contains(type)) throw bad(at + ".type", "unknown value type '" + type + "'");
    if (type.equals("string") && v.has("ref")) {
      if (!NAME.matcher(string(v, "ref", at)).matches()) throw bad(at + ".ref", "not a variable name");
      return;
    }
    if (type.equals("string") && v.has("parts")) {
      JSONArray parts = array(v.opt("parts"), at + ".parts");
      for (int i = 0; i < parts.length(); i++)
        if (!(parts.opt(i) instanceof String)) string(object(parts.opt(i), at + ".parts[" + i + "]"), "ref", at + ".parts[" + i + "]");
      return;
    }
    if (type.equals("long") && v.has("now_plus_ms")) {
      integer(v, "now_plus_ms", at, Long.MIN_VALUE);
      return;
    }
    if (type.equals("null")) return;
    if (type.equals("fd")) {
      if (!SHA.matcher(string(v, "sha256", at)).matches()) throw bad(at + ".sha256", "not a SHA-256");
      integer(v, "size", at, 0);
      return;
    }
    if (!v.has("value")) throw bad(at + ".value", "is missing");
    Object x = v.opt("value");
    switch (type) {
      case "int":
        if (!Json.isInteger(x) || ((Number) x).longValue() != ((Number) x).intValue()) throw bad(at + ".value", "must be a 32-bit integer");
        return;
      case "long":
        if (!(x instanceof String) || !LONG.matcher((String) x).matches()) throw bad(at + ".value", "must be a decimal string");
        return;
      case "boolean":
        if (!(x instanceof Boolean)) throw bad(at + ".value", "must be a boolean");
        return;
      case "double":
      case "float":
        if (!(x instanceof Number) && !set("NaN", "Infinity", "-Infinity").contains(String.valueOf(x)))
          throw bad(at + ".value", "must be a number, NaN, Infinity or -Infinity");
        return;
      case "string":
      case "bytes":
        if (!(x instanceof String)) throw bad(at + ".value", "must be a string");
        return;
      case "bundle":
        sendValues(object(x, at + ".value"), at + ".value");
        return;
      default:
        {
          JSONArray a = array(x, at + ".value");
          for (int i = 0; i < a.length(); i++) {
            Object item = a.opt(i);
            boolean ok = type.equals("int[]") ? Json.isInteger(item) : type.equals("string[]") ? item instanceof String
                : item instanceof String && LONG.matcher((String) item).matches();
            if (!ok) throw bad(at + ".value[" + i + "]", "not a " + type.replace("[]", ""));
          }
        }
    }
  }

  /** A matcher; typed: inside a Bundle expectation (anyOf branches are typed expectations). */
  static void matcher(JSONObject m, String at, boolean typed) throws VectorFormatException {
    Object name = m.opt("$match");
    if (!(name instanceof String) || !Arrays.asList(Matchers.NAMES).contains(name))
      throw bad(at + ".$match", "unknown matcher " + Json.show(name) + "; one of " + Arrays.toString(Matchers.NAMES));
    switch ((String) name) {
      case "type":
        string(m, "type", at);
        return;
      case "regex":
        try {
          Matchers.regex(string(m, "pattern", at));
        } catch (PatternSyntaxException e) {
          throw bad(at + ".pattern", "not a valid regex: " + m.optString("pattern"));
        }
        return;
      case "range":
        for (String k : new String[] {"min", "max"})
          if (m.has(k) && !(m.opt(k) instanceof Number)) throw bad(at + "." + k, "must be a number");
        return;
      case "oneOf":
        array(m.opt("values"), at + ".values");
        return;
      case "jsonSchema":
        if (!m.has("schema")) throw bad(at + ".schema", "is missing");
        return;
      case "capture":
        string(m, "as", at);
        return;
      case "ref":
        string(m, "name", at);
        return;
      case "anyOf":
        {
          JSONArray of = array(m.opt("of"), at + ".of");
          for (int i = 0; i < of.length(); i++) {
            if (typed) expect(of.opt(i), at + ".of[" + i + "]");
            else jsonExpect(of.opt(i), at + ".of[" + i + "]");
          }
          return;
        }
      default:
    }
  }

  /** A typed expectation (a Bundle value). */
  public static void expect(Object value, String at) throws VectorFormatException {
    if (value == null) throw bad(at, "is missing");
    JSONObject e = object(value, at);
    if (e.has("$match")) {
      matcher(e, at, true);
      return;
    }
    String type = string(e, "type", at);
    switch (type) {
      case "bundle":
        {
          JSONObject v = object(e.opt("value"), at + ".value");
          for (String k : Json.keys(v)) expect(v.opt(k), at + ".value." + k);
          return;
        }
      case "pending_intent":
        oneOf(e, "creator", at, set("provider", "other"));
        if (!(e.opt("immutable") instanceof Boolean)) throw bad(at + ".immutable", "must be a boolean");
        return;
      case "fd":
        if (!(e.opt("read_only") instanceof Boolean)) throw bad(at + ".read_only", "must be a boolean");
        return;
      case "string":
        if (e.has("json")) {
          jsonExpect(e.opt("json"), at + ".json");
          return;
        }
        sendValue(e, at);
        return;
      default:
        sendValue(e, at);
    }
  }

  /** A JSON expectation: any JSON, with matchers checked wherever they appear. */
  static void jsonExpect(Object e, String at) throws VectorFormatException {
    if (Matchers.isMatcher(e)) {
      matcher((JSONObject) e, at, false);
      return;
    }
    if (e instanceof JSONObject) for (String k : Json.keys((JSONObject) e)) jsonExpect(((JSONObject) e).opt(k), at + "." + k);
    if (e instanceof JSONArray) for (int i = 0; i < ((JSONArray) e).length(); i++) jsonExpect(((JSONArray) e).opt(i), at + "[" + i + "]");
  }

  /** A consumer vector. */
  public static void consumer(JSONObject v, String at) throws VectorFormatException {
    header(v, at);
    JSONObject p = object(v.opt("provider"), at + ".provider");
    array(p.opt("versions"), at + ".provider.versions");
    array(p.opt("tools"), at + ".provider.tools");
    JSONObject task = object(v.opt("task"), at + ".task");
    string(task, "tool", at + ".task");
    JSONArray replies = array(v.opt("replies"), at + ".replies");
    for (int i = 0; i < replies.length(); i++) {
      JSONObject r = object(replies.opt(i), at + ".replies[" + i + "]");
      string(r, "method", at + ".replies[" + i + "]");
      integer(r, "n", at + ".replies[" + i + "]", 1);
      sendValues(object(r.opt("reply"), at + ".replies[" + i + "].reply"), at + ".replies[" + i + "].reply");
    }
    JSONObject requests = object(v.opt("requests"), at + ".requests");
    for (String method : Json.keys(requests)) {
      JSONArray list = array(requests.opt(method), at + ".requests." + method);
      for (int i = 0; i < list.length(); i++) expect(list.opt(i), at + ".requests." + method + "[" + i + "]");
    }
    strings(v, "launches", at, set("provider", "other"));
    if (!v.has("outcome")) throw bad(at + ".outcome", "is missing");
    jsonExpect(v.opt("outcome"), at + ".outcome");
  }
}
