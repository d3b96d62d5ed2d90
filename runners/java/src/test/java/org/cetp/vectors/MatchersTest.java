package org.cetp.vectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONObject;
import org.junit.Test;

public class MatchersTest {
  static JSONObject j(String json) throws Exception {
    return new JSONObject(json);
  }

  static List<Mismatch> m(String expect, String actual, Map<String, Object> vars) throws Exception {
    return Matchers.match(Json.parse(expect), actual == null ? null : j(actual), vars, "$");
  }

  static boolean ok(String expect, String actual) throws Exception {
    return m(expect, actual, new HashMap<>()).isEmpty();
  }

  @Test
  public void typedLiteralsCompareTypeAndValue() throws Exception {
    assertTrue(ok("{\"type\":\"int\",\"value\":2}", "{\"type\":\"int\",\"value\":2}"));
    assertFalse(ok("{\"type\":\"int\",\"value\":2}", "{\"type\":\"int\",\"value\":3}"));
    assertFalse(ok("{\"type\":\"int\",\"value\":2}", "{\"type\":\"long\",\"value\":\"2\"}"));
    assertTrue(ok("{\"type\":\"long\",\"value\":\"9007199254740993\"}", "{\"type\":\"long\",\"value\":\"9007199254740993\"}"));
    assertFalse(ok("{\"type\":\"string\",\"value\":\"a\"}", null));
    assertTrue(ok("{\"type\":\"null\"}", "{\"type\":\"null\"}"));
    assertTrue(ok("{\"type\":\"int[]\",\"value\":[2,1]}", "{\"type\":\"int[]\",\"value\":[2,1]}"));
    assertFalse(ok("{\"type\":\"int[]\",\"value\":[2,1]}", "{\"type\":\"int[]\",\"value\":[2]}"));
  }

  @Test
  public void bundlesAreSubsetsAndPathsNameTheKey() throws Exception {
    String actual = "{\"type\":\"bundle\",\"value\":{\"status\":{\"type\":\"string\",\"value\":\"ok\"},\"extra\":{\"type\":\"int\",\"value\":1}}}";
    assertTrue(ok("{\"type\":\"bundle\",\"value\":{\"status\":{\"type\":\"string\",\"value\":\"ok\"}}}", actual));
    List<Mismatch> bad = m("{\"type\":\"bundle\",\"value\":{\"status\":{\"type\":\"string\",\"value\":\"error\"}}}", actual, new HashMap<>());
    assertEquals(1, bad.size());
    assertEquals("$.status", bad.get(0).path);
    List<Mismatch> missing = m("{\"type\":\"bundle\",\"value\":{\"code\":{\"type\":\"string\",\"value\":\"X\"}}}", actual, new HashMap<>());
    assertEquals("missing (expected string)", missing.get(0).message);
  }

  @Test
  public void jsonStringsMatchByParsedContent() throws Exception {
    String actual = "{\"type\":\"string\",\"value\":\"{\\\"a\\\":1,\\\"b\\\":[1,2],\\\"c\\\":\\\"x\\\"}\"}";
    assertTrue(ok("{\"type\":\"string\",\"json\":{\"a\":1,\"b\":[1,2]}}", actual));
    assertFalse(ok("{\"type\":\"string\",\"json\":{\"b\":[1]}}", actual));
    assertFalse(ok("{\"type\":\"string\",\"json\":{\"d\":{\"$match\":\"any\"}}}", actual));
    assertTrue(ok("{\"type\":\"string\",\"json\":{\"d\":{\"$match\":\"absent\"}}}", actual));
    assertTrue(ok("{\"type\":\"string\",\"json\":{\"a\":{\"$match\":\"type\",\"type\":\"integer\"}}}", actual));
    assertFalse(ok("{\"type\":\"string\",\"json\":{\"c\":{\"$match\":\"type\",\"type\":\"number\"}}}", actual));
    assertFalse(ok("{\"type\":\"string\",\"json\":{}}", "{\"type\":\"string\",\"value\":\"not json\"}"));
  }

  @Test
  public void everyMatcherCanPassAndFail() throws Exception {
    String s = "{\"type\":\"string\",\"value\":\"REQ-123\"}";
    assertTrue(ok("{\"$match\":\"any\"}", s));
    assertFalse(ok("{\"$match\":\"any\"}", null));
    assertTrue(ok("{\"$match\":\"absent\"}", null));
    assertFalse(ok("{\"$match\":\"absent\"}", s));
    assertTrue(ok("{\"$match\":\"type\",\"type\":\"string\"}", s));
    assertFalse(ok("{\"$match\":\"type\",\"type\":\"int\"}", s));
    assertTrue(ok("{\"$match\":\"regex\",\"pattern\":\"REQ-[0-9]+\"}", s));
    assertFalse(ok("{\"$match\":\"regex\",\"pattern\":\"REQ\"}", s)); // whole string
    assertTrue(ok("{\"$match\":\"uuid\"}", "{\"type\":\"string\",\"value\":\"123e4567-e89b-12d3-a456-426614174000\"}"));
    assertFalse(ok("{\"$match\":\"uuid\"}", s));
    assertTrue(ok("{\"$match\":\"sha256\"}", "{\"type\":\"string\",\"value\":\"" + "ab".repeat(32) + "\"}"));
    assertFalse(ok("{\"$match\":\"sha256\"}", "{\"type\":\"string\",\"value\":\"" + "AB".repeat(32) + "\"}"));
    assertTrue(ok("{\"$match\":\"range\",\"min\":1,\"max\":5}", "{\"type\":\"long\",\"value\":\"3\"}"));
    assertFalse(ok("{\"$match\":\"range\",\"min\":1,\"max\":5}", "{\"type\":\"int\",\"value\":6}"));
    assertFalse(ok("{\"$match\":\"range\",\"min\":1}", s));
    assertTrue(ok("{\"$match\":\"oneOf\",\"values\":[\"A\",\"REQ-123\"]}", s));
    assertFalse(ok("{\"$match\":\"oneOf\",\"values\":[\"A\"]}", s));
    assertTrue(ok("{\"$match\":\"jsonSchema\",\"schema\":{\"type\":\"object\",\"required\":[\"a\"]}}", "{\"type\":\"string\",\"value\":\"{\\\"a\\\":1}\"}"));
    assertFalse(ok("{\"$match\":\"jsonSchema\",\"schema\":{\"type\":\"object\",\"required\":[\"b\"]}}", "{\"type\":\"string\",\"value\":\"{\\\"a\\\":1}\"}"));
    assertTrue(ok("{\"$match\":\"anyOf\",\"of\":[{\"type\":\"int\",\"value\":1},{\"$match\":\"type\",\"type\":\"string\"}]}", s));
    assertFalse(ok("{\"$match\":\"anyOf\",\"of\":[{\"type\":\"int\",\"value\":1}]}", s));
  }

  @Test
  public void capturesBindOnlyWhenTheWholeExpectationMatches() throws Exception {
    Map<String, Object> vars = new HashMap<>();
    String actual = "{\"type\":\"bundle\",\"value\":{\"id\":{\"type\":\"string\",\"value\":\"op-1\"},\"status\":{\"type\":\"string\",\"value\":\"error\"}}}";
    String failing = "{\"type\":\"bundle\",\"value\":{\"id\":{\"$match\":\"capture\",\"as\":\"op\"},\"status\":{\"type\":\"string\",\"value\":\"ok\"}}}";
    assertFalse(m(failing, actual, vars).isEmpty());
    assertFalse(vars.containsKey("op"));
    String passing = "{\"type\":\"bundle\",\"value\":{\"id\":{\"$match\":\"capture\",\"as\":\"op\"}}}";
    assertTrue(m(passing, actual, vars).isEmpty());
    assertEquals("op-1", vars.get("op"));
    assertTrue(m("{\"type\":\"bundle\",\"value\":{\"id\":{\"$match\":\"ref\",\"name\":\"op\"}}}", actual, vars).isEmpty());
    vars.put("op", "op-2");
    assertFalse(m("{\"type\":\"bundle\",\"value\":{\"id\":{\"$match\":\"ref\",\"name\":\"op\"}}}", actual, vars).isEmpty());
    assertEquals("variable 'nope' is not bound",
        m("{\"$match\":\"ref\",\"name\":\"nope\"}", "{\"type\":\"string\",\"value\":\"x\"}", vars).get(0).message);
  }

  @Test
  public void aFailedAnyOfBranchLeavesNoBinding() throws Exception {
    Map<String, Object> vars = new HashMap<>();
    String actual = "{\"type\":\"string\",\"value\":\"{\\\"a\\\":1,\\\"b\\\":2}\"}";
    String e = "{\"type\":\"string\",\"json\":{\"$match\":\"anyOf\",\"of\":["
        + "{\"a\":{\"$match\":\"capture\",\"as\":\"first\"},\"c\":1},"
        + "{\"b\":{\"$match\":\"capture\",\"as\":\"second\"}}]}}";
    assertTrue(m(e, actual, vars).isEmpty());
    assertFalse(vars.containsKey("first"));
    assertEquals(2, vars.get("second"));
  }

  @Test
  public void pendingIntentsAndFdsCompareTheirProperties() throws Exception {
    String pi = "{\"type\":\"pending_intent\",\"creator\":\"provider\",\"immutable\":true,\"handle\":\"pi:1\"}";
    assertTrue(ok("{\"type\":\"pending_intent\",\"creator\":\"provider\",\"immutable\":true}", pi));
    assertFalse(ok("{\"type\":\"pending_intent\",\"creator\":\"other\",\"immutable\":true}", pi));
    assertFalse(ok("{\"type\":\"pending_intent\",\"creator\":\"provider\",\"immutable\":false}", pi));
    assertTrue(ok("{\"type\":\"fd\",\"read_only\":true}", "{\"type\":\"fd\",\"read_only\":true,\"handle\":\"fd:1\"}"));
    assertFalse(ok("{\"type\":\"fd\",\"read_only\":true}", "{\"type\":\"fd\",\"read_only\":false,\"handle\":\"fd:1\"}"));
  }

  @Test
  public void jsonSchemaSubsetRejectsWhatItCannotCheck() throws Exception {
    assertEquals(null, JsonSchema.validate(j("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":1}"), Json.parse("[1,2]")));
    assertTrue(JsonSchema.validate(j("{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}"), Json.parse("[1,\"x\"]")) != null);
    assertTrue(JsonSchema.validate(j("{\"properties\":{\"a\":{\"enum\":[1,2]}},\"additionalProperties\":false}"), Json.parse("{\"a\":1,\"b\":0}")) != null);
    assertTrue(JsonSchema.validate(j("{\"$ref\":\"#/x\"}"), Json.parse("1")).contains("does not support"));
    assertTrue(JsonSchema.validate(j("{\"oneOf\":[{\"type\":\"number\"},{\"type\":\"integer\"}]}"), Json.parse("1")) != null);
    assertEquals(null, JsonSchema.validate(j("{\"not\":{\"type\":\"string\"},\"minimum\":0}"), Json.parse("3")));
  }

  @Test
  public void parseRefusesWhatJsonParseRefuses() {
    for (String bad : new String[] {"not json", "{\"a\":1} x", "{'a':1", ""}) {
      try {
        Json.parse(bad);
        throw new AssertionError("parsed " + bad);
      } catch (org.json.JSONException expected) {
        // ok
      }
    }
  }
}
