package org.cetp.vectors;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Matching a reply against a vector's expectation (vectors/README.md, "Values and matchers").
 * Expectations are a subset by default (a provider may add keys to a Bundle or a JSON object;
 * arrays match element by element); a leaf is a typed literal or one matcher of the closed set. A
 * Bundle string holding JSON is matched by its parsed content ({"type":"string","json":…}).
 * Captures bind only when the whole expectation matches, so a failed anyOf branch leaves no binding.
 *
 * <p>An actual Bundle value is in the vectors' tagged form: {"type":"int","value":5},
 * {"type":"bundle","value":{…}}, {"type":"pending_intent","creator":…,"immutable":…} and so on;
 * an absent value is Java null.
 */
public final class Matchers {
  private Matchers() {}

  static final String[] NAMES = {
    "any", "absent", "type", "regex", "uuid", "range", "oneOf", "sha256", "jsonSchema", "capture", "ref", "anyOf"
  };

  private static final Pattern UUID =
      Pattern.compile("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
  private static final Pattern SHA256 = Pattern.compile("^[0-9a-f]{64}$");
  private static final Pattern INTEGER_TEXT = Pattern.compile("^-?[0-9]+$");
  private static final Map<String, Pattern> PATTERNS = new HashMap<>();

  /** One attempt to match: the mismatches found and the captures it would bind. */
  static final class Attempt {
    final List<Mismatch> mismatches = new ArrayList<>();
    final Map<String, Object> bound = new LinkedHashMap<>();
    final Map<String, Object> vars;

    Attempt(Map<String, Object> vars) {
      this.vars = vars;
    }

    void fail(String path, String message) {
      mismatches.add(new Mismatch(path, message));
    }

    /** Runs body in a child attempt; keeps its bindings only if it matched. */
    boolean branch(java.util.function.Consumer<Attempt> body) {
      Map<String, Object> merged = new LinkedHashMap<>(vars);
      merged.putAll(bound);
      Attempt child = new Attempt(merged);
      body.accept(child);
      if (!child.mismatches.isEmpty()) return false;
      bound.putAll(child.bound);
      return true;
    }
  }

  public static boolean isMatcher(Object value) {
    return value instanceof JSONObject && ((JSONObject) value).has("$match");
  }

  /** A compiled whole-string regex (the pattern as written, anchored). */
  static Pattern regex(String pattern) throws PatternSyntaxException {
    synchronized (PATTERNS) {
      Pattern p = PATTERNS.get(pattern);
      if (p == null) {
        p = Pattern.compile("(?:" + pattern + ")", Pattern.UNICODE_CASE);
        PATTERNS.put(pattern, p);
      }
      return p;
    }
  }

  /** The JSON payload of a Bundle value, for matchers that look at the value itself. */
  static Object payload(JSONObject actual) {
    String type = actual.optString("type");
    if (actual.has("value") && !type.equals("bundle")) return actual.opt("value");
    if (type.equals("null")) return JSONObject.NULL;
    return Json.without(actual, "handle");
  }

  private static Double numeric(Object value) {
    if (value instanceof Number) return ((Number) value).doubleValue();
    if (value instanceof String && INTEGER_TEXT.matcher((String) value).matches())
      return Double.valueOf((String) value);
    return null;
  }

  private static String bound(JSONObject m, String key, String otherwise) {
    return m.has(key) ? String.valueOf(m.opt(key)) : otherwise;
  }

  private static void matchMatcher(
      JSONObject m,
      boolean present,
      Object value,
      Predicate<String> typeOk,
      String path,
      Attempt at,
      BiConsumer<Object, Attempt> again) {
    String name = m.optString("$match");
    if (name.equals("absent")) {
      if (present) at.fail(path, "expected no value, got " + Json.show(value));
      return;
    }
    if (!present) {
      at.fail(path, "missing (expected " + name + " matcher)");
      return;
    }
    String str = value instanceof String ? (String) value : null;
    switch (name) {
      case "any":
        return;
      case "type":
        if (!typeOk.test(m.optString("type")))
          at.fail(path, "expected type " + m.optString("type") + ", got " + Json.show(value));
        return;
      case "regex":
        {
          boolean ok;
          try {
            ok = str != null && regex(m.optString("pattern")).matcher(str).matches();
          } catch (PatternSyntaxException e) {
            at.fail(path, "not a valid regex: " + m.optString("pattern"));
            return;
          }
          if (!ok)
            at.fail(path, "expected a string matching /" + m.optString("pattern") + "/, got " + Json.show(value));
          return;
        }
      case "uuid":
        if (str == null || !UUID.matcher(str).matches()) at.fail(path, "expected a UUID, got " + Json.show(value));
        return;
      case "sha256":
        if (str == null || !SHA256.matcher(str).matches())
          at.fail(path, "expected a lowercase SHA-256 hex, got " + Json.show(value));
        return;
      case "range":
        {
          Double n = numeric(value);
          boolean below = m.has("min") && n != null && n < m.optDouble("min");
          boolean above = m.has("max") && n != null && n > m.optDouble("max");
          if (n == null || below || above)
            at.fail(
                path,
                "expected a number in ["
                    + bound(m, "min", "-∞")
                    + ", "
                    + bound(m, "max", "∞")
                    + "], got "
                    + Json.show(value));
          return;
        }
      case "oneOf":
        {
          JSONArray values = m.optJSONArray("values");
          boolean found = false;
          for (int i = 0; values != null && i < values.length(); i++)
            if (Json.deepEquals(values.opt(i), value)) found = true;
          if (!found) at.fail(path, "expected one of " + Json.show(values) + ", got " + Json.show(value));
          return;
        }
      case "jsonSchema":
        {
          Object json = value;
          if (str != null && typeOk.test("string")) {
            try {
              json = Json.parse(str);
            } catch (JSONException e) {
              at.fail(path, "expected JSON text");
              return;
            }
          }
          String problem = JsonSchema.validate(m.opt("schema"), json);
          if (problem != null) at.fail(path, "does not match the schema: " + problem);
          return;
        }
      case "capture":
        at.bound.put(m.optString("as"), value);
        return;
      case "ref":
        {
          String var = m.optString("name");
          boolean found = at.bound.containsKey(var) || at.vars.containsKey(var);
          Object v = at.bound.containsKey(var) ? at.bound.get(var) : at.vars.get(var);
          if (!found) at.fail(path, "variable '" + var + "' is not bound");
          else if (!Json.deepEquals(v, value))
            at.fail(path, "expected the value of '" + var + "' (" + Json.show(v) + "), got " + Json.show(value));
          return;
        }
      case "anyOf":
        {
          JSONArray of = m.optJSONArray("of");
          boolean any = false;
          for (int i = 0; of != null && i < of.length() && !any; i++) {
            Object e = of.opt(i);
            any = at.branch(child -> again.accept(e, child));
          }
          if (!any) at.fail(path, "matches none of the " + (of == null ? 0 : of.length()) + " allowed outcomes");
          return;
        }
      default:
        at.fail(path, "unknown matcher '" + name + "'");
    }
  }

  static boolean jsonTypeMatches(String type, Object value) {
    if (type.equals("integer")) return Json.isInteger(value);
    return Json.type(value).equals(type);
  }

  private static void matchJson(Object e, Object actual, boolean present, String path, Attempt at) {
    if (isMatcher(e)) {
      matchMatcher(
          (JSONObject) e,
          present,
          actual,
          t -> jsonTypeMatches(t, actual),
          path,
          at,
          (x, child) -> matchJson(x, actual, present, path, child));
      return;
    }
    if (!present) {
      at.fail(path, "missing (expected " + Json.show(e) + ")");
      return;
    }
    if (e instanceof JSONArray) {
      JSONArray ea = (JSONArray) e;
      if (!(actual instanceof JSONArray) || ((JSONArray) actual).length() != ea.length()) {
        at.fail(path, "expected an array of " + ea.length() + ", got " + Json.show(actual));
        return;
      }
      for (int i = 0; i < ea.length(); i++)
        matchJson(ea.opt(i), ((JSONArray) actual).opt(i), true, path + "[" + i + "]", at);
      return;
    }
    if (e instanceof JSONObject) {
      if (!(actual instanceof JSONObject)) {
        at.fail(path, "expected an object, got " + Json.show(actual));
        return;
      }
      JSONObject obj = (JSONObject) actual;
      JSONObject eo = (JSONObject) e;
      for (String k : Json.keys(eo)) matchJson(eo.opt(k), obj.opt(k), obj.has(k), path + "." + k, at);
      return;
    }
    if (!Json.deepEquals(e, actual)) at.fail(path, "expected " + Json.show(e) + ", got " + Json.show(actual));
  }

  private static void matchTyped(Object expect, JSONObject actual, String path, Attempt at) {
    if (isMatcher(expect)) {
      Object value = actual == null ? null : payload(actual);
      matchMatcher(
          (JSONObject) expect,
          actual != null,
          value,
          t -> actual != null && actual.optString("type").equals(t),
          path,
          at,
          (x, child) -> matchTyped(x, actual, path, child));
      return;
    }
    if (!(expect instanceof JSONObject)) {
      at.fail(path, "malformed expectation " + Json.show(expect));
      return;
    }
    JSONObject e = (JSONObject) expect;
    String type = e.optString("type");
    if (actual == null) {
      at.fail(path, "missing (expected " + type + ")");
      return;
    }
    String actualType = actual.optString("type");
    if (!actualType.equals(type)) {
      at.fail(path, "expected a " + type + ", got a " + actualType);
      return;
    }
    if (type.equals("bundle")) {
      JSONObject want = e.optJSONObject("value");
      JSONObject got = actual.optJSONObject("value");
      if (want == null) return;
      for (String k : Json.keys(want))
        matchTyped(want.opt(k), got == null ? null : got.optJSONObject(k), path + "." + k, at);
      return;
    }
    if (e.has("json")) {
      Object parsed;
      try {
        Object p = payload(actual);
        parsed = Json.parse(p instanceof String ? (String) p : String.valueOf(p));
      } catch (JSONException ex) {
        at.fail(path, "expected JSON text");
        return;
      }
      matchJson(e.opt("json"), parsed, true, path + "<json>", at);
      return;
    }
    for (String k : Json.keys(e)) {
      if (k.equals("type")) continue;
      Object v = e.opt(k);
      Object got = actual.opt(k);
      if (!Json.deepEquals(v, got))
        at.fail(path, "expected " + (k.equals("value") ? "" : k + " ") + Json.show(v) + ", got " + Json.show(got));
    }
  }

  /** Matches actual (null: absent) against a typed expectation; on success binds captures into vars. */
  public static List<Mismatch> match(Object expect, JSONObject actual, Map<String, Object> vars, String path) {
    Attempt at = new Attempt(vars);
    matchTyped(expect, actual, path, at);
    if (at.mismatches.isEmpty()) vars.putAll(at.bound);
    return at.mismatches;
  }

  public static List<Mismatch> match(Object expect, JSONObject actual, Map<String, Object> vars) {
    return match(expect, actual, vars, "$");
  }

  /** Matches a plain JSON value (null: absent) without binding anything. */
  public static List<Mismatch> matchJsonValue(Object expect, Object actual, Map<String, Object> vars, String path) {
    Attempt at = new Attempt(vars);
    matchJson(expect, actual, actual != null, path, at);
    return at.mismatches;
  }
}
