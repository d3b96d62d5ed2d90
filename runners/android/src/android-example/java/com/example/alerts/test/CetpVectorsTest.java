package com.example.alerts.test;

import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

import android.app.Instrumentation;
import android.content.Context;
import androidx.test.platform.app.InstrumentationRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.cetp.vectors.Baseline;
import org.cetp.vectors.Corpus;
import org.cetp.vectors.Outcome;
import org.cetp.vectors.Runner;
import org.cetp.vectors.android.AndroidTransport;
import org.json.JSONObject;
import org.junit.AfterClass;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;

@RunWith(Parameterized.class)
public class CetpVectorsTest {
  private static Corpus corpus;
  private static AndroidTransport transport;
  private static Map<String, String> baseline = Collections.emptyMap();

  private static byte[] asset(Context ctx, String path) throws IOException {
    try (InputStream in = ctx.getAssets().open(path)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[1 << 16];
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) out.write(buf, 0, n);
      return out.toByteArray();
    }
  }

  private static synchronized void setUp() throws Exception {
    if (corpus != null) return;
    Instrumentation instrumentation = InstrumentationRegistry.getInstrumentation();
    Context ctx = instrumentation.getContext(); // the test APK: the caller app
    corpus = Corpus.load(path -> asset(ctx, "cetp-vectors/" + path));
    try {
      baseline = Baseline.parse(new String(asset(ctx, "cetp-baseline.json"), "UTF-8"), "cetp-baseline.json");
    } catch (IOException noBaseline) {
      // No expected failures.
    }
    transport = new AndroidTransport.Builder(ctx, instrumentation).build();
  }

  @Parameterized.Parameters(name = "{0}")
  public static Collection<Object[]> ids() throws Exception {
    setUp();
    List<Object[]> ids = new ArrayList<>();
    for (Corpus.VectorFile f : corpus.files) {
      if (f.error != null) ids.add(new Object[] {f.path}); // reported as an error below
      for (JSONObject v : f.vectors) ids.add(new Object[] {v.optString("id")});
    }
    return ids;
  }

  @Parameterized.Parameter public String id;

  @Test
  public void vector() throws Exception {
    setUp();
    Runner.Options options = new Runner.Options();
    options.ids = Collections.singleton(id);
    options.baseline = baseline;
    options.clock = System::currentTimeMillis;
    // options.lacks = Set.of("process-kill");   // abilities your device must not use
    Runner.Summary summary = new Runner(transport, options).run(corpus);
    for (Outcome o : summary.outcomes) {
      if (!o.id.equals(id)) continue;
      switch (o.status) {
        case "pass": return;
        case "skip": assumeTrue("skipped: " + o.reason, false); return;
        case "xfail": assumeTrue("expected failure: " + o.reason, false); return;
        default: fail(o.status + ": " + o.failureText()); // fail, stale, error
      }
    }
  }

  @AfterClass
  public static void tearDown() {
    if (transport != null) transport.close();
  }
}
