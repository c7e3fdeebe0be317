package io.corpus.encoder.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.logging.Level;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's Chromium, headless, driven through its WebDriver (chromium-driver) by Selenium, as the
 * report's browser tests open a page: its console logged, the page's views drawn
 * ({@code data-ready} on its body) before a test looks.
 */
public final class HeadlessChromium {
  private HeadlessChromium() {}

  /** A browser with its profile under {@code scratch}, at the page, once its views are drawn. */
  public static ChromeDriver open(Path page, Path scratch) throws IOException {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(onPath("chromium"));
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu",
        "--window-size=1400,1100", "--disable-background-networking", "--no-first-run",
        "--user-data-dir=" + Files.createTempDirectory(scratch, "profile"));
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(onPath("chromedriver"))).build();
    ChromeDriver browser = new ChromeDriver(service, options);
    browser.get(page.toUri().toString());
    new WebDriverWait(browser, Duration.ofSeconds(30)).until(
        d -> !d.findElement(By.tagName("body")).getAttribute("data-ready").isEmpty());
    return browser;
  }

  /** Quits the browser (null: none was opened) and deletes the scratch folder. */
  public static void close(ChromeDriver browser, Path scratch) throws IOException {
    if (browser != null) {
      browser.quit();
    }
    try (var paths = Files.walk(scratch)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static String onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, program);
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    throw new IllegalStateException(program + " is not on PATH: the report's browser tests need "
        + "Debian's chromium and chromium-driver (jobs/test installs them)");
  }
}
