package org.cetp.vectors;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.json.JSONObject;

/**
 * A scripted device for runner tests: a tiny provider that echoes "status" (ok, or what the test
 * plants), remembers the request ids it saw, and records every action it was asked for.
 */
class FakeTransport implements Transport {
  final List<String> log = new ArrayList<>();
  Set<String> abilities = new HashSet<>(Arrays.asList("core", "user-action", "process-kill", "clock-control", "large_results"));
  /** Replaces the reply to a method: what a broken provider or transport answers. */
  final Map<String, Object> answers = new LinkedHashMap<>();
  RuntimeException throwOnCall = null;
  int polls = 0;

  @Override
  public Capabilities capabilities() {
    return new Capabilities(abilities, new HashSet<>(Arrays.asList("int", "long", "boolean", "string", "int[]", "bundle", "null")), null);
  }

  @Override
  public Start begin(String vectorId, Fixture fixture, List<String> fresh, String seed) {
    log.add("begin " + vectorId + " " + fixture.authority);
    Map<String, String> f = new LinkedHashMap<>();
    for (String n : fresh) f.put(n, "00000000-0000-4000-8000-000000000001");
    return new Start("10001", f);
  }

  static JSONObject str(String v) throws Exception {
    return new JSONObject().put("type", "string").put("value", v);
  }

  @Override
  public JSONObject call(String caller, String method, String arg, JSONObject extras) throws TransportException {
    log.add("call " + method + " " + (extras == null ? "null" : extras.toString()));
    if (throwOnCall != null) throw throwOnCall;
    if (answers.containsKey(method)) {
      Object a = answers.get(method);
      if (a instanceof TransportException) throw (TransportException) a;
      return (JSONObject) a;
    }
    try {
      JSONObject v = new JSONObject().put("status", str("ok"));
      if (extras != null && extras.has("request_id")) v.put("request_id", extras.get("request_id"));
      if (method.equals("confirm"))
        v.put("resolution", new JSONObject().put("type", "pending_intent").put("creator", "provider").put("immutable", true).put("handle", "pi:1"));
      if (method.equals("file"))
        v.put("file", new JSONObject().put("type", "fd").put("read_only", true).put("handle", "fd:1"));
      if (method.equals("poll"))
        v.put("state", str(++polls >= 3 ? "done" : "running")).put("data", str("{\"poll_after_ms\":250}"));
      return new JSONObject().put("type", "bundle").put("value", v);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public List<JSONObject> parallel(int count, String caller, String method, String arg, JSONObject extras) throws TransportException {
    List<JSONObject> out = new ArrayList<>();
    for (int i = 0; i < count; i++) out.add(call(caller, method, arg, extras));
    return out;
  }

  @Override
  public void userAction(String answer, String handle) throws TransportException {
    if (!abilities.contains("user-action")) throw new UnsupportedAbility("user-action");
    log.add("user " + answer + " " + handle);
  }

  @Override
  public void killProvider() {
    log.add("kill");
  }

  @Override
  public void killProvider(String process) throws TransportException {
    log.add("main".equals(process) ? "kill" : "kill " + process);
  }

  @Override
  public void advanceClock(long ms) {
    log.add("clock " + ms);
  }

  @Override
  public byte[] readFd(String handle) {
    log.add("read " + handle);
    return "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public void end() {
    log.add("end");
  }
}
