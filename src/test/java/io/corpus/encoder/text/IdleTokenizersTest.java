package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.corpus.encoder.testing.SharedModels;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A task's tokenizer, given back, is the next task's of the same key, never one of another key
 * nor one a running task holds; the longest idle beyond the bound is closed and made again.
 * Isolated: the JVM's idle tokenizers are shared, and a test class running beside this one that
 * gives its readers' tokenizers back would close the ones these tests count on.
 */
@Isolated
class IdleTokenizersTest {
  @Test
  void aTokenizerGivenBackServesTheNextTaskOfItsKeyOnly() throws Exception {
    AtomicInteger made = new AtomicInteger();
    Supplier<TextTokenizer> make = counted(made);
    String key = "test " + UUID.randomUUID();
    TextTokenizer first = IdleTokenizers.take(key, make);
    TextTokenizer beside = IdleTokenizers.take(key, make);
    assertNotSame(first, beside, "two tasks at once hold two tokenizers");
    assertEquals(2, made.get());
    IdleTokenizers.give(key, first);
    assertSame(first, IdleTokenizers.take(key, make), "given back: taken again, not made");
    assertEquals(2, made.get());
    IdleTokenizers.give(key, first);
    TextTokenizer other = IdleTokenizers.take("another " + key, make);
    assertNotSame(first, other, "another key is another tokenizer");
    assertEquals(3, made.get());
    assertEquals(List.of(101, 7592, 102), ids(IdleTokenizers.take(key, make), "hello"));
    IdleTokenizers.give(key, beside);
    IdleTokenizers.give(key, first);
    IdleTokenizers.give(key, other);
  }

  @Test
  void theLongestIdleBeyondTheBoundIsClosedAndMadeAgain() throws Exception {
    AtomicInteger made = new AtomicInteger();
    Supplier<TextTokenizer> make = counted(made);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i <= IdleTokenizers.MOST_IDLE; i++) {
      keys.add("bound " + i + " " + UUID.randomUUID());
      IdleTokenizers.give(keys.get(i), IdleTokenizers.take(keys.get(i), make));
    }
    assertEquals(IdleTokenizers.MOST_IDLE, IdleTokenizers.idle());
    int before = made.get();
    IdleTokenizers.give(keys.get(1), IdleTokenizers.take(keys.get(1), make));
    assertEquals(before, made.get(), "a key still idle is not made again");
    IdleTokenizers.give(keys.get(0), IdleTokenizers.take(keys.get(0), make));
    assertEquals(before + 1, made.get(), "the longest idle was closed: made again");
  }

  /** MiniLM's tokenizer, made anew at each call, the calls counted in {@code made}. */
  private static Supplier<TextTokenizer> counted(AtomicInteger made) throws Exception {
    byte[] json = Files.readAllBytes(SharedModels.miniLm().resolve("tokenizer.json"));
    return () -> {
      made.incrementAndGet();
      return TextTokenizer.fromJson(json, 32);
    };
  }

  private static List<Integer> ids(TextTokenizer tokenizer, String text) {
    List<Integer> ids = new ArrayList<>();
    for (int id : tokenizer.encode(text).ids()) {
      ids.add(id);
    }
    return ids;
  }
}
