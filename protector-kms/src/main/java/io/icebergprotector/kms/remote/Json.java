package io.icebergprotector.kms.remote;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A deliberately tiny JSON reader and writer for the Vault-style request and response bodies.
 *
 * <p>Kept in-house so that the client adds nothing to Spark's classpath. The reader is strict (RFC
 * 8259, no trailing garbage, no duplicate object keys, bounded nesting) because the server also
 * uses it on untrusted input. Objects become {@code Map<String,Object>} (insertion ordered), arrays
 * {@code List<Object>}, numbers {@link Long} when integral and in range else {@link BigDecimal},
 * plus {@link String}, {@link Boolean} and {@code null}.
 *
 * <p>Internal to Iceberg Protector; not a general-purpose JSON library.
 */
public final class Json {
  private static final int MAX_DEPTH = 32;

  private Json() {}

  /**
   * Parses one JSON value. @throws IllegalArgumentException naming the offset on malformed input
   */
  public static Object parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("invalid JSON: no input");
    }
    Reader reader = new Reader(text);
    reader.skipWhitespace();
    Object value = reader.readValue(0);
    reader.skipWhitespace();
    if (!reader.atEnd()) {
      throw reader.error("unexpected trailing characters");
    }
    return value;
  }

  /** Parses a JSON object. @throws IllegalArgumentException if malformed or not an object */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object value = parse(text);
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException("invalid JSON: expected an object");
    }
    return (Map<String, Object>) value;
  }

  /** Writes maps, iterables, arrays of Object, strings, numbers, booleans and null. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    writeValue(out, value);
    return out.toString();
  }

  /** A small ordered-map builder: {@code Json.object("a", 1, "b", "x")}. */
  public static Map<String, Object> object(Object... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException(
          "object() needs key/value pairs, got " + keysAndValues.length + " arguments");
    }
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(String.valueOf(keysAndValues[i]), keysAndValues[i + 1]);
    }
    return map;
  }

  /**
   * Returns the string member, or null if absent. @throws IllegalArgumentException if present but
   * not a string
   */
  public static String string(Map<String, Object> object, String member) {
    Object value = object.get(member);
    if (value == null) {
      return null;
    }
    if (!(value instanceof String)) {
      throw new IllegalArgumentException("field '" + member + "' must be a string");
    }
    return (String) value;
  }

  /**
   * Returns the object member, or null if absent. @throws IllegalArgumentException if present but
   * not an object
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(Map<String, Object> object, String member) {
    Object value = object.get(member);
    if (value == null) {
      return null;
    }
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException("field '" + member + "' must be an object");
    }
    return (Map<String, Object>) value;
  }

  /**
   * Returns an integral member as a Long, or null if absent. Accepts "12" strings as Vault does.
   */
  public static Long integer(Map<String, Object> object, String member) {
    Object value = object.get(member);
    if (value == null) {
      return null;
    }
    if (value instanceof Long) {
      return (Long) value;
    }
    if (value instanceof String) {
      try {
        return Long.parseLong((String) value);
      } catch (NumberFormatException e) {
        // fall through to the error below
      }
    }
    throw new IllegalArgumentException("field '" + member + "' must be an integer");
  }

  private static void writeValue(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String) {
      writeString(out, (String) value);
    } else if (value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new IllegalArgumentException("JSON cannot represent " + d);
      }
      out.append(value);
    } else if (value instanceof BigDecimal) {
      out.append(((BigDecimal) value).toPlainString());
    } else if (value instanceof Number) {
      out.append(value);
    } else if (value instanceof Map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        writeString(out, String.valueOf(entry.getKey()));
        out.append(':');
        writeValue(out, entry.getValue());
      }
      out.append('}');
    } else if (value instanceof Iterable) {
      out.append('[');
      Iterator<?> it = ((Iterable<?>) value).iterator();
      while (it.hasNext()) {
        writeValue(out, it.next());
        if (it.hasNext()) {
          out.append(',');
        }
      }
      out.append(']');
    } else if (value instanceof Object[]) {
      writeValue(out, java.util.Arrays.asList((Object[]) value));
    } else {
      throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON");
    }
  }

  private static void writeString(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        case '\b':
          out.append("\\b");
          break;
        case '\f':
          out.append("\\f");
          break;
        default:
          // escape controls and the line separators that break JavaScript consumers
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  private static final class Reader {
    private final String text;
    private int pos;

    Reader(String text) {
      this.text = text;
    }

    boolean atEnd() {
      return pos >= text.length();
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + what);
    }

    void skipWhitespace() {
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          pos++;
        } else {
          break;
        }
      }
    }

    Object readValue(int depth) {
      if (depth > MAX_DEPTH) {
        throw error("nesting deeper than " + MAX_DEPTH);
      }
      if (atEnd()) {
        throw error("unexpected end of input");
      }
      char c = text.charAt(pos);
      switch (c) {
        case '{':
          return readObject(depth);
        case '[':
          return readArray(depth);
        case '"':
          return readString();
        case 't':
          expectWord("true");
          return Boolean.TRUE;
        case 'f':
          expectWord("false");
          return Boolean.FALSE;
        case 'n':
          expectWord("null");
          return null;
        default:
          if (c == '-' || (c >= '0' && c <= '9')) {
            return readNumber();
          }
          throw error("unexpected character");
      }
    }

    private void expectWord(String word) {
      if (!text.startsWith(word, pos)) {
        throw error("expected " + word);
      }
      pos += word.length();
    }

    private Map<String, Object> readObject(int depth) {
      pos++; // '{'
      Map<String, Object> map = new LinkedHashMap<>();
      skipWhitespace();
      if (!atEnd() && text.charAt(pos) == '}') {
        pos++;
        return map;
      }
      while (true) {
        skipWhitespace();
        if (atEnd() || text.charAt(pos) != '"') {
          throw error("expected a string key");
        }
        String key = readString();
        skipWhitespace();
        if (atEnd() || text.charAt(pos) != ':') {
          throw error("expected ':'");
        }
        pos++;
        skipWhitespace();
        Object value = readValue(depth + 1);
        if (map.containsKey(key)) {
          // ambiguous input is refused rather than resolved either way
          throw error("duplicate key");
        }
        map.put(key, value);
        skipWhitespace();
        if (atEnd()) {
          throw error("unterminated object");
        }
        char c = text.charAt(pos++);
        if (c == '}') {
          return map;
        }
        if (c != ',') {
          throw error("expected ',' or '}'");
        }
      }
    }

    private List<Object> readArray(int depth) {
      pos++; // '['
      List<Object> list = new ArrayList<>();
      skipWhitespace();
      if (!atEnd() && text.charAt(pos) == ']') {
        pos++;
        return Collections.unmodifiableList(list);
      }
      while (true) {
        skipWhitespace();
        list.add(readValue(depth + 1));
        skipWhitespace();
        if (atEnd()) {
          throw error("unterminated array");
        }
        char c = text.charAt(pos++);
        if (c == ']') {
          return Collections.unmodifiableList(list);
        }
        if (c != ',') {
          throw error("expected ',' or ']'");
        }
      }
    }

    private String readString() {
      pos++; // opening quote
      StringBuilder sb = null;
      int start = pos;
      while (true) {
        if (atEnd()) {
          throw error("unterminated string");
        }
        char c = text.charAt(pos);
        if (c == '"') {
          String s =
              sb == null ? text.substring(start, pos) : sb.append(text, start, pos).toString();
          pos++;
          return s;
        }
        if (c < 0x20) {
          throw error("control character in string");
        }
        if (c == '\\') {
          if (sb == null) {
            sb = new StringBuilder();
          }
          sb.append(text, start, pos);
          pos++;
          if (atEnd()) {
            throw error("unterminated escape");
          }
          char e = text.charAt(pos++);
          switch (e) {
            case '"':
              sb.append('"');
              break;
            case '\\':
              sb.append('\\');
              break;
            case '/':
              sb.append('/');
              break;
            case 'b':
              sb.append('\b');
              break;
            case 'f':
              sb.append('\f');
              break;
            case 'n':
              sb.append('\n');
              break;
            case 'r':
              sb.append('\r');
              break;
            case 't':
              sb.append('\t');
              break;
            case 'u':
              if (pos + 4 > text.length()) {
                throw error("truncated \\u escape");
              }
              int code = 0;
              for (int i = 0; i < 4; i++) {
                int digit = Character.digit(text.charAt(pos + i), 16);
                if (digit < 0) {
                  throw error("bad \\u escape");
                }
                code = code * 16 + digit;
              }
              pos += 4;
              sb.append((char) code);
              break;
            default:
              pos--;
              throw error("bad escape");
          }
          start = pos;
        } else {
          pos++;
        }
      }
    }

    private Object readNumber() {
      int start = pos;
      if (text.charAt(pos) == '-') {
        pos++;
      }
      if (atEnd()) {
        throw error("bad number");
      }
      if (text.charAt(pos) == '0') {
        pos++;
      } else if (isDigit()) {
        while (isDigit()) {
          pos++;
        }
      } else {
        throw error("bad number");
      }
      boolean integral = true;
      if (!atEnd() && text.charAt(pos) == '.') {
        integral = false;
        pos++;
        if (!isDigit()) {
          throw error("bad number");
        }
        while (isDigit()) {
          pos++;
        }
      }
      if (!atEnd() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
        integral = false;
        pos++;
        if (!atEnd() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
          pos++;
        }
        if (!isDigit()) {
          throw error("bad number");
        }
        while (isDigit()) {
          pos++;
        }
      }
      String literal = text.substring(start, pos);
      if (literal.length() > 64) {
        throw error("number too long");
      }
      if (integral) {
        try {
          return Long.parseLong(literal);
        } catch (NumberFormatException e) {
          // out of long range: fall through to BigDecimal
        }
      }
      return new BigDecimal(literal);
    }

    private boolean isDigit() {
      return !atEnd() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9';
    }
  }
}
