package org.cetp.vectors;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * A vector corpus (a vectors/ folder, or the copy in an app's test assets): the manifest, its
 * fixtures, and each listed file with its SHA-256 checked. A file that is missing, altered or not
 * JSON is one error for that file; the other files still run. Only a missing or unusable manifest
 * stops everything ({@link CorpusException}). Nothing in a corpus is ever executed.
 */
public final class Corpus {
  public static final String FORMAT = "cetp-vectors/1";
  public static final String CONSUMER_FORMAT = "cetp-consumer-vectors/1";

  /** Reads a corpus file by its path in the corpus (a folder, or an Android AssetManager). */
  public interface Source {
    byte[] read(String path) throws IOException;
  }

  /** A corpus folder on disk. */
  public static Source folder(Path dir) {
    return path -> Files.readAllBytes(dir.resolve(path));
  }

  public static final class CorpusException extends Exception {
    private static final long serialVersionUID = 1L;

    public CorpusException(String message) {
      super(message);
    }
  }

  /** One listed file: its vectors (raw JSON, checked when they run) or the error that stopped it. */
  public static final class VectorFile {
    public final String path;
    public final boolean consumer;
    public final List<JSONObject> vectors;
    /** Non-null: the file could not be used (missing, altered, not JSON, another format). */
    public final String error;
    /** Vector entries that are not even objects: (index, what). */
    public final List<String> vectorErrors;

    VectorFile(String path, boolean consumer, List<JSONObject> vectors, String error, List<String> vectorErrors) {
      this.path = path;
      this.consumer = consumer;
      this.vectors = vectors;
      this.error = error;
      this.vectorErrors = vectorErrors;
    }
  }

  public final JSONObject manifest;
  public final Map<String, Transport.Fixture> fixtures;
  /** Provider files first, then consumer files, each in manifest order (as `vectors run`). */
  public final List<VectorFile> files;

  private Corpus(JSONObject manifest, Map<String, Transport.Fixture> fixtures, List<VectorFile> files) {
    this.manifest = manifest;
    this.fixtures = fixtures;
    this.files = files;
  }

  static String sha256(byte[] bytes) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
      StringBuilder s = new StringBuilder();
      for (byte b : d) s.append(String.format("%02x", b));
      return s.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Corpus load(Path dir) throws CorpusException {
    return load(folder(dir));
  }

  public static Corpus load(Source source) throws CorpusException {
    JSONObject manifest;
    try {
      Object m = Json.parse(new String(source.read("manifest.json"), StandardCharsets.UTF_8));
      if (!(m instanceof JSONObject)) throw new CorpusException("manifest.json: $: not a JSON object");
      manifest = (JSONObject) m;
    } catch (NoSuchFileException e) {
      throw new CorpusException("manifest.json: $: file is missing");
    } catch (IOException e) {
      throw new CorpusException("manifest.json: $: cannot read: " + e.getMessage());
    } catch (JSONException e) {
      throw new CorpusException("manifest.json: $: not JSON: " + e.getMessage());
    }
    if (!FORMAT.equals(manifest.optString("format")))
      throw new CorpusException("manifest.json: $.format: not " + FORMAT + " (got " + Json.show(manifest.opt("format")) + ")");
    if (!manifest.optString("format_version").startsWith("1."))
      throw new CorpusException("manifest.json: $.format_version: this runner reads format 1.x, not " + manifest.optString("format_version"));
    Map<String, Transport.Fixture> fixtures = new LinkedHashMap<>();
    JSONObject f = manifest.optJSONObject("fixtures");
    JSONArray listed = manifest.optJSONArray("files");
    if (f == null) throw new CorpusException("manifest.json: $.fixtures: missing");
    if (listed == null) throw new CorpusException("manifest.json: $.files: missing");
    for (String name : Json.keys(f)) {
      JSONObject info = f.optJSONObject(name);
      if (info == null || !(info.opt("package") instanceof String) || !(info.opt("authority") instanceof String))
        throw new CorpusException("manifest.json: $.fixtures." + name + ": needs package and authority");
      fixtures.put(name, new Transport.Fixture(name, info.optString("package"), info.optString("authority")));
    }
    List<VectorFile> provider = new ArrayList<>();
    List<VectorFile> consumer = new ArrayList<>();
    for (int i = 0; i < listed.length(); i++) {
      JSONObject entry = listed.optJSONObject(i);
      if (entry == null || !(entry.opt("path") instanceof String))
        throw new CorpusException("manifest.json: $.files[" + i + "].path: missing");
      VectorFile file = file(source, entry.optString("path"), entry.optString("sha256"));
      (file.consumer ? consumer : provider).add(file);
    }
    List<VectorFile> files = new ArrayList<>(provider);
    files.addAll(consumer);
    return new Corpus(manifest, fixtures, Collections.unmodifiableList(files));
  }

  private static VectorFile failed(String path, String error) {
    return new VectorFile(path, false, Collections.emptyList(), error, Collections.emptyList());
  }

  private static VectorFile file(Source source, String path, String sha256) {
    byte[] bytes;
    try {
      bytes = source.read(path);
    } catch (IOException e) {
      return failed(path, "$: file is missing or unreadable (" + e.getClass().getSimpleName() + ")");
    }
    String actual = sha256(bytes);
    if (!actual.equals(sha256)) return failed(path, "$: SHA-256 " + actual + " differs from the manifest's " + sha256 + " (altered file)");
    Object parsed;
    try {
      parsed = Json.parse(new String(bytes, StandardCharsets.UTF_8));
    } catch (JSONException e) {
      return failed(path, "$: not JSON: " + e.getMessage());
    }
    if (!(parsed instanceof JSONObject)) return failed(path, "$: not a JSON object");
    JSONObject o = (JSONObject) parsed;
    String format = o.optString("format");
    if (!FORMAT.equals(format) && !CONSUMER_FORMAT.equals(format))
      return failed(path, "$.format: not " + FORMAT + " or " + CONSUMER_FORMAT + " (got " + Json.show(o.opt("format")) + ")");
    JSONArray vectors = o.optJSONArray("vectors");
    if (vectors == null) return failed(path, "$.vectors: must be an array");
    List<JSONObject> list = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    for (int i = 0; i < vectors.length(); i++) {
      if (vectors.opt(i) instanceof JSONObject) list.add(vectors.optJSONObject(i));
      else errors.add("$.vectors[" + i + "]: must be an object");
    }
    return new VectorFile(path, CONSUMER_FORMAT.equals(format), list, null, errors);
  }
}
