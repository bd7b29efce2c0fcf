/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap one job needed, from the JVM's own accounting. In local mode the executors run in this
 * JVM, so these are the executors' figures (with the driver's on top). Two measures:
 *
 * <ul>
 *   <li>peak used: the sum of the heap pools' peak usage since {@link #reset} (an upper bound of
 *       what was in use at once: the pools peak at different moments);
 *   <li>after GC: the largest heap occupancy right after a collection, which is what the job kept
 *       reachable (plus garbage a young collection did not reach), so the heap it cannot do
 *       without.
 * </ul>
 */
final class HeapPeaks implements AutoCloseable {
  private final List<MemoryPoolMXBean> heapPools = new ArrayList<>();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final AtomicLong maxAfterGc = new AtomicLong();
  private final NotificationListener listener = this::onCollection;

  HeapPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool);
      }
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        emitters.add(emitter);
      }
    }
  }

  private void onCollection(Notification notification, Object handback) {
    if (!notification
        .getType()
        .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool :
        info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (isHeapPool(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    maxAfterGc.accumulateAndGet(used, Math::max);
  }

  private boolean isHeapPool(String name) {
    for (MemoryPoolMXBean pool : heapPools) {
      if (pool.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** Starts a new measure. */
  void reset() {
    heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);
    maxAfterGc.set(0);
  }

  /** The sum of the heap pools' peak usage since {@link #reset}, in bytes. */
  long peakUsed() {
    long sum = 0;
    for (MemoryPoolMXBean pool : heapPools) {
      sum += pool.getPeakUsage().getUsed();
    }
    return sum;
  }

  /** The largest heap occupancy after a collection since {@link #reset}, in bytes (0: none). */
  long maxAfterGc() {
    return maxAfterGc.get();
  }

  @Override
  public void close() {
    for (NotificationEmitter emitter : emitters) {
      try {
        emitter.removeNotificationListener(listener);
      } catch (ListenerNotFoundException e) {
        // already gone
      }
    }
  }
}
