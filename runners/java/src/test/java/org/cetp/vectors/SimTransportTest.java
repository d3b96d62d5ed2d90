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
