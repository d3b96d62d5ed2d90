package org.cetp.vectors;

import java.util.Locale;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Reports of a run: one JSON object in the shape of `cetp-sim vectors run --json` (plus the
 * runner's own status `error`), with no times in it so identical runs print identical bytes; and
 * JUnit XML (one test case per vector; skip and xfail are skipped cases, fail, stale and error
 * are failures).
 */
public final class Report {
  private Report() {}

  public static JSONObject json(Runner.Summary s) {
    try {
      JSONObject counts = new JSONObject();
      for (String k : s.counts.keySet()) counts.put(k, s.counts.get(k));
      JSONObject claims = new JSONObject();
      for (String k : s.claims.keySet()) claims.put(k, s.claims.get(k));
      JSONArray vectors = new JSONArray();
      for (Outcome o : s.outcomes) {
        JSONObject v = new JSONObject()
            .put("id", o.id)
            .put("status", o.status)
            .put("profile", o.profile)
            .put("level", o.level)
            .put("rules", new JSONArray(o.rules));
        if (o.reason != null) v.put("reason", o.reason);
        if (!o.failures.isEmpty()) {
          JSONArray f = new JSONArray();
          for (Outcome.StepFailure x : o.failures)
            f.put(new JSONObject().put("path", x.path).put("message", x.message).put("step", x.step));
          v.put("failures", f);
        }
        vectors.put(v);
      }
      return new JSONObject()
          .put("ok", s.ok)
          .put("counts", counts)
          .put("claims", claims)
          .put("unknown_baseline_ids", new JSONArray(s.unknownBaselineIds))
          .put("vectors", vectors);
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  static String xml(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&': b.append("&amp;"); break;
        case '<': b.append("&lt;"); break;
        case '>': b.append("&gt;"); break;
        case '"': b.append("&quot;"); break;
        case '\'': b.append("&apos;"); break;
        default:
          if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') b.append("&#xFFFD;");
          else b.append(c);
      }
    }
    return b.toString();
  }

  public static String junitXml(Runner.Summary s) {
    int failures = s.counts.get("fail") + s.counts.get("stale") + s.counts.get("error");
    int skipped = s.counts.get("skip") + s.counts.get("xfail");
    double total = 0;
    for (Outcome o : s.outcomes) total += o.ms / 1000.0;
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    b.append(String.format(Locale.ROOT, "<testsuites tests=\"%d\" failures=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
        s.outcomes.size(), failures, skipped, total));
    b.append(String.format(Locale.ROOT,
        "  <testsuite name=\"cetp-sim vectors (java)\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\" time=\"%.3f\">\n",
        s.outcomes.size(), failures, skipped, total));
    for (Outcome o : s.outcomes) {
      String area = o.file.contains("/") ? o.file.substring(0, o.file.indexOf('/')) : "vectors";
      b.append(String.format(Locale.ROOT, "    <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\">\n",
          xml("cetp-sim.vectors." + area), xml(o.id + ": " + o.title), o.ms / 1000.0));
      b.append("      <properties>\n");
      b.append("        <property name=\"profile\" value=\"").append(xml(o.profile)).append("\"/>\n");
      b.append("        <property name=\"level\" value=\"").append(xml(o.level)).append("\"/>\n");
      b.append("        <property name=\"rules\" value=\"").append(xml(String.join(" ", o.rules))).append("\"/>\n");
      b.append("      </properties>\n");
      switch (o.status) {
        case "fail":
        case "stale":
        case "error":
          b.append("      <failure message=\"").append(xml(o.failureText())).append("\" type=\"").append(o.status)
              .append("\"/>\n");
          break;
        case "skip":
          b.append("      <skipped/>\n      <system-out>").append(xml("skipped: " + o.reason)).append("</system-out>\n");
          break;
        case "xfail":
          b.append("      <skipped/>\n      <system-out>")
              .append(xml("expected failure: " + o.reason + "; " + o.failures.get(0))).append("</system-out>\n");
          break;
        default:
      }
      b.append("    </testcase>\n");
    }
    b.append("  </testsuite>\n</testsuites>\n");
    return b.toString();
  }
}
