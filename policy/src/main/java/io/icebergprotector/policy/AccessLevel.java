package io.icebergprotector.policy;

/** What a reader may see of a protected column. */
public enum AccessLevel {
  /** The reader gets the key and sees the plaintext. */
  CLEAR,
  /** The reader gets the key, but values are masked before they leave the reader. */
  MASKED,
  /** The reader does not get the key; see {@link OnDenied}. */
  DENIED
}
