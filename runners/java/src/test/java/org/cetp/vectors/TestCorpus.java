package org.cetp.vectors;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;

/** Writes a small corpus to a temporary folder: files by path, the manifest with their hashes. */
final class TestCorpus {
  private final Map<String, String> files = new LinkedHashMap<>();
  private final Map<String, String> tampered = new LinkedHashMap<>();

  TestCorpus file(String path, String content) {
    files.put(path, content);
    return this;
  }

  /** A file whose content differs from what the manifest hashes. */
  TestCorpus altered(String path, String hashed, String written) {
    files.put(path, hashed);
    tampered.put(path, written);
    return this;
  }

  static String vectorFile(String... vectors) {
    return "{\"format\":\"cetp-vectors/1\",\"area\":\"t\",\"description\":\"d\",\"vectors\":[" + String.join(",", vectors) + "]}";
  }

  /** A provider vector with the given requires, steps (JSON array text) and level. */
  static String vector(String id, String requires, String steps) {
    return "{\"id\":\"" + id + "\",\"title\":\"" + id + "\",\"since\":\"2.0\",\"level\":\"MUST\",\"result\":\"valid\","
        + "\"rules\":[\"CETP-1-01\"],\"flags\":[],\"requires\":" + requires + ",\"provider\":\"alerts\",\"fresh\":[\"rid\"],"
        + "\"steps\":" + steps + "}";
  }

  Corpus load() throws Exception {
    Path dir = Files.createTempDirectory("cetp-vectors-test");
    dir.toFile().deleteOnExit();
    JSONArray list = new JSONArray();
    for (Map.Entry<String, String> e : files.entrySet()) {
      Path p = dir.resolve(e.getKey());
      Files.createDirectories(p.getParent());
      byte[] bytes = e.getValue().getBytes(StandardCharsets.UTF_8);
      Files.write(p, tampered.containsKey(e.getKey()) ? tampered.get(e.getKey()).getBytes(StandardCharsets.UTF_8) : bytes);
      list.put(new JSONObject().put("path", e.getKey()).put("sha256", Corpus.sha256(bytes)).put("vectors", 1));
    }
    JSONObject manifest = new JSONObject()
        .put("format", "cetp-vectors/1")
        .put("format_version", "1.0")
        .put("fixtures", new JSONObject().put("alerts",
            new JSONObject().put("package", "com.example.alerts").put("authority", "com.example.alerts.tools").put("description", "d")))
        .put("files", list);
    Files.write(dir.resolve("manifest.json"), manifest.toString().getBytes(StandardCharsets.UTF_8));
    return Corpus.load(dir);
  }
}
