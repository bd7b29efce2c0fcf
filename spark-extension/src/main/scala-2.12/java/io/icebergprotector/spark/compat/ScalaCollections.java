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
import scala.collection.JavaConverters;

/**
 * Scala collections for Java code, Scala 2.12 version (Spark 3.5 on 2.12). Same methods as the
 * Scala 2.13 version (src/main/scala-2.13), written with 2.12's {@code JavaConverters}: 2.12 has no
 * {@code scala.jdk.javaapi.CollectionConverters} and no {@code PartialFunction.fromFunction}.
 */
public final class ScalaCollections {
  private ScalaCollections() {}

  /** A Java view of a Scala sequence. */
  public static <T> List<T> asJava(scala.collection.Seq<T> seq) {
    return JavaConverters.seqAsJavaList(seq);
  }

  /** A Java view of a Scala iterator. */
  public static <T> java.util.Iterator<T> asJava(scala.collection.Iterator<T> iterator) {
    return JavaConverters.asJavaIterator(iterator);
  }

  /** A Scala view of a Java iterator. */
  public static <T> scala.collection.Iterator<T> asScala(java.util.Iterator<T> iterator) {
    return JavaConverters.asScalaIterator(iterator);
  }

  /** A Java view of a Scala map. */
  public static <K, V> Map<K, V> asJava(scala.collection.Map<K, V> map) {
    return JavaConverters.mapAsJavaMap(map);
  }

  /** An immutable Scala list of the elements of {@code list}: what Spark takes as a {@code Seq}. */
  public static <T> scala.collection.immutable.List<T> asScalaList(List<T> list) {
    return JavaConverters.asScalaBuffer(list).toList();
  }

  /** A partial function defined everywhere. */
  public static <A, B> PartialFunction<A, B> total(Function1<A, B> function) {
    return PartialFunction$.MODULE$.apply(function);
  }
}
