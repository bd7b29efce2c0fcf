/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import java.util.List;
import java.util.Map;
import scala.Function1;
import scala.PartialFunction;
import scala.PartialFunction$;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Scala collections for Java code, Scala 2.13 version (Spark 3.5 on 2.13, Spark 4.0). The Scala
 * 2.12 version (src/main/scala-2.12) has the same methods: 2.12 has no {@code
 * scala.jdk.javaapi.CollectionConverters}, and Spark's {@code Seq} parameters are {@code
 * scala.collection.Seq} there but {@code scala.collection.immutable.Seq} here. Shared code passes
 * {@link #asScalaList} (an immutable {@code List}, a subtype of both) where Spark takes a {@code
 * Seq}, and never names either {@code Seq} in a parameter it passes on.
 */
public final class ScalaCollections {
  private ScalaCollections() {}

  /** A Java view of a Scala sequence. */
  public static <T> List<T> asJava(scala.collection.Seq<T> seq) {
    return CollectionConverters.asJava(seq);
  }

  /** A Java view of a Scala iterator. */
  public static <T> java.util.Iterator<T> asJava(scala.collection.Iterator<T> iterator) {
    return CollectionConverters.asJava(iterator);
  }

  /** A Scala view of a Java iterator. */
  public static <T> scala.collection.Iterator<T> asScala(java.util.Iterator<T> iterator) {
    return CollectionConverters.asScala(iterator);
  }

  /** A Java view of a Scala map. */
  public static <K, V> Map<K, V> asJava(scala.collection.Map<K, V> map) {
    return CollectionConverters.asJava(map);
  }

  /** An immutable Scala list of the elements of {@code list}: what Spark takes as a {@code Seq}. */
  public static <T> scala.collection.immutable.List<T> asScalaList(List<T> list) {
    return CollectionConverters.asScala(list).toList();
  }

  /** A partial function defined everywhere. */
  public static <A, B> PartialFunction<A, B> total(Function1<A, B> function) {
    return PartialFunction$.MODULE$.fromFunction(function);
  }
}
