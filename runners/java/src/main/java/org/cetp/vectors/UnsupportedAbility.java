package org.cetp.vectors;

/** A transport cannot do this at all: the vector is skipped, naming the ability. */
public class UnsupportedAbility extends TransportException {
  private static final long serialVersionUID = 1L;
  public final String ability;

  public UnsupportedAbility(String ability) {
    super("the transport lacks " + ability);
    this.ability = ability;
  }
}
