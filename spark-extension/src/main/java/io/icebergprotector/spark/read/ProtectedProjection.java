/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.OnDenied;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.masks.ColumnMask;
import io.icebergprotector.spark.masks.MaskEngine;
import java.io.Serializable;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.StructType;

/**
 * What one principal's scan reads and returns for a projected Iceberg schema.
 *
 * <ul>
 *   <li>{@link #outputSchema()}: the projection with every protected field (and what lies below it)
 *       optional, since a reader may get NULL there; this is what Spark sees.
 *   <li>{@link #fileSchema()}: the columns whose chunks are read: the output minus every field that
 *       reads as NULL, i.e. DENIED fields and fields masked with {@code null}. Their chunks are
 *       never read and their keys never requested.
 *   <li>{@link #nullFieldIds()}: those NULL fields, fed to the value readers as NULL constants (at
 *       any depth), so the row keeps Spark's shape without a copy.
 *   <li>the remaining MASKED fields are read, decrypted and masked per value ({@link RowMasker}).
 * </ul>
 *
 * <p>A protected field below a DENIED (or null-masked) struct is covered by that struct; a field
 * below a CLEAR struct keeps its own access.
 */
public final class ProtectedProjection implements Serializable {
  private static final long serialVersionUID = 1L;

  private final ProtectionSpec spec;
  private final Schema outputSchema;
  private final Schema fileSchema;
  private final Set<Integer> nullFieldIds;
  private final Map<Integer, String> maskedFields;

  private ProtectedProjection(
      ProtectionSpec spec,
      Schema outputSchema,
      Schema fileSchema,
      Set<Integer> nullFieldIds,
      Map<Integer, String> maskedFields) {
    this.spec = spec;
    this.outputSchema = outputSchema;
    this.fileSchema = fileSchema;
    this.nullFieldIds = Collections.unmodifiableSet(nullFieldIds);
    this.maskedFields = Collections.unmodifiableMap(maskedFields);
  }

  /**
   * Plans the read of {@code projected} (table columns and metadata columns).
   *
   * @throws ProtectorException if a projected column is denied with {@code on-denied = fail}, or a
   *     mask does not fit its column's type
   */
  public static ProtectedProjection of(Schema projected, ProtectionSpec spec) {
    checkNoFailingDenial(projected, spec);
    Set<Integer> nulls = new LinkedHashSet<>();
    Map<Integer, String> masked = new LinkedHashMap<>();
    for (Types.NestedField field : projected.columns()) {
      classify(field, spec, projected, nulls, masked);
    }
    Schema output = optionalize(projected, spec.protectedFieldIds(projected));
    Set<Integer> skipped = withDescendants(output, nulls);
    Schema file = TypeUtil.selectNot(output, skipped);
    return new ProtectedProjection(spec, output, file, nulls, masked);
  }

  /**
   * Field ids a filter may not be pushed on: every protected field the principal does not see in
   * clear, every tokenized field (files hold tokens: a clear value compared to them would prune
   * wrongly), and everything below them.
   */
  public static Set<Integer> hiddenFieldIds(Schema schema, ProtectionSpec spec) {
    Set<Integer> hidden = new LinkedHashSet<>();
    for (ColumnProtection column : spec.columns().values()) {
      if ((column.level() != AccessLevel.CLEAR || column.tokenized())
          && schema.findField(column.fieldId()) != null) {
        hidden.add(column.fieldId());
      }
    }
    return withDescendants(schema, hidden);
  }

  /** Refuses a projection that touches a column denied with {@code on-denied = fail}. */
  static void checkNoFailingDenial(Schema projected, ProtectionSpec spec) {
    for (ColumnProtection column : spec.columns().values()) {
      if (column.level() == AccessLevel.DENIED
          && column.onDenied() == OnDenied.FAIL
          && projected.findField(column.fieldId()) != null) {
        if (column.keyDestroyed()) {
          throw new ProtectorException(
              String.format(
                  "Key '%s' was destroyed (crypto-shredded): column '%s' of table %s can no longer"
                      + " be read, and the policy (%s) says on-denied = fail for it",
                  column.keyId(), column.path(), spec.tableName(), spec.policyOrigin()));
        }
        throw new ProtectorException(
            String.format(
                "Access denied: principal %s may not read column '%s' (key '%s') of table %s, and"
                    + " the policy (%s) says on-denied = fail for it. Leave the column out of the"
                    + " query (also out of filters), or ask for a role with clear or masked access.",
                spec.principal(),
                column.path(),
                column.keyId(),
                spec.tableName(),
                spec.policyOrigin()));
      }
    }
  }

  private static void classify(
      Types.NestedField field,
      ProtectionSpec spec,
      Schema schema,
      Set<Integer> nulls,
      Map<Integer, String> masked) {
    ColumnProtection protection = spec.columns().get(field.fieldId());
    if (protection != null) {
      if (protection.level() == AccessLevel.DENIED) {
        nulls.add(field.fieldId());
        return;
      }
      if (protection.level() == AccessLevel.MASKED) {
        Mask mask = protection.mask();
        if (mask.kind() == Mask.Kind.NULL) {
          nulls.add(field.fieldId());
          return;
        }
        MaskEngine.checkFits(
            mask,
            IcebergMaskTypes.of(field.type()),
            schema.findColumnName(field.fieldId()),
            "in table " + spec.tableName());
        masked.put(field.fieldId(), mask.spec());
        return;
      }
    }
    if (field.type().isNestedType()) {
      for (Types.NestedField child : field.type().asNestedType().fields()) {
        classify(child, spec, schema, nulls, masked);
      }
    }
  }

  /** The ids and the ids of every field nested below one of them in {@code schema}. */
  public static Set<Integer> withDescendants(Schema schema, Set<Integer> ids) {
    Set<Integer> result = new LinkedHashSet<>(ids);
    for (int id : ids) {
      Types.NestedField field = schema.findField(id);
      if (field != null && field.type().isNestedType()) {
        addNestedIds(field.type(), result);
      }
    }
    return result;
  }

  private static void addNestedIds(Type type, Set<Integer> ids) {
    if (type.isNestedType()) {
      for (Types.NestedField child : type.asNestedType().fields()) {
        ids.add(child.fieldId());
        addNestedIds(child.type(), ids);
      }
    }
  }

  /** The schema with every field in {@code ids} optional (map keys stay required). */
  static Schema optionalize(Schema schema, Set<Integer> ids) {
    Types.StructType struct = (Types.StructType) optionalize(schema.asStruct(), ids);
    // identifier fields must be required, and a read schema needs none
    return new Schema(struct.fields());
  }

  private static Type optionalize(Type type, Set<Integer> ids) {
    switch (type.typeId()) {
      case STRUCT:
        List<Types.NestedField> fields =
            type.asStructType().fields().stream()
                .map(
                    f -> {
                      Type fieldType = optionalize(f.type(), ids);
                      boolean optional = f.isOptional() || ids.contains(f.fieldId());
                      return Types.NestedField.from(f)
                          .ofType(fieldType)
                          .isOptional(optional)
                          .build();
                    })
                .collect(Collectors.toList());
        return Types.StructType.of(fields);
      case LIST:
        Types.ListType list = type.asListType();
        Type element = optionalize(list.elementType(), ids);
        return list.isElementOptional() || ids.contains(list.elementId())
            ? Types.ListType.ofOptional(list.elementId(), element)
            : Types.ListType.ofRequired(list.elementId(), element);
      case MAP:
        Types.MapType map = type.asMapType();
        Type key = optionalize(map.keyType(), ids);
        Type value = optionalize(map.valueType(), ids);
        return map.isValueOptional() || ids.contains(map.valueId())
            ? Types.MapType.ofOptional(map.keyId(), map.valueId(), key, value)
            : Types.MapType.ofRequired(map.keyId(), map.valueId(), key, value);
      default:
        return type;
    }
  }

  public ProtectionSpec spec() {
    return spec;
  }

  /** The Iceberg schema of the rows handed to Spark. */
  public Schema outputSchema() {
    return outputSchema;
  }

  /** {@link #outputSchema()} in Spark's terms. */
  public StructType sparkSchema() {
    return org.apache.iceberg.spark.SparkSchemaUtil.convert(outputSchema);
  }

  /** The columns whose chunks are read from the files. */
  public Schema fileSchema() {
    return fileSchema;
  }

  /**
   * The columns whose chunks are read when a file is read as {@code readSchema}: this projection's
   * output with columns appended for row-level deletes ({@code _pos}, equality columns, which are
   * never protected). Fields that read as NULL stay unread.
   */
  Schema fileSchema(Schema readSchema) {
    if (readSchema == outputSchema) {
      return fileSchema;
    }
    return TypeUtil.selectNot(readSchema, withDescendants(readSchema, nullFieldIds));
  }

  /** Fields that read as NULL (denied or masked with null); their chunks are never read. */
  public Set<Integer> nullFieldIds() {
    return nullFieldIds;
  }

  /** Masked fields (other than null masks) by field id, with their mask spec. */
  public Map<Integer, String> maskedFields() {
    return maskedFields;
  }

  /**
   * The detokenizer of this projection's clear and masked tokenized columns (top level), or null
   * when it reads none.
   */
  Detokenizer newDetokenizer() {
    return Detokenizer.compile(outputSchema, spec, nullFieldIds);
  }

  /**
   * The masker for this projection's rows, or null when nothing is masked. Hash-mask keys are
   * fetched from the key service on first use, once per JVM.
   */
  RowMasker newMasker() {
    Map<Integer, String> masked = readerMaskedFields();
    return masked.isEmpty()
        ? null
        : RowMasker.compile(outputSchema.asStruct(), newColumnMasks(masked));
  }

  /**
   * The masker for this projection's columnar batches, or null when nothing is masked. Only for
   * flat projections (see {@link #supportsBatchReads()}).
   */
  BatchMasker newBatchMasker() {
    Map<Integer, String> masked = readerMaskedFields();
    return masked.isEmpty() ? null : BatchMasker.compile(outputSchema, newColumnMasks(masked));
  }

  /**
   * The masked fields the reader masks itself: all but the tokenized columns the key server masks
   * in server token mode ({@link ProtectionSpec#serverMasks}), whose values arrive masked.
   */
  private Map<Integer, String> readerMaskedFields() {
    Map<Integer, String> out = new HashMap<>();
    for (Map.Entry<Integer, String> entry : maskedFields.entrySet()) {
      ColumnProtection protection = spec.columns().get(entry.getKey());
      if (protection == null || !spec.serverMasks(protection)) {
        out.put(entry.getKey(), entry.getValue());
      }
    }
    return out;
  }

  /** The column masks of the masked fields, by field id; one set per reader. */
  private Map<Integer, ColumnMask> newColumnMasks(Map<Integer, String> masked) {
    Map<Integer, ColumnMask> masks = new HashMap<>();
    for (Map.Entry<Integer, String> entry : masked.entrySet()) {
      int id = entry.getKey();
      ColumnProtection protection = spec.columns().get(id);
      masks.put(
          id,
          MaskEngine.columnMask(
              Mask.parse(entry.getValue()),
              IcebergMaskTypes.of(outputSchema.findField(id).type()),
              protection.path(),
              "in table " + spec.tableName(),
              hashKey(protection)));
    }
    return masks;
  }

  /**
   * Whether Iceberg would read this projection with its vectorized Parquet reader: every output
   * column is a primitive or a metadata column (as in Iceberg's {@code SparkBatch}). Masks and NULL
   * columns sit at the top level then, where the columnar path handles them.
   */
  public boolean supportsBatchReads() {
    return outputSchema.columns().stream()
        .allMatch(
            f ->
                f.type().isPrimitiveType()
                    || org.apache.iceberg.MetadataColumns.isMetadataColumn(f.fieldId()));
  }

  private java.util.function.Supplier<byte[]> hashKey(ColumnProtection protection) {
    String keyId = protection.keyId();
    return () -> ProtectorCrypto.hashMaskKey(spec, keyId);
  }
}
