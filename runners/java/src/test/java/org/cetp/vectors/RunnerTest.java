package org.cetp.vectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.json.JSONObject;
import org.junit.Test;
import org.w3c.dom.Document;

public class RunnerTest {
  static final String OK = "{\"type\":\"bundle\",\"value\":{\"status\":{\"type\":\"string\",\"value\":\"ok\"}}}";
  static final String CALL_OK = "{\"op\":\"call\",\"method\":\"m\",\"arg\":null,\"extras\":null,\"expect\":" + OK + "}";

  static Runner.Summary run(FakeTransport t, Runner.Options o, String... vectors) throws Exception {
    Corpus c = new TestCorpus().file("t/t.json", TestCorpus.vectorFile(vectors)).load();
    return new Runner(t, o).run(c);
  }

  static Runner.Summary run(FakeTransport t, String... vectors) throws Exception {
    return run(t, new Runner.Options(), vectors);
  }

  static Map<String, String> statuses(Runner.Summary s) {
    Map<String, String> m = new LinkedHashMap<>();
    for (Outcome o : s.outcomes) m.put(o.id, o.status);
    return m;
  }

  @Test
  public void aConformingProviderPassesAndABrokenOneFails() throws Exception {
    FakeTransport good = new FakeTransport();
    Runner.Summary s = run(good, TestCorpus.vector("v-ok", "[\"core\"]", "[" + CALL_OK + "]"));
    assertEquals("pass", s.outcomes.get(0).status);
    assertTrue(s.ok);
    assertEquals("met", s.claims.get("core"));

    FakeTransport broken = new FakeTransport();
    broken.answers.put("m", new JSONObject("{\"type\":\"bundle\",\"value\":{\"status\":{\"type\":\"string\",\"value\":\"error\"}}}"));
    s = run(broken, TestCorpus.vector("v-ok", "[\"core\"]", "[" + CALL_OK + "]"));
    Outcome o = s.outcomes.get(0);
    assertEquals("fail", o.status);
    assertEquals(0, o.failures.get(0).step);
    assertEquals("$.status", o.failures.get(0).path);
    assertFalse(s.ok);
    assertEquals("not met", s.claims.get("core"));
  }

  @Test
  public void variablesCapturesRepeatAndEveryStepKind() throws Exception {
    FakeTransport t = new FakeTransport();
    String steps = "["
        + "{\"op\":\"call\",\"method\":\"confirm\",\"arg\":null,\"extras\":{\"request_id\":{\"type\":\"string\",\"ref\":\"rid\"},"
        + "\"account\":{\"type\":\"string\",\"parts\":[\"A-\",{\"ref\":\"caller_uid\"}]}},"
        + "\"expect\":{\"type\":\"bundle\",\"value\":{\"request_id\":{\"$match\":\"capture\",\"as\":\"echo\"},"
        + "\"resolution\":{\"type\":\"pending_intent\",\"creator\":\"provider\",\"immutable\":true}}}},"
        + "{\"op\":\"user\",\"answer\":\"approve\"},"
        + "{\"op\":\"repeat\",\"step\":0,\"set\":{\"request_id\":{\"type\":\"string\",\"ref\":\"echo\"}},"
        + "\"expect\":{\"type\":\"bundle\",\"value\":{\"request_id\":{\"$match\":\"ref\",\"name\":\"rid\"}}}},"
        + "{\"op\":\"kill\"},{\"op\":\"advance-clock\",\"ms\":5},"
        + "{\"op\":\"parallel\",\"count\":2,\"call\":{\"method\":\"m\",\"arg\":null,\"extras\":null},\"expect\":[{\"count\":2,\"reply\":" + OK + "}]},"
        + "{\"op\":\"call\",\"method\":\"file\",\"arg\":\"x\",\"extras\":null,\"expect\":{\"$match\":\"any\"}},"
        + "{\"op\":\"read-fd\",\"key\":\"file\",\"expect\":{\"size\":5,\"sha256\":{\"$match\":\"sha256\"}}},"
        + "{\"op\":\"poll-until\",\"call\":{\"method\":\"poll\",\"arg\":null,\"extras\":null},"
        + "\"until\":{\"type\":\"bundle\",\"value\":{\"state\":{\"type\":\"string\",\"value\":\"done\"}}},\"max_polls\":5,\"expect\":" + OK + "}"
        + "]";
    Runner.Summary s = run(t, TestCorpus.vector("v-all", "[\"core\",\"user-action\"]", steps));
    assertEquals(s.outcomes.get(0).failureText(), "pass", s.outcomes.get(0).status);
    String log = String.join("\n", t.log);
    assertTrue(log, log.contains("\"account\":{\"type\":\"string\",\"value\":\"A-10001\"}"));
    assertTrue(log, log.contains("user approve pi:1"));
    assertTrue(log, log.contains("kill\nclock 5"));
    assertTrue(log, log.contains("read fd:1"));
    assertTrue(log, log.contains("clock 250\ncall poll null\nclock 250\ncall poll null\nend"));

    // The same vector fails when the fd's size differs or the poll never ends.
    FakeTransport never = new FakeTransport();
    never.polls = -100;
    s = run(never, TestCorpus.vector("v-all", "[\"core\",\"user-action\"]", steps));
    assertEquals("fail", s.outcomes.get(0).status);
    assertEquals("the condition did not hold within 5 polls", s.outcomes.get(0).failures.get(0).message);
  }

  @Test
  public void skipsNameWhatIsMissing() throws Exception {
    FakeTransport t = new FakeTransport();
    t.abilities.remove("user-action");
    String userStep = "[" + CALL_OK.replace("\"m\"", "\"confirm\"") + ",{\"op\":\"user\",\"answer\":\"deny\"}]";
    Runner.Summary s = run(t,
        TestCorpus.vector("v-user", "[\"core\",\"user-action\"]", userStep),
        TestCorpus.vector("v-double", "[\"core\"]", "[{\"op\":\"call\",\"method\":\"m\",\"arg\":null,\"extras\":{\"d\":{\"type\":\"double\",\"value\":\"NaN\"}},\"expect\":" + OK + "}]"),
        TestCorpus.vector("v-sneaky", "[\"core\"]", userStep).replace("\"provider\":\"alerts\"", "\"provider\":\"nowhere\""));
    assertEquals("skip", s.outcomes.get(0).status);
    assertEquals("needs user-action", s.outcomes.get(0).reason);
    assertEquals("skip", s.outcomes.get(1).status);
    assertTrue(s.outcomes.get(1).reason.startsWith("sends double values"));
    assertEquals("no provider fixture 'nowhere'", s.outcomes.get(2).reason);
    assertEquals("unverified", s.claims.get("core"));
    // A transport that discovers mid-vector it cannot do something: skipped with that ability.
    FakeTransport liar = new FakeTransport();
    liar.abilities.remove("user-action");
    Runner.Options o = new Runner.Options();
    s = new Runner(new FakeTransport() {
      @Override
      public void userAction(String answer, String handle) throws TransportException {
        throw new UnsupportedAbility("user-action");
      }
    }, o).run(new TestCorpus().file("t/t.json", TestCorpus.vectorFile(TestCorpus.vector("v-user", "[\"core\"]", userStep))).load());
    assertEquals("skip", s.outcomes.get(0).status);
    assertEquals("needs user-action (the transport lacks it)", s.outcomes.get(0).reason);
  }

  @Test
  public void aMisbehavingTransportIsOneErrorPerVectorNeverACrash() throws Exception {
    String[] vectors = {
      TestCorpus.vector("v-a", "[\"core\"]", "[" + CALL_OK + "]"),
      TestCorpus.vector("v-b", "[\"core\"]", "[" + CALL_OK.replace("\"m\"", "\"other\"") + "]"),
    };
    FakeTransport throwing = new FakeTransport();
    throwing.throwOnCall = new IllegalStateException("binder exploded");
    Runner.Summary s = run(throwing, vectors);
    assertEquals(2, s.outcomes.size());
    for (Outcome o : s.outcomes) {
      assertEquals("error", o.status);
      assertTrue(o.reason, o.reason.contains("binder exploded"));
    }
    assertTrue(throwing.log.contains("end"));

    FakeTransport garbage = new FakeTransport();
    garbage.answers.put("m", new JSONObject("{\"weird\":true}"));
    s = run(garbage, vectors);
    assertEquals("error", s.outcomes.get(0).status);
    assertTrue(s.outcomes.get(0).reason.contains("not a tagged"));
    assertEquals("pass", s.outcomes.get(1).status);

    FakeTransport nulls = new FakeTransport();
    nulls.answers.put("m", null);
    s = run(nulls, vectors);
    assertEquals("error", s.outcomes.get(0).status);

    FakeTransport failing = new FakeTransport();
    failing.answers.put("m", new TransportException("DeadObjectException: provider died"));
    s = run(failing, vectors);
    assertEquals("fail", s.outcomes.get(0).status);
    assertEquals("DeadObjectException: provider died", s.outcomes.get(0).failures.get(0).message);

    s = new Runner(new FakeTransport() {
      @Override
      public Capabilities capabilities() {
        throw new IllegalStateException("no hello");
      }
    }, new Runner.Options()).run(new TestCorpus().file("t/t.json", TestCorpus.vectorFile(vectors)).load());
    assertEquals("error", s.outcomes.get(0).status);
    assertFalse(s.ok);
  }

  /** A kill step's process reaches the transport: "main" when absent (old vectors), else as written. */
  @Test
  public void aKillStepNamesTheProcessItKills() throws Exception {
    FakeTransport t = new FakeTransport();
    String steps = "[{\"op\":\"kill\"},{\"op\":\"kill\",\"process\":\"provider\"},{\"op\":\"kill\",\"process\":\"main\"}]";
    Runner.Summary s = run(t, TestCorpus.vector("v-kills", "[\"core\",\"process-kill\"]", steps));
    assertEquals(s.outcomes.get(0).failureText(), "pass", s.outcomes.get(0).status);
    String log = String.join("\n", t.log);
    assertTrue(log, log.contains("kill\nkill provider\nkill\nend"));

    // A transport that knows only the old killProvider() skips a provider kill instead of killing main.
    FakeTransport old = new FakeTransport() {
      @Override
      public void killProvider(String process) throws TransportException {
        if (!"main".equals(process)) throw new UnsupportedAbility("process-kill");
        killProvider();
      }
    };
    s = run(old, TestCorpus.vector("v-kills", "[\"core\",\"process-kill\"]", steps));
    assertEquals("skip", s.outcomes.get(0).status);
    assertFalse(String.join("\n", old.log), old.log.contains("kill provider"));
  }

  @Test
  public void malformedVectorFilesAreOneErrorPerVector() throws Exception {
    String good = TestCorpus.vector("v-good", "[\"core\"]", "[" + CALL_OK + "]");
    Corpus c = new TestCorpus()
        .file("a/a.json", TestCorpus.vectorFile(
            good,
            TestCorpus.vector("v-op", "[\"core\"]", "[{\"op\":\"dance\"}]"),
            TestCorpus.vector("v-matcher", "[\"core\"]", "[" + CALL_OK.replace(OK, "{\"$match\":\"telepathy\"}") + "]"),
            TestCorpus.vector("v-repeat", "[\"core\"]", "[{\"op\":\"repeat\",\"step\":3,\"expect\":" + OK + "}]"),
            TestCorpus.vector("v-regex", "[\"core\"]", "[" + CALL_OK.replace(OK, "{\"$match\":\"regex\",\"pattern\":\"(\"}") + "]"),
            TestCorpus.vector("v-value", "[\"core\"]", "[" + CALL_OK.replace("\"extras\":null", "\"extras\":{\"n\":{\"type\":\"int\",\"value\":\"x\"}}") + "]"),
            TestCorpus.vector("v-ability", "[\"telekinesis\"]", "[" + CALL_OK + "]"),
            TestCorpus.vector("v-kill", "[\"core\"]", "[{\"op\":\"kill\",\"process\":\"zygote\"}]"),
            "42"))
        .file("b/b.json", "{ not json")
        .altered("c/c.json", TestCorpus.vectorFile(good.replace("v-good", "v-c")), TestCorpus.vectorFile(good.replace("v-good", "v-evil")))
        .file("d/d.json", "{\"format\":\"cetp-vectors/9\",\"vectors\":[]}")
        .load();
    Runner.Summary s = new Runner(new FakeTransport(), new Runner.Options()).run(c);
    Map<String, String> st = statuses(s);
    assertEquals("pass", st.get("v-good"));
    String[][] expected = {
      {"v-op", "$.vectors[1].steps[0].op", "unknown step op 'dance'"},
      {"v-matcher", "$.vectors[2].steps[0].expect.$match", "unknown matcher"},
      {"v-repeat", "$.vectors[3].steps[0].step", "repeats a later step"},
      {"v-regex", "$.vectors[4].steps[0].expect.pattern", "not a valid regex"},
      {"v-value", "$.vectors[5].steps[0].extras.n.value", "must be a 32-bit integer"},
      {"v-ability", "$.vectors[6].requires[0]", "unknown value 'telekinesis'"},
      {"v-kill", "$.vectors[7].steps[0].process", "must be one of [main, provider]"},
      {"a/a.json", "$.vectors[8]", "must be an object"},
      {"b/b.json", "$", "not JSON"},
      {"c/c.json", "$", "differs from the manifest"},
      {"d/d.json", "$.format", "not cetp-vectors/1"},
    };
    for (String[] e : expected) {
      Outcome o = null;
      for (Outcome x : s.outcomes) if (x.id.equals(e[0]) && x.status.equals("error")) o = x;
      assertTrue("no error outcome for " + e[0] + " in " + st, o != null);
      assertTrue(o.reason, o.reason.contains(e[1]));
      assertTrue(o.reason, o.reason.contains(e[2]));
    }
    assertFalse(st.containsKey("v-evil"));
    assertEquals(s.outcomes.size(), 12);
    assertFalse(s.ok);
  }

  @Test
  public void baselineGivesXfailStaleAndUnknownIds() throws Exception {
    FakeTransport t = new FakeTransport();
    t.answers.put("bad", new JSONObject("{\"type\":\"null\"}"));
    Runner.Options o = new Runner.Options();
    o.baseline = Baseline.parse("{\"format\":\"cetp-vectors-baseline/1\",\"expected_failures\":["
        + "{\"id\":\"v-bad\",\"reason\":\"known\"},{\"id\":\"v-ok\",\"reason\":\"fixed?\"},{\"id\":\"v-gone\",\"reason\":\"old\"}]}", "b.json");
    Runner.Summary s = run(t, o,
        TestCorpus.vector("v-ok", "[\"core\"]", "[" + CALL_OK + "]"),
        TestCorpus.vector("v-bad", "[\"core\"]", "[" + CALL_OK.replace("\"m\"", "\"bad\"") + "]"));
    assertEquals("stale", s.outcomes.get(0).status);
    assertEquals("xfail", s.outcomes.get(1).status);
    assertEquals("known", s.outcomes.get(1).reason);
    assertEquals(Collections.singletonList("v-gone"), s.unknownBaselineIds);
    assertFalse(s.ok);
    try {
      Baseline.parse("{\"format\":\"cetp-vectors-baseline/1\",\"expected_failures\":[{\"id\":\"a\",\"reason\":\"r\"},{\"id\":\"a\",\"reason\":\"r\"}]}", "b.json");
      throw new AssertionError("a duplicate id was accepted");
    } catch (Corpus.CorpusException e) {
      assertEquals("b.json: $.expected_failures[1].id: a is listed twice", e.getMessage());
    }
  }

  @Test
  public void reportsHaveTheRunShape() throws Exception {
    FakeTransport t = new FakeTransport();
    t.answers.put("bad", new JSONObject("{\"type\":\"null\"}"));
    Runner.Summary s = run(t,
        TestCorpus.vector("v-ok", "[\"core\"]", "[" + CALL_OK + "]"),
        TestCorpus.vector("v-bad", "[\"core\"]", "[" + CALL_OK.replace("\"m\"", "\"bad\"") + "]"));
    JSONObject json = Report.json(s);
    assertEquals(false, json.getBoolean("ok"));
    assertEquals(1, json.getJSONObject("counts").getInt("fail"));
    assertEquals("expected a bundle, got a null", json.getJSONArray("vectors").getJSONObject(1).getJSONArray("failures").getJSONObject(0).getString("message"));
    // No times in the JSON report: identical runs print identical bytes.
    Runner.Summary again = run(t,
        TestCorpus.vector("v-ok", "[\"core\"]", "[" + CALL_OK + "]"),
        TestCorpus.vector("v-bad", "[\"core\"]", "[" + CALL_OK.replace("\"m\"", "\"bad\"") + "]"));
    assertEquals(json.toString(), Report.json(again).toString());
    String xml = Report.junitXml(s);
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes("UTF-8")));
    assertEquals(2, doc.getElementsByTagName("testcase").getLength());
    assertEquals(1, doc.getElementsByTagName("failure").getLength());
  }
}
