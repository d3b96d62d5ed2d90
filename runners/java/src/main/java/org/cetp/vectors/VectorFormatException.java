package org.cetp.vectors;

/** A vector (or file) that does not follow the format: where (JSON path) and what. */
public class VectorFormatException extends Exception {
  private static final long serialVersionUID = 1L;
  public final String path;

  public VectorFormatException(String path, String message) {
    super(path + ": " + message);
    this.path = path;
  }
}
