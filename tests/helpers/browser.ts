/**
 * Headless Chromium for the dashboard tests, driven by playwright-core over
 * Debian's /usr/bin/chromium. The test tool never downloads a browser of
 * its own: where Chromium is missing, `launchBrowser` says so and the tests
 * skip.
 */
import { type Browser, chromium } from "playwright-core";

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = "/usr/bin/chromium";

/** Why browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  try {
    Deno.statSync(CHROMIUM);
    return undefined;
  } catch {
    return `${CHROMIUM} is missing (apt-get install -y chromium); skipping the browser tests`;
  }
}

/** Launches headless Chromium with the flags that keep it quiet and offline. */
export async function launchBrowser(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
    ],
  });
}

/** The folder screenshots go to (git-ignored). */
export async function outputDir(): Promise<string> {
  const dir = new URL("../output/", import.meta.url).pathname;
  await Deno.mkdir(dir, { recursive: true });
  return dir;
}
