package org.cetp.vectors;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The simulated device: `cetp-sim serve --stdio` as a subprocess, one JSON line per request and
 * per response (src/cli/commands/serve.ts). Sessions are seeded by the vector id, so a run
 * through this transport replays exactly what `cetp-sim vectors run` does. A server that dies,
 * hangs past the timeout or answers out of turn is a {@link TransportException}, never a hang.
 */
public final class SimTransport implements Transport {
  private static final Object EOF = new Object();
  private final Process process;
  private final Writer in;
  private final BlockingQueue<Object> lines = new ArrayBlockingQueue<>(16);
  private String variant;
  private final long timeoutMs;
  private long next = 0;
  private boolean dead = false;

  /** Starts command (e.g. node bin/cetp-sim.js serve --stdio) in dir; variant: a planted bug's id or null. */
  public SimTransport(List<String> command, File dir, String variant, long timeoutMs) throws TransportException {
    this.variant = variant;
    this.timeoutMs = timeoutMs;
    try {
      ProcessBuilder pb = new ProcessBuilder(command);
      if (dir != null) pb.directory(dir);
      pb.redirectError(ProcessBuilder.Redirect.INHERIT);
      process = pb.start();
    } catch (IOException e) {
      throw new TransportException("cannot start " + command + ": " + e.getMessage(), e);
    }
    in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) lines.put(line);
      } catch (IOException | InterruptedException e) {
        // The server went away; EOF below tells the waiting request.
      }
      try {
        lines.put(EOF);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "cetp-sim-serve-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Serves another planted-bug variant (null: the reference apps) from the next vector on. */
  public void setVariant(String variant) {
    this.variant = variant;
  }

  /** One request, one response; a response with ok=false is a TransportException with its message. */
  synchronized JSONObject request(JSONObject req) throws TransportException {
    if (dead) throw new TransportException("the simulated device (cetp-sim serve) is gone");
    long id = ++next;
    Object line;
    try {
      req.put("id", id);
      in.write(req.toString());
      in.write('\n');
      in.flush();
      line = lines.poll(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (IOException | JSONException e) {
      dead = true;
      throw new TransportException("cannot talk to cetp-sim serve: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TransportException("interrupted");
    }
    if (line == null) {
      dead = true;
      throw new TransportException("cetp-sim serve did not answer within " + timeoutMs + " ms");
    }
    if (line == EOF) {
      dead = true;
      throw new TransportException("cetp-sim serve exited");
    }
    JSONObject res;
    try {
      res = new JSONObject((String) line);
    } catch (JSONException e) {
      dead = true;
      throw new TransportException("cetp-sim serve answered a line that is not JSON: " + Json.abbreviate((String) line));
    }
    if (res.optLong("id", -1) != id) {
      dead = true;
      throw new TransportException("cetp-sim serve answered request " + res.opt("id") + " instead of " + id);
    }
    if (!res.optBoolean("ok")) {
      JSONObject error = res.optJSONObject("error");
      throw new TransportException(error == null ? "cetp-sim serve failed" : error.optString("message"));
    }
    return res;
  }

  private static JSONObject op(String op) {
    try {
      return new JSONObject().put("op", op);
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Set<String> set(JSONArray a) {
    Set<String> s = new HashSet<>();
    for (int i = 0; a != null && i < a.length(); i++) s.add(a.optString(i));
    return s;
  }

  @Override
  public Capabilities capabilities() throws TransportException {
    JSONObject hello = request(op("hello"));
    JSONObject fixtures = hello.optJSONObject("fixtures");
    return new Capabilities(set(hello.optJSONArray("abilities")), set(hello.optJSONArray("value_types")),
        fixtures == null ? new HashSet<>() : new HashSet<>(Json.keys(fixtures)));
  }

  @Override
  public Start begin(String vectorId, Fixture fixture, List<String> fresh, String seed) throws TransportException {
    try {
      JSONObject req = op("open").put("fixture", fixture.name).put("fresh", new JSONArray(fresh));
      if (seed != null) req.put("seed", seed);
      if (variant != null) req.put("variant", variant);
      JSONObject res = request(req);
      Map<String, String> bound = new LinkedHashMap<>();
      JSONObject f = res.optJSONObject("fresh");
      for (String name : fresh) if (f != null && f.opt(name) instanceof String) bound.put(name, f.optString(name));
      return new Start(res.optString("caller_uid", null), bound);
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JSONObject call(JSONObject req, String caller, String method, String arg, JSONObject extras) {
    try {
      return req.put("caller", caller).put("method", method).put("arg", arg == null ? JSONObject.NULL : arg)
          .put("extras", extras == null ? JSONObject.NULL : extras);
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public JSONObject call(String caller, String method, String arg, JSONObject extras) throws TransportException {
    return request(call(op("call"), caller, method, arg, extras)).optJSONObject("reply");
  }

  @Override
  public List<JSONObject> parallel(int count, String caller, String method, String arg, JSONObject extras)
      throws TransportException {
    try {
      JSONObject res = request(op("parallel").put("count", count).put("call", call(new JSONObject(), caller, method, arg, extras)));
      JSONArray replies = res.optJSONArray("replies");
      List<JSONObject> out = new ArrayList<>();
      for (int i = 0; replies != null && i < replies.length(); i++) out.add(replies.optJSONObject(i));
      return out;
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void userAction(String answer, String handle) throws TransportException {
    try {
      request(op("user").put("answer", answer).put("handle", handle));
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void killProvider() throws TransportException {
    killProvider("main");
  }

  /** serve's kill step: the sim kills what it would (src/vectors/kill-target.ts killTargetProcess). */
  @Override
  public void killProvider(String process) throws TransportException {
    try {
      request(op("kill").put("process", process));
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void advanceClock(long ms) throws TransportException {
    try {
      request(op("advance-clock").put("ms", ms));
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public byte[] readFd(String handle) throws TransportException {
    try {
      JSONObject res = request(op("read-fd").put("handle", handle));
      return Base64.getDecoder().decode(res.optString("base64"));
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public ConsumerObservation runConsumer(JSONObject vector) throws TransportException {
    try {
      JSONObject req = op("consumer").put("vector", vector);
      if (variant != null) req.put("variant", variant);
      JSONObject res = request(req);
      Map<String, List<JSONObject>> requests = new LinkedHashMap<>();
      JSONObject r = res.optJSONObject("requests");
      for (String method : r == null ? new ArrayList<String>() : Json.keys(r)) {
        List<JSONObject> list = new ArrayList<>();
        JSONArray a = r.optJSONArray(method);
        for (int i = 0; a != null && i < a.length(); i++) list.add(a.optJSONObject(i));
        requests.put(method, list);
      }
      List<String> launches = new ArrayList<>();
      JSONArray l = res.optJSONArray("launches");
      for (int i = 0; l != null && i < l.length(); i++) launches.add(l.optString(i));
      return new ConsumerObservation(requests, launches, res.optJSONObject("outcome"));
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void end() {
    if (dead) return;
    try {
      request(op("close"));
    } catch (TransportException e) {
      // Reported by the next request.
    }
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      // Already gone.
    }
    try {
      if (dead || !process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroy();
      Thread.currentThread().interrupt();
    }
  }
}
