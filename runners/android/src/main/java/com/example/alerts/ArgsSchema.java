package com.example.alerts;

import java.util.Iterator;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Checks a tool's args against its input schema (JSON Schema 2020-12), for the keywords the alerts
 * tools use: type, properties, required, additionalProperties=false, minLength, maxLength,
 * pattern, exclusiveMinimum. Returns the first issue, in the words JSON Schema validators use
 * ("args: must have required property 'symbol'"), or null. Use a full validator if your schemas
 * need more.
 */
public final class ArgsSchema {
  private ArgsSchema() {}

  public static String firstIssue(JSONObject schema, Object value) {
    return check(schema, value, "args");
  }

  private static String check(JSONObject schema, Object value, String at) {
    String type = schema.optString("type", null);
    if (type != null && !hasType(value, type)) return at + ": must be " + type;
    if (value instanceof JSONObject) {
      JSONObject obj = (JSONObject) value;
      JSONArray required = schema.optJSONArray("required");
      for (int i = 0; required != null && i < required.length(); i++)
        if (!obj.has(required.optString(i))) return at + ": must have required property '" + required.optString(i) + "'";
      JSONObject props = schema.optJSONObject("properties");
      for (Iterator<String> keys = obj.keys(); keys.hasNext(); ) {
        String key = keys.next();
        JSONObject sub = props == null ? null : props.optJSONObject(key);
        if (sub == null) {
          if (!schema.optBoolean("additionalProperties", true)) return at + ": must NOT have additional properties";
          continue;
        }
        String issue = check(sub, obj.opt(key), at + "/" + key);
        if (issue != null) return issue;
      }
    }
    if (value instanceof String) {
      String s = (String) value;
      int length = s.codePointCount(0, s.length());
      if (schema.has("minLength") && length < schema.optInt("minLength"))
        return at + ": must NOT have fewer than " + schema.optInt("minLength") + " characters";
      if (schema.has("maxLength") && length > schema.optInt("maxLength"))
        return at + ": must NOT have more than " + schema.optInt("maxLength") + " characters";
      if (schema.has("pattern") && !java.util.regex.Pattern.compile(schema.optString("pattern")).matcher(s).find())
        return at + ": must match pattern \"" + schema.optString("pattern") + "\"";
    }
    if (value instanceof Number && schema.has("exclusiveMinimum")
        && ((Number) value).doubleValue() <= schema.optDouble("exclusiveMinimum"))
      return at + ": must be > " + schema.opt("exclusiveMinimum");
    return null;
  }

  private static boolean hasType(Object v, String type) {
    switch (type) {
      case "object": return v instanceof JSONObject;
      case "array": return v instanceof JSONArray;
      case "string": return v instanceof String;
      case "number": return v instanceof Number;
      case "integer": return v instanceof Integer || v instanceof Long;
      case "boolean": return v instanceof Boolean;
      default: return v == JSONObject.NULL;
    }
  }
}
