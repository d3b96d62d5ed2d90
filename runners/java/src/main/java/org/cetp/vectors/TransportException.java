package org.cetp.vectors;

/** The device could not do what was asked (a call threw, the device went away, a bad answer). */
public class TransportException extends Exception {
  private static final long serialVersionUID = 1L;

  public TransportException(String message) {
    super(message);
  }

  public TransportException(String message, Throwable cause) {
    super(message, cause);
  }
}
