package org.cetp.vectors;

/** One way a value differs from its expectation: where (a JSON path) and how. */
public final class Mismatch {
  public final String path;
  public final String message;

  public Mismatch(String path, String message) {
    this.path = path;
    this.message = message;
  }

  @Override
  public String toString() {
    return path + ": " + message;
  }
}
