package org.cetp.vectors.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import android.os.Build;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.Map;
import org.cetp.vectors.Corpus;
import org.cetp.vectors.Outcome;
import org.cetp.vectors.Runner;
import org.json.JSONObject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;

/**
 * The shared vectors' core profile against the Java reference provider (com.example.alerts), on
 * the real framework classes of API 34 and API 35, through AndroidTransport: every vector of the
 * alerts fixture must pass; vectors of other fixtures are skipped naming the fixture.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = {34, 35})
public class AlertsVectorsTest {

  static Corpus corpus() throws Corpus.CorpusException {
    return Corpus.load(Paths.get(System.getProperty("cetp.vectors.dir", "vectors")));
  }

  static Runner.Summary run(AndroidTransport transport, List<String> profiles) throws Exception {
    Runner.Options options = new Runner.Options();
    options.profiles = profiles;
    return new Runner(transport, options).run(corpus());
  }

  @Test
  public void coreProfilePassesAgainstTheJavaReferenceProvider() throws Exception {
    RobolectricDevice device = new RobolectricDevice();
    Runner.Summary summary;
    try (AndroidTransport transport = device.transport()) {
      summary = run(transport, Collections.singletonList("core"));
    }
    List<String> failures = new ArrayList<>();
    Map<String, Integer> counts = new TreeMap<>();
    for (Outcome o : summary.outcomes) {
      counts.merge(o.status, 1, Integer::sum);
      // Vectors of other fixtures, and consumer vectors (they test a consumer, not this provider).
      if (o.status.equals("skip") && o.reason != null
          && (o.reason.contains("fixture") || o.reason.contains("consumer-harness"))) continue;
      if (!o.status.equals("pass")) failures.add(o.id + " " + o.status + ": " + o.failureText());
    }
    System.out.println("robolectric: API " + Build.VERSION.SDK_INT + ", core profile against com.example.alerts: "
        + new JSONObject(counts));
    assertEquals("vectors of the alerts fixture that did not pass on API " + Build.VERSION.SDK_INT,
        Collections.emptyList(), failures);
    assertTrue("the run covered the alerts core vectors", counts.getOrDefault("pass", 0) >= 50);
  }
}
