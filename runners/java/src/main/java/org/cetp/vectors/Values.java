package org.cetp.vectors;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Sent values: resolving variables ({"type":"string","ref":V}) and composed strings
 * ({"type":"string","parts":[…]}) against the run's variables, leaving
 * {"type":"long","now_plus_ms":N} for the device's clock, and the Java types a set of extras uses.
 */
public final class Values {
  private Values() {}

  /** A variable a value refers to is not bound (a capture that never happened). */
  public static final class UnboundVariable extends Exception {
    private static final long serialVersionUID = 1L;

    UnboundVariable(String name) {
      super("UnboundVariable: variable '" + name + "' is not bound");
    }
  }

  /** A bound value as text, as JavaScript's String(v) gives it (5, not 5.0). */
  static String text(Object v) {
    if (v instanceof Number && Json.isInteger(v) && Math.abs(((Number) v).doubleValue()) < 9.007199254740992E15)
      return String.valueOf(((Number) v).longValue());
    if (Json.isNull(v)) return "null";
    return String.valueOf(v);
  }

  private static Object lookup(Map<String, Object> vars, String name) throws UnboundVariable {
    if (!vars.containsKey(name)) throw new UnboundVariable(name);
    return vars.get(name);
  }

  /** extras with every variable resolved (null stays null). */
  public static JSONObject resolveExtras(JSONObject extras, Map<String, Object> vars) throws UnboundVariable {
    if (extras == null) return null;
    JSONObject out = new JSONObject();
    try {
      for (String key : Json.keys(extras)) out.put(key, resolve(extras.getJSONObject(key), vars));
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  static JSONObject resolve(JSONObject v, Map<String, Object> vars) throws UnboundVariable, JSONException {
    String type = v.getString("type");
    if (v.has("ref")) return new JSONObject().put("type", "string").put("value", text(lookup(vars, v.getString("ref"))));
    if (v.has("parts")) {
      StringBuilder s = new StringBuilder();
      JSONArray parts = v.getJSONArray("parts");
      for (int i = 0; i < parts.length(); i++) {
        Object p = parts.get(i);
        s.append(p instanceof String ? (String) p : text(lookup(vars, ((JSONObject) p).getString("ref"))));
      }
      return new JSONObject().put("type", "string").put("value", s.toString());
    }
    if (type.equals("bundle")) return new JSONObject().put("type", "bundle").put("value", resolveExtras(v.getJSONObject("value"), vars));
    return new JSONObject(v.toString());
  }

  /** The Java types of the values in extras (nested bundles included). */
  public static Set<String> typesOf(JSONObject extras) {
    Set<String> types = new TreeSet<>();
    if (extras == null) return types;
    for (String key : Json.keys(extras)) {
      JSONObject v = extras.optJSONObject(key);
      if (v == null) continue;
      types.add(v.optString("type"));
      if (v.optString("type").equals("bundle") && v.optJSONObject("value") != null)
        types.addAll(typesOf(v.optJSONObject("value")));
    }
    return types;
  }
}
