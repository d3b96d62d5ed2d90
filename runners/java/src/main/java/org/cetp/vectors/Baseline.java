package org.cetp.vectors;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Expected failures (vectors/schemas/baseline.schema.json): vector id → reason. An entry that
 * passes, or names no vector, is stale and fails the run, so a baseline only ever shrinks.
 */
public final class Baseline {
  private Baseline() {}

  public static Map<String, String> parse(String text, String file) throws Corpus.CorpusException {
    Object value;
    try {
      value = Json.parse(text);
    } catch (JSONException e) {
      throw new Corpus.CorpusException(file + ": $: not JSON: " + e.getMessage());
    }
    if (!(value instanceof JSONObject)) throw new Corpus.CorpusException(file + ": $: must be an object");
    JSONObject o = (JSONObject) value;
    if (!"cetp-vectors-baseline/1".equals(o.optString("format")))
      throw new Corpus.CorpusException(file + ": $.format: must be cetp-vectors-baseline/1");
    for (String k : Json.keys(o))
      if (!k.equals("format") && !k.equals("expected_failures"))
        throw new Corpus.CorpusException(file + ": $: unknown property '" + k + "'");
    JSONArray entries = o.optJSONArray("expected_failures");
    if (entries == null) throw new Corpus.CorpusException(file + ": $.expected_failures: must be an array");
    Map<String, String> baseline = new LinkedHashMap<>();
    for (int i = 0; i < entries.length(); i++) {
      JSONObject e = entries.optJSONObject(i);
      String at = file + ": $.expected_failures[" + i + "]";
      if (e == null) throw new Corpus.CorpusException(at + ": must be an object");
      if (!(e.opt("id") instanceof String)) throw new Corpus.CorpusException(at + ".id: must be a string");
      if (!(e.opt("reason") instanceof String) || e.optString("reason").isEmpty())
        throw new Corpus.CorpusException(at + ".reason: must be a non-empty string");
      if (baseline.containsKey(e.optString("id")))
        throw new Corpus.CorpusException(at + ".id: " + e.optString("id") + " is listed twice");
      baseline.put(e.optString("id"), e.optString("reason"));
    }
    return Collections.unmodifiableMap(baseline);
  }

  public static Map<String, String> load(Path path) throws Corpus.CorpusException {
    try {
      return parse(new String(Files.readAllBytes(path), StandardCharsets.UTF_8), path.toString());
    } catch (IOException e) {
      throw new Corpus.CorpusException(path + ": $: file is missing or unreadable");
    }
  }
}
