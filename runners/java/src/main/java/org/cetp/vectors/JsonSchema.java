package org.cetp.vectors;

import java.util.regex.PatternSyntaxException;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The JSON Schema keywords a vector's {"$match":"jsonSchema"} may use, validated without a
 * library (Android ships none): type, enum, const, properties, required, additionalProperties,
 * items (one schema), prefixItems, minItems, maxItems, uniqueItems, minLength, maxLength, pattern,
 * minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minProperties, maxProperties,
 * anyOf, oneOf, allOf, not, and the annotations ($schema, $id, title, description, default,
 * examples, $comment). Any other keyword ($ref, if/then/else, …) is reported as unsupported, so a
 * vector relying on it fails loudly instead of passing by accident.
 */
public final class JsonSchema {
  private JsonSchema() {}

  private static final java.util.Set<String> ANNOTATIONS =
      new java.util.HashSet<>(
          java.util.Arrays.asList("$schema", "$id", "title", "description", "default", "examples", "$comment", "format"));

  /** The first problem of value against schema ("/path message"), or null if it validates. */
  public static String validate(Object schema, Object value) {
    return check(schema, value, "");
  }

  private static String check(Object schema, Object value, String at) {
    if (Boolean.TRUE.equals(schema)) return null;
    if (Boolean.FALSE.equals(schema)) return at + " is not allowed";
    if (!(schema instanceof JSONObject)) return at + " unusable schema " + Json.show(schema);
    JSONObject s = (JSONObject) schema;
    for (String k : Json.keys(s)) {
      String problem = keyword(s, k, value, at);
      if (problem != null) return problem;
    }
    return null;
  }

  private static boolean typeIs(String type, Object v) {
    if (type.equals("integer")) return Json.isInteger(v);
    return Json.type(v).equals(type);
  }

  private static String keyword(JSONObject s, String k, Object v, String at) {
    Object arg = s.opt(k);
    switch (k) {
      case "type":
        {
          if (arg instanceof JSONArray) {
            JSONArray types = (JSONArray) arg;
            for (int i = 0; i < types.length(); i++) if (typeIs(types.optString(i), v)) return null;
            java.util.List<String> names = new java.util.ArrayList<>();
            for (int i = 0; i < types.length(); i++) names.add(types.optString(i));
            return at + " must be " + String.join(",", names);
          }
          return typeIs(String.valueOf(arg), v) ? null : at + " must be " + arg;
        }
      case "enum":
        {
          JSONArray values = (JSONArray) arg;
          for (int i = 0; i < values.length(); i++) if (Json.deepEquals(values.opt(i), v)) return null;
          return at + " must be equal to one of the allowed values";
        }
      case "const":
        return Json.deepEquals(arg, v) ? null : at + " must be equal to constant";
      case "properties":
        {
          if (!(v instanceof JSONObject)) return null;
          JSONObject props = (JSONObject) arg;
          JSONObject o = (JSONObject) v;
          for (String p : Json.keys(props))
            if (o.has(p)) {
              String problem = check(props.opt(p), o.opt(p), at + "/" + p);
              if (problem != null) return problem;
            }
          return null;
        }
      case "required":
        {
          if (!(v instanceof JSONObject)) return null;
          JSONArray req = (JSONArray) arg;
          for (int i = 0; i < req.length(); i++)
            if (!((JSONObject) v).has(req.optString(i)))
              return at + " must have required property '" + req.optString(i) + "'";
          return null;
        }
      case "additionalProperties":
        {
          if (!(v instanceof JSONObject)) return null;
          JSONObject props = s.optJSONObject("properties");
          JSONObject o = (JSONObject) v;
          for (String p : Json.keys(o))
            if (props == null || !props.has(p)) {
              String problem = check(arg, o.opt(p), at + "/" + p);
              if (problem != null)
                return Boolean.FALSE.equals(arg) ? at + " must NOT have additional property '" + p + "'" : problem;
            }
          return null;
        }
      case "minProperties":
        return v instanceof JSONObject && ((JSONObject) v).length() < ((Number) arg).intValue()
            ? at + " must NOT have fewer than " + arg + " properties"
            : null;
      case "maxProperties":
        return v instanceof JSONObject && ((JSONObject) v).length() > ((Number) arg).intValue()
            ? at + " must NOT have more than " + arg + " properties"
            : null;
      case "items":
        {
          if (!(v instanceof JSONArray)) return null;
          JSONArray a = (JSONArray) v;
          JSONArray prefix = s.optJSONArray("prefixItems");
          for (int i = prefix == null ? 0 : prefix.length(); i < a.length(); i++) {
            String problem = check(arg, a.opt(i), at + "/" + i);
            if (problem != null) return problem;
          }
          return null;
        }
      case "prefixItems":
        {
          if (!(v instanceof JSONArray)) return null;
          JSONArray a = (JSONArray) v;
          JSONArray schemas = (JSONArray) arg;
          for (int i = 0; i < Math.min(a.length(), schemas.length()); i++) {
            String problem = check(schemas.opt(i), a.opt(i), at + "/" + i);
            if (problem != null) return problem;
          }
          return null;
        }
      case "minItems":
        return v instanceof JSONArray && ((JSONArray) v).length() < ((Number) arg).intValue()
            ? at + " must NOT have fewer than " + arg + " items"
            : null;
      case "maxItems":
        return v instanceof JSONArray && ((JSONArray) v).length() > ((Number) arg).intValue()
            ? at + " must NOT have more than " + arg + " items"
            : null;
      case "uniqueItems":
        {
          if (!(v instanceof JSONArray) || !Boolean.TRUE.equals(arg)) return null;
          JSONArray a = (JSONArray) v;
          for (int i = 0; i < a.length(); i++)
            for (int j = i + 1; j < a.length(); j++)
              if (Json.deepEquals(a.opt(i), a.opt(j))) return at + " must NOT have duplicate items";
          return null;
        }
      case "minLength":
        return v instanceof String && ((String) v).codePointCount(0, ((String) v).length()) < ((Number) arg).intValue()
            ? at + " must NOT have fewer than " + arg + " characters"
            : null;
      case "maxLength":
        return v instanceof String && ((String) v).codePointCount(0, ((String) v).length()) > ((Number) arg).intValue()
            ? at + " must NOT have more than " + arg + " characters"
            : null;
      case "pattern":
        {
          if (!(v instanceof String)) return null;
          try {
            return java.util.regex.Pattern.compile(String.valueOf(arg)).matcher((String) v).find()
                ? null
                : at + " must match pattern \"" + arg + "\"";
          } catch (PatternSyntaxException e) {
            return at + " has an invalid pattern " + arg;
          }
        }
      case "minimum":
        return v instanceof Number && ((Number) v).doubleValue() < ((Number) arg).doubleValue()
            ? at + " must be >= " + arg
            : null;
      case "maximum":
        return v instanceof Number && ((Number) v).doubleValue() > ((Number) arg).doubleValue()
            ? at + " must be <= " + arg
            : null;
      case "exclusiveMinimum":
        return v instanceof Number && ((Number) v).doubleValue() <= ((Number) arg).doubleValue()
            ? at + " must be > " + arg
            : null;
      case "exclusiveMaximum":
        return v instanceof Number && ((Number) v).doubleValue() >= ((Number) arg).doubleValue()
            ? at + " must be < " + arg
            : null;
      case "multipleOf":
        {
          if (!(v instanceof Number)) return null;
          double q = ((Number) v).doubleValue() / ((Number) arg).doubleValue();
          return Math.abs(q - Math.rint(q)) < 1e-9 ? null : at + " must be multiple of " + arg;
        }
      case "anyOf":
        {
          JSONArray of = (JSONArray) arg;
          for (int i = 0; i < of.length(); i++) if (check(of.opt(i), v, at) == null) return null;
          return at + " must match a schema in anyOf";
        }
      case "oneOf":
        {
          JSONArray of = (JSONArray) arg;
          int n = 0;
          for (int i = 0; i < of.length(); i++) if (check(of.opt(i), v, at) == null) n++;
          return n == 1 ? null : at + " must match exactly one schema in oneOf";
        }
      case "allOf":
        {
          JSONArray of = (JSONArray) arg;
          for (int i = 0; i < of.length(); i++) {
            String problem = check(of.opt(i), v, at);
            if (problem != null) return problem;
          }
          return null;
        }
      case "not":
        return check(arg, v, at) == null ? at + " must NOT be valid" : null;
      default:
        if (ANNOTATIONS.contains(k)) return null;
        return at + " uses the JSON Schema keyword '" + k + "', which this runner does not support";
    }
  }
}
