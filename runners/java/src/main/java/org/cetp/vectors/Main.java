package org.cetp.vectors;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The Java runner on the command line, against the simulated device (`cetp-sim serve --stdio`):
 *
 * <pre>
 * java -cp out/classes:/usr/share/java/com.android.json.jar org.cetp.vectors.Main \
 *     [--dir vectors] [--serve "node bin/cetp-sim.js serve --stdio"] [--variant BUG] \
 *     [--profile core,async,cancellation,large-results|all] [--lacks ABILITY,…] [--id ID,…] \
 *     [--baseline FILE] [--json] [--junit FILE] [--kill-matrix BUG,…]
 * </pre>
 *
 * Exit codes: 0 every vector passes (or is an expected failure), 1 a failure, stale baseline
 * entry or error, 2 bad usage or an unusable corpus / baseline.
 */
public final class Main {
  private Main() {}

  static final String USAGE =
      "usage: Main [--dir DIR] [--serve CMD] [--variant BUG] [--profile P,...] [--lacks A,...] [--id ID,...]\n"
          + "            [--baseline FILE] [--json] [--junit FILE] [--kill-matrix BUG,...] [--timeout-ms N]";

  static final class Usage extends Exception {
    private static final long serialVersionUID = 1L;

    Usage(String message) {
      super(message);
    }
  }

  private static List<String> list(String v) {
    List<String> out = new ArrayList<>();
    for (String s : v.split(",")) if (!s.trim().isEmpty()) out.add(s.trim());
    return out;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    try {
      return runOrThrow(args, out, err);
    } catch (Usage e) {
      err.println("error invalid_usage: " + e.getMessage());
      err.println(USAGE);
      return 2;
    } catch (Corpus.CorpusException e) {
      err.println("error invalid_corpus: " + e.getMessage());
      return 2;
    } catch (TransportException e) {
      err.println("error transport: " + e.getMessage());
      return 2;
    }
  }

  private static int runOrThrow(String[] args, PrintStream out, PrintStream err)
      throws Usage, Corpus.CorpusException, TransportException {
    String dir = "vectors";
    String serve = "node bin/cetp-sim.js serve --stdio";
    String variant = null;
    String junit = null;
    String baseline = null;
    boolean json = false;
    long timeoutMs = 120_000;
    List<String> killMatrix = null;
    Runner.Options options = new Runner.Options();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--json")) {
        json = true;
        continue;
      }
      if (i + 1 >= args.length) throw new Usage(a.startsWith("--") ? a + " needs a value" : "unexpected argument " + a);
      String v = args[++i];
      switch (a) {
        case "--dir": dir = v; break;
        case "--serve": serve = v; break;
        case "--variant": variant = v; break;
        case "--junit": junit = v; break;
        case "--baseline": baseline = v; break;
        case "--kill-matrix": killMatrix = list(v); break;
        case "--timeout-ms":
          try {
            timeoutMs = Long.parseLong(v);
          } catch (NumberFormatException e) {
            throw new Usage("--timeout-ms needs a number, got " + v);
          }
          break;
        case "--profile":
          {
            List<String> p = list(v);
            if (p.contains("all")) p = Runner.PROFILES;
            for (String x : p) if (!Runner.PROFILES.contains(x)) throw new Usage("--profile: unknown profile " + x);
            options.profiles = p;
            break;
          }
        case "--lacks":
          {
            Set<String> lacks = new LinkedHashSet<>(list(v));
            for (String x : lacks)
              if (!VectorCheck.ABILITIES.contains(x) && !x.equals("consumer-harness"))
                throw new Usage("--lacks: unknown ability " + x);
            options.lacks = lacks;
            break;
          }
        case "--id": options.ids = new HashSet<>(list(v)); break;
        default: throw new Usage("unknown option " + a);
      }
    }
    Corpus corpus = Corpus.load(Paths.get(dir));
    if (baseline != null) options.baseline = Baseline.load(Paths.get(baseline));
    List<String> command = Arrays.asList(serve.trim().split("\\s+"));
    if (killMatrix != null) return killMatrix(corpus, command, killMatrix, options, timeoutMs, out);
    Runner.Summary summary;
    try (SimTransport t = new SimTransport(command, new File("."), variant, timeoutMs)) {
      options.clock = System::currentTimeMillis;
      summary = new Runner(t, options).run(corpus);
    }
    if (junit != null) write(Paths.get(junit), Report.junitXml(summary));
    if (json) {
      out.println(Report.json(summary).toString());
      return summary.ok ? 0 : 1;
    }
    for (Outcome o : summary.outcomes) {
      if (o.status.equals("pass")) continue;
      String why = (o.status.equals("fail") || o.status.equals("error")) ? o.failureText() : String.valueOf(o.reason);
      out.println("  " + String.format("%-5s", o.status) + " " + o.id + "  " + why);
    }
    for (String id : summary.unknownBaselineIds) out.println("  stale " + id + "  the baseline names no such vector");
    out.println(summary.outcomes.size() + " vectors: " + summary.counts.get("pass") + " pass, " + summary.counts.get("fail")
        + " fail, " + summary.counts.get("skip") + " skip, " + summary.counts.get("xfail") + " xfail, "
        + summary.counts.get("stale") + " stale, " + summary.counts.get("error") + " error.");
    List<String> claims = new ArrayList<>();
    for (java.util.Map.Entry<String, String> c : summary.claims.entrySet()) claims.add(c.getKey() + " " + c.getValue());
    out.println("Profile claims: " + String.join(", ", claims) + ".");
    return summary.ok ? 0 : 1;
  }

  /**
   * Which vectors fail against each planted bug: {"mutants":[{"id","killedBy":[…],"errors":[…]}]}.
   * Each spec is BUG (the whole selection) or BUG:ID+ID… (only those vectors); one server serves all.
   */
  private static int killMatrix(Corpus corpus, List<String> command, List<String> specs, Runner.Options options,
      long timeoutMs, PrintStream out) throws TransportException {
    JSONArray rows = new JSONArray();
    Set<String> allIds = options.ids;
    try (SimTransport t = new SimTransport(command, new File("."), null, timeoutMs)) {
      for (String spec : specs) {
        int colon = spec.indexOf(':');
        String variant = colon < 0 ? spec : spec.substring(0, colon);
        options.ids = colon < 0 ? allIds : new HashSet<>(Arrays.asList(spec.substring(colon + 1).split("\\+")));
        t.setVariant(variant);
        Runner.Summary s = new Runner(t, options).run(corpus);
        JSONArray killed = new JSONArray();
        JSONArray errors = new JSONArray();
        for (Outcome o : s.outcomes) {
          if (o.status.equals("fail")) killed.put(o.id);
          if (o.status.equals("error")) errors.put(o.id + ": " + o.reason);
        }
        rows.put(new JSONObject().put("id", variant).put("killedBy", killed).put("errors", errors));
      }
      out.println(new JSONObject().put("mutants", rows).toString());
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
    return 0;
  }

  private static void write(Path path, String content) throws Usage {
    try {
      if (path.getParent() != null) Files.createDirectories(path.getParent());
      Files.write(path, content.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new Usage("cannot write " + path + ": " + e.getMessage());
    }
  }
}
