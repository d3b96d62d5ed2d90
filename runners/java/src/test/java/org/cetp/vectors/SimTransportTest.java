package org.cetp.vectors;

import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import org.junit.Test;

/** A simulated device that dies, hangs or answers nonsense is a TransportException, never a hang. */
public class SimTransportTest {
  static String failure(String script, long timeoutMs) throws Exception {
    try (SimTransport t = new SimTransport(Arrays.asList("sh", "-c", script), null, null, timeoutMs)) {
      t.capabilities();
      return "no failure";
    } catch (TransportException e) {
      return e.getMessage();
    }
  }

  @Test
  public void aServerThatExitsIsReported() throws Exception {
    String f = failure("exit 0", 5000);
    assertTrue(f, f.contains("exited") || f.contains("cannot talk"));
  }

  @Test
  public void aServerThatAnswersNonsenseIsReported() throws Exception {
    assertTrue(failure("read line; echo 'garbage'", 5000).contains("not JSON"));
    assertTrue(failure("read line; echo '{\"id\":99,\"ok\":true}'", 5000).contains("instead of 1"));
    assertTrue(failure("read line; echo '{\"id\":1,\"ok\":false,\"error\":{\"message\":\"boom\"}}'", 5000).equals("boom"));
  }

  @Test
  public void aServerThatHangsTimesOut() throws Exception {
    assertTrue(failure("read line; sleep 30", 300).contains("did not answer within 300 ms"));
  }

  /** serve's kill request carries the step's process (serve-kill.test.ts: what the sim then kills). */
  @Test
  public void aKillSendsItsProcess() throws Exception {
    java.io.File log = java.io.File.createTempFile("serve-requests", ".txt");
    log.deleteOnExit();
    String script = "i=0; while read line; do i=$((i+1)); echo \"$line\" >> '" + log.getPath() + "'; echo \"{\\\"id\\\":$i,\\\"ok\\\":true}\"; done";
    try (SimTransport t = new SimTransport(Arrays.asList("sh", "-c", script), null, null, 5000)) {
      t.killProvider("provider");
      t.killProvider();
    }
    String sent = new String(java.nio.file.Files.readAllBytes(log.toPath()), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(sent, sent.contains("\"process\":\"provider\""));
    assertTrue(sent, sent.contains("\"process\":\"main\""));
  }

  @Test
  public void aMissingServerIsReported() throws Exception {
    try {
      new SimTransport(Arrays.asList("/nonexistent/cetp-sim"), null, null, 1000);
      throw new AssertionError("started a missing program");
    } catch (TransportException e) {
      assertTrue(e.getMessage().startsWith("cannot start"));
    }
  }
}
