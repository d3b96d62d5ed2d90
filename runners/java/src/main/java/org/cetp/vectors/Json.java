package org.cetp.vectors;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;

/**
 * JSON helpers over org.json (Android's own implementation on the JVM): JavaScript-like equality,
 * JSON type names, parsing any JSON text, and printing values for messages. "Absent" is Java
 * {@code null}; a JSON null is {@link JSONObject#NULL}.
 */
public final class Json {
  private Json() {}

  /** Parses any JSON text (object, array, string, number, boolean, null). */
  public static Object parse(String text) throws JSONException {
    JSONTokener tokener = new JSONTokener(text);
    Object value = tokener.nextValue();
    if (tokener.more()) {
      // Trailing characters after the value (whitespace is skipped by more()/nextClean).
      char c = tokener.nextClean();
      if (c != 0) throw new JSONException("unexpected text after the JSON value");
    }
    if (value instanceof String && !text.trim().startsWith("\"")) {
      // JSONTokener accepts unquoted words as strings; JSON.parse does not.
      throw new JSONException("not JSON: " + abbreviate(text));
    }
    return value;
  }

  /** The keys of an object in document order. */
  public static List<String> keys(JSONObject o) {
    List<String> keys = new ArrayList<>();
    for (Iterator<String> it = o.keys(); it.hasNext(); ) keys.add(it.next());
    return keys;
  }

  public static boolean isNull(Object v) {
    return v == JSONObject.NULL || (v != null && v.equals(null));
  }

  /** The JSON type of a value: null, array, object, string, number, boolean (undefined: absent). */
  public static String type(Object v) {
    if (v == null) return "undefined";
    if (isNull(v)) return "null";
    if (v instanceof JSONArray) return "array";
    if (v instanceof JSONObject) return "object";
    if (v instanceof String) return "string";
    if (v instanceof Number) return "number";
    if (v instanceof Boolean) return "boolean";
    return "object";
  }

  public static boolean isInteger(Object v) {
    if (!(v instanceof Number)) return false;
    double d = ((Number) v).doubleValue();
    return !Double.isNaN(d) && !Double.isInfinite(d) && d == Math.rint(d);
  }

  /** Deep equality as JavaScript's isDeepStrictEqual sees parsed JSON (1 equals 1.0). */
  public static boolean deepEquals(Object a, Object b) {
    if (a == null || b == null) return a == b;
    if (isNull(a) || isNull(b)) return isNull(a) && isNull(b);
    if (a instanceof Number && b instanceof Number)
      return ((Number) a).doubleValue() == ((Number) b).doubleValue();
    if (a instanceof JSONArray && b instanceof JSONArray) {
      JSONArray x = (JSONArray) a;
      JSONArray y = (JSONArray) b;
      if (x.length() != y.length()) return false;
      for (int i = 0; i < x.length(); i++) if (!deepEquals(x.opt(i), y.opt(i))) return false;
      return true;
    }
    if (a instanceof JSONObject && b instanceof JSONObject) {
      JSONObject x = (JSONObject) a;
      JSONObject y = (JSONObject) b;
      if (x.length() != y.length()) return false;
      for (String k : keys(x)) if (!y.has(k) || !deepEquals(x.opt(k), y.opt(k))) return false;
      return true;
    }
    return a.equals(b);
  }

  /** A value as JSON text (strings quoted), for messages. */
  public static String show(Object v) {
    String s;
    if (v == null) s = "undefined";
    else if (v instanceof String) s = JSONObject.quote((String) v);
    else s = String.valueOf(v);
    return abbreviate(s);
  }

  static String abbreviate(String s) {
    return s.length() > 120 ? s.substring(0, 117) + "..." : s;
  }

  /** A deep copy of an object without one key. */
  public static JSONObject without(JSONObject o, String key) {
    JSONObject copy = new JSONObject();
    for (String k : keys(o)) {
      if (!k.equals(key)) {
        try {
          copy.put(k, o.opt(k));
        } catch (JSONException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return copy;
  }
}
